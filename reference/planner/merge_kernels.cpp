#include "reference/planner/merge_kernels.h"

#include <array>

namespace cp {

namespace {

// What each kernel does, read from its source (docs/kernels.md "Merge kernels by version").
constexpr std::array kKernels{
    MergeKernel{.id = "triton@ef17b1cc",
                .source = "vllm/attention/ops/triton_merge_attn_states.py@ef17b1cc",
                .engine = "vllm",
                .inf = InfRule::none,
                .both_empty = BothEmpty::nan,
                .strides = SuffixStrides::contiguous,
                .note = "no inf handling: an FA2 +inf LSE for an empty row gives NaN; every operand indexed as "
                        "dense [T][N][HEAD_SIZE]"},
    MergeKernel{.id = "triton@cfc4079e",
                .source = "vllm/v1/attention/ops/triton_merge_attn_states.py@cfc4079e",
                .engine = "vllm",
                .inf = InfRule::pos_to_neg,
                .zero_weight_guard = true,
                .both_empty = BothEmpty::nan,
                .strides = SuffixStrides::prefix_stride,
                .note = "+inf -> -inf (FA2), where(p_se == 0, 0, ...); empty + empty: m = -inf, NaN; suffix read "
                        "with prefix_head_stride"},
    MergeKernel{.id = "triton@01ac819c",
                .source = "vllm/v1/attention/ops/triton_merge_attn_states.py@01ac819c",
                .engine = "vllm",
                .inf = InfRule::pos_to_neg,
                .both_empty = BothEmpty::nan,
                .strides = SuffixStrides::prefix_stride,
                .takes_prefill_tokens_with_context = true,
                .masks_empty_context = true,
                .note = "prefill_tokens_with_context (suffix alone past it) and mask_empty_context_lse (#49294); "
                        "no zero-weight guard in this copy; suffix read with prefix_head_stride"},
    MergeKernel{.id = "cuda@pre28181",
                .source = "csrc/attention/merge_attn_states.cu (#16173)",
                .engine = "vllm",
                .inf = InfRule::any_to_neg,
                .both_empty = BothEmpty::nan,
                .strides = SuffixStrides::checked,
                .flavour = MergeFlavour::cuda,
                .note = "before #28181: both LSEs -inf -> max -inf -> NaN"},
    MergeKernel{.id = "cuda@28181",
                .source = "csrc/attention/merge_attn_states.cu (#28181, 48dca59e)",
                .engine = "vllm",
                .inf = InfRule::any_to_neg,
                .both_empty = BothEmpty::copy_prefix,
                .strides = SuffixStrides::checked,
                .flavour = MergeFlavour::cuda,
                .note = "both empty: copy prefix_output, lse -inf (early return); TORCH_CHECK contiguous heads"},
    // The other engines' merges (docs/numerics.md "Engines' own merges"): read from each engine's code.
    MergeKernel{.id = "atom-triton@22da013e",
                .source = "ROCm/ATOM atom/model_ops/attentions/triton_merge_attn_states.py@22da013e (#1236's fix)",
                .engine = "atom",
                .inf = InfRule::pos_to_neg,
                .both_empty = BothEmpty::zero,
                .strides = SuffixStrides::prefix_stride,
                .takes_prefill_tokens_with_context = true,
                .note = "vLLM's Triton kernel copied; both empty: safe_max = 0 and denominator 1, so out = "
                        "p_out*0 + s_out*0 and lse -inf; no zero-weight guard (out = p_out*p_scale + s_out*s_scale)"},
    MergeKernel{.id = "sglang-triton@37ab963c",
                .source = "sgl-project/sglang python/sglang/srt/layers/attention/triton_ops/merge_state.py@37ab963c "
                          "(ROCm: merge_state.py@1f739321 dispatches here when not is_cuda())",
                .engine = "sglang",
                .inf = InfRule::pos_to_neg,
                .both_empty = BothEmpty::nan,
                .strides = SuffixStrides::contiguous,
                .order = MergeOrder::suffix_first,
                .note =
                    "+inf -> -inf, no zero-weight guard, both empty: NaN; but the chunk loop (forward_mha.py@00cc79fa) "
                    "starts from the causal extend attention, so a context-free request never merges two empty "
                    "states"},
    MergeKernel{.id = "sglang-cuda-v2",
                .source = "sgl-kernel merge_state_v2 (CUDA; dispatched by merge_state.py@1f739321 on CUDA when the "
                          "head size packs); the kernel source was not read",
                .engine = "sglang",
                .inf = InfRule::any_to_neg,
                .both_empty = BothEmpty::nan,
                .strides = SuffixStrides::checked,
                .flavour = MergeFlavour::cuda,
                .order = MergeOrder::suffix_first,
                .note = "a port of vLLM's merge_attn_states.cu (merge_state.py's NOTE(DefTruth)); its both-empty rule "
                        "is not read and never reached: the loop starts from the causal extend attention"},
    MergeKernel{.id = "trtllm-merge-op",
                .source = "NVIDIA/TensorRT-LLM tensorrt_llm/_torch/attention_backend/trtllm.py@00bede19 (merge op per "
                          "loop and request: 2 copy, 1 merge, 0 skip; other-engines.md §4.2, R-4)",
                .engine = "trtllm",
                .inf = InfRule::any_to_neg,
                .both_empty = BothEmpty::copy_prefix,
                .strides = SuffixStrides::own,
                .flavour = MergeFlavour::cuda,
                .empty = EmptyPartial::skipped,
                .note = "a len-0 row is skipped by op code (never merged), the first loop with keys copied; the "
                        "new-token pass copies when the request has no context (op 2)"},
    MergeKernel{.id = "flashinfer-cascade@4051",
                .source = "flashinfer cascade merge_state (issue #4051 open; fixes #4054, #5262)",
                .engine = "flashinfer",
                .inf = InfRule::none,
                .both_empty = BothEmpty::nan,
                .strides = SuffixStrides::own,
                .note = "empty + empty -> NaN, open upstream"},
};

// Dated by the version's source (docs/plan.md "vLLM commit -> version"): the Triton kernel
// moved to vllm/v1/attention/ops with the +inf handling; the CUDA kernel came with #16173
// (2025-04), its both-empty early return with #28181 (2025-11).
constexpr std::array kByVersion{
    VersionMergeKernels{.version = "v0-early",
                        .triton = "triton@ef17b1cc",
                        .cuda = "triton@ef17b1cc",
                        .why = "S1, earliest V1 (early 2025): only the Triton kernel existed"},
    VersionMergeKernels{.version = "v1-dcp",
                        .triton = "triton@cfc4079e",
                        .cuda = "cuda@pre28181",
                        .why = "S2, first DCP common.py (before #28181)"},
    VersionMergeKernels{
        .version = "v2-interleave", .triton = "triton@cfc4079e", .cuda = "cuda@28181", .why = "S3/S4 0014ca6b"},
    VersionMergeKernels{.version = "pr41229", .triton = "triton@cfc4079e", .cuda = "cuda@28181", .why = "on S4"},
    VersionMergeKernels{.version = "v3-pr46114", .triton = "triton@cfc4079e", .cuda = "cuda@28181", .why = "S5/S6"},
    VersionMergeKernels{.version = "v4-pr47327", .triton = "triton@cfc4079e", .cuda = "cuda@28181", .why = "#47327"},
    VersionMergeKernels{.version = "v5-packed", .triton = "triton@cfc4079e", .cuda = "cuda@28181", .why = "S7 #50613"},
    VersionMergeKernels{.version = "v6-current",
                        .triton = "triton@01ac819c",
                        .cuda = "cuda@28181",
                        .why = "903ecb17: prefill_tokens_with_context + #49294's mask in the Triton file"},
    // The other engines: each calls its own merge (ATOM is ROCm-only: both slots its Triton copy).
    VersionMergeKernels{.version = "atom-pre2113",
                        .triton = "atom-triton@22da013e",
                        .cuda = "atom-triton@22da013e",
                        .why = "A2 ffdf3bb5 triton_merge_attn_states.py l.144: #1236's both-empty rule"},
    VersionMergeKernels{.version = "atom-current",
                        .triton = "atom-triton@22da013e",
                        .cuda = "atom-triton@22da013e",
                        .why = "post-#2113, same file"},
    VersionMergeKernels{.version = "atom-fixed",
                        .triton = "atom-triton@22da013e",
                        .cuda = "atom-triton@22da013e",
                        .why = "the proposed planner fix keeps ATOM's merge"},
    VersionMergeKernels{.version = "sglang-pre22688",
                        .triton = "sglang-triton@37ab963c",
                        .cuda = "sglang-cuda-v2",
                        .why = "merge_state.py: Triton off CUDA, merge_state_v2 on CUDA"},
    VersionMergeKernels{.version = "sglang-current",
                        .triton = "sglang-triton@37ab963c",
                        .cuda = "sglang-cuda-v2",
                        .why = "merge_state.py@1f739321"},
    VersionMergeKernels{.version = "sglang-oneshot-dcp",
                        .triton = "sglang-triton@37ab963c",
                        .cuda = "sglang-cuda-v2",
                        .why = "merge_state.py@1f739321"},
    VersionMergeKernels{
        .version = "trtllm-pre7477", .triton = "trtllm-merge-op", .cuda = "trtllm-merge-op", .why = "R1"},
    VersionMergeKernels{
        .version = "trtllm-current", .triton = "trtllm-merge-op", .cuda = "trtllm-merge-op", .why = "R2 (#7477)"},
    VersionMergeKernels{.version = "trtllm-sm90-pre19269",
                        .triton = "trtllm-merge-op",
                        .cuda = "trtllm-merge-op",
                        .why = "R4: the same loop when it chunks"},
    // TokenSpeed has no row: its ROCm MLA backend is a skeleton that raises NotImplementedError
    // (lightseekorg/tokenspeed@60529e3c backends/tokenspeed_mla_rocm.py) and its CUDA merge lives in
    // tokenspeed_kernel (not read), so kernel_for falls back to the platform's flavour and says so.
};

}  // namespace

std::span<const MergeKernel> merge_kernels() { return kKernels; }

const MergeKernel* find_merge_kernel(std::string_view id) {
  for (const auto& k : kKernels)
    if (k.id == id) return &k;
  return nullptr;
}

std::span<const VersionMergeKernels> version_merge_kernels() { return kByVersion; }

MergeKernelChoice kernel_for(Version v, MergeFlavour dispatched) {
  for (const auto& row : kByVersion)
    if (row.version == name(v))
      return {find_merge_kernel(dispatched == MergeFlavour::cuda ? row.cuda : row.triton), false};
  return {find_merge_kernel(dispatched == MergeFlavour::cuda ? "cuda@28181" : "triton@01ac819c"), true};
}

std::string_view name(InfRule r) {
  return r == InfRule::none ? "none" : r == InfRule::pos_to_neg ? "+inf->-inf" : "any inf->-inf";
}
std::string_view name(BothEmpty b) {
  return b == BothEmpty::nan ? "NaN" : b == BothEmpty::copy_prefix ? "copy prefix, lse -inf" : "out 0, lse -inf";
}
std::string_view name(EmptyPartial e) { return e == EmptyPartial::merged ? "merged" : "skipped (op code)"; }
std::string_view name(MergeOrder o) {
  return o == MergeOrder::context_then_suffix ? "context, then the causal suffix" : "causal suffix first";
}
std::string_view name(SuffixStrides s) {
  switch (s) {
    case SuffixStrides::contiguous: return "dense [T][N][HEAD_SIZE] assumed";
    case SuffixStrides::prefix_stride: return "suffix read with the prefix's strides";
    case SuffixStrides::own: return "own strides";
    case SuffixStrides::checked: return "contiguous heads checked";
  }
  return "?";
}

}  // namespace cp

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
std::string_view name(BothEmpty b) { return b == BothEmpty::nan ? "NaN" : "copy prefix, lse -inf"; }
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

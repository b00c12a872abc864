// Which merge_attn_states kernel a planner version shipped with, per platform, and what that
// kernel does at the boundaries (issue 28). The model's two MergeFlavours (merge_flavour.h) are
// one snapshot of vLLM's kernels; this table is their history: the early Triton kernel without
// any inf handling (ef17b1cc), +inf -> -inf and the zero-weight guard (cfc4079e: empty + empty
// still NaN), prefill_tokens_with_context and #49294's empty-context LSE mask (01ac819c), the
// CUDA kernel before and after #28181's both-empty early return, FlashInfer's cascade merge
// (#4051). One place: the export writes the record into its manifest (geometry.merge_kernel),
// the runner emulates or loads the kernel it names, `compare`'s kernel contracts and I-12 read
// it. Keyed by version name (beside, not inside, versions.h: a row field would rebuild the tree);
// a version without an entry falls back to the platform's flavour (kernel_for says so).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "reference/planner/platform.h"
#include "reference/planner/versions.h"

namespace cp {

enum class InfRule : std::uint8_t { none, pos_to_neg, any_to_neg };  // which LSE infinities become -inf
enum class BothEmpty : std::uint8_t { nan, copy_prefix, zero };      // both LSEs -inf (zero: out 0, lse -inf)
// How the engine's context loop treats a chunk in which a request attends no rows, and in which
// order it merges (the loop around the kernel, recorded with the kernel it calls).
enum class EmptyPartial : std::uint8_t {
  merged,   // the (0, -inf) partial goes through the kernel (vLLM, ATOM, SGLang)
  skipped,  // TensorRT-LLM's merge op 0: a len-0 row is not merged; the first row with keys is copied (op 2)
};
enum class MergeOrder : std::uint8_t {
  context_then_suffix,  // running context partial over the chunks, then merge(context, causal suffix)
  suffix_first,         // SGLang: the running state starts as the causal extend attention, each chunk
                        // merged into it (merge_state(chunk, running)): two empty states never meet
};
enum class SuffixStrides : std::uint8_t {
  contiguous,     // every operand indexed as [T][N][HEAD_SIZE] dense: padded views read wrong rows
  prefix_stride,  // the suffix read with the prefix's head (and token) stride: 192 vs 128 mismatch
  own,            // each operand with its own strides
  checked,        // TORCH_CHECK on contiguous heads: a padded view is refused, never misread
};

struct MergeKernel {
  std::string_view id;      // "triton@cfc4079e": the runner's and compare's name for it
  std::string_view source;  // file@commit (or PR) in the engine's repository
  std::string_view engine;  // vllm | flashinfer | atom | sglang | trtllm
  InfRule inf = InfRule::none;
  bool zero_weight_guard = false;  // a zero weight zeroes its term (0 * NaN garbage -> 0)
  BothEmpty both_empty = BothEmpty::nan;
  SuffixStrides strides = SuffixStrides::own;
  bool takes_prefill_tokens_with_context = false;  // tokens past it take the suffix alone
  bool masks_empty_context = false;                // #49294: -inf LSE for empty context rows first
  MergeFlavour flavour = MergeFlavour::triton;     // the spec-§4 flavour it is closest to
  EmptyPartial empty = EmptyPartial::merged;
  MergeOrder order = MergeOrder::context_then_suffix;
  std::string_view note;
};

std::span<const MergeKernel> merge_kernels();
const MergeKernel* find_merge_kernel(std::string_view id);

struct VersionMergeKernels {
  std::string_view version;  // a version row's name
  // what the dispatcher (platform.h merge_flavour) picks from: the Triton kernel (ROCm always;
  // CUDA when the head size does not pack) and the CUDA kernel of the version's time
  std::string_view triton, cuda;
  std::string_view why;  // the dating: which file at which commit the version's source had
};
std::span<const VersionMergeKernels> version_merge_kernels();

// The kernel a case ran through: the version's entry for the flavour the platform dispatched
// to, else that flavour's current kernel (fallback = true: a version with no entry).
struct MergeKernelChoice {
  const MergeKernel* kernel = nullptr;
  bool fallback = false;
};
MergeKernelChoice kernel_for(Version v, MergeFlavour dispatched);

std::string_view name(InfRule r);
std::string_view name(BothEmpty b);
std::string_view name(EmptyPartial e);
std::string_view name(MergeOrder o);
std::string_view name(SuffixStrides s);

}  // namespace cp

// The engine switches every planner step reads: the platform (vLLM's aot_schedule /
// align_chunk_to_block), the metadata builder, and the kernels a plan runs with.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "reference/planner/merge_flavour.h"

namespace cp {

enum class Platform { cuda, rocm };
// Which metadata builder runs the planner (#46114): the dense MLA builder (TRITON_MLA and the
// other dense backends, DeepSeek-V2/V3 on MI300X too) or the sparse-MLA builder (S6), which
// passes align_chunk_to_block = is_cuda().
enum class Builder { dense, sparse };

// How a version moves context rows from the paged cache into the workspace (spec §3.4).
enum class GatherKind {
  page_rounding,  // old batch-grid gather_and_maybe_dequant_cache: start rounded down to the page
  token_major,    // token-major gather_and_maybe_dequant_cache (token_to_seq): exact starts
  cp_gather,      // cp_gather_cache on local slots (every DCP version): exact local starts
};

std::string_view name(Platform p);
std::string_view name(Builder b);
std::string_view name(GatherKind g);
std::string_view name(MergeFlavour f);
std::optional<Platform> parse_platform(std::string_view name);
std::optional<Builder> parse_builder(std::string_view name);

// vLLM's aot_schedule (S2-S4: current_platform.is_cuda(); S1: FA3, which only CUDA has).
constexpr bool aot_schedule(Platform p) { return p == Platform::cuda; }
// Packed planner: align_chunk_to_block (dense: always; sparse builder: only on CUDA).
constexpr bool packed_aligns_to_block(Builder b, Platform p) { return b == Builder::dense || p == Platform::cuda; }

// The dtype of the partial outputs the merge reads (the model dtype: bf16 for DeepSeek/Kimi).
enum class PartialDtype { bf16, fp16, fp32 };
// The merge_attn_states kernel vLLM's dispatcher runs (vllm/v1/attention/ops/merge_attn_states.py,
// the same rule since the CUDA kernel came in): the CUDA kernel only on CUDA, for fp32/fp16/bf16
// partials whose head size (v_dim in MLA: the partials are sliced to it) is a multiple of the
// kernel's 16-byte pack (4 fp32, 8 half/bf16); Triton otherwise. The one place this rule lives:
// the plan records it, and I-12, the numerics and the export read the plan.
constexpr MergeFlavour merge_flavour(Platform p, std::int64_t head_size, PartialDtype d = PartialDtype::bf16) {
  const std::int64_t pack = d == PartialDtype::fp32 ? 4 : 8;
  return p == Platform::cuda && head_size % pack == 0 ? MergeFlavour::cuda : MergeFlavour::triton;
}

}  // namespace cp

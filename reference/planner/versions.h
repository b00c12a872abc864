// The catalogue of planner versions (DESIGN §4) as DATA: one row per version says how it
// sizes the workspace, what it rounds the chunk to, which planner family and asserts it runs,
// which gather kernel it uses without DCP and how it reports context-free prefills to the
// merge. Every consumer asks the row; nobody tests `version == ...`. Names are part of the CLI
// and the corpus format; never rename one. Adding a version = one row here (+ its planner step
// if it is new + a test): docs/plan.md "How to add a version".
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "reference/planner/merge_flavour.h"

namespace cp {

enum class Version { v0_early, v1_dcp, v2_interleave, pr41229, v3_pr46114, v4_pr47327, v5_packed, v6_current };
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

// determine_chunked_prefill_workspace_size of the version (spec §1; arith.h has the formulas).
enum class SizingRule {
  v0_128k,    // S1: min(max(8*mml, 4*mns*B), 128K); init assert S >= mns*B
  legacy,     // S2-S5: 64K cap, then max(S, mns*B) (#25478)
  pr41229,    // legacy rounded down to a multiple of W
  packed_v5,  // #50484: round_up(max(S0, mns*A), A)
  packed_v6,  // #51733 (vLLM 903ecb17): no mns floor; round_up(max(S0, A), A) with or without DCP
};

// What the chunk width / split alignment is rounded to (spec §2.4).
enum class RoundingRule {
  block_needs_fa3,       // S1: always round_down(M, page_size), but page_size exists only with FA3
  block_if_aot,          // S2-S4: round to B only when aot_schedule (CUDA)
  lcm_bw_if_aot_else_w,  // #41229: lcm(B, W) with aot_schedule, else W
  block_per_builder,     // #46114 and later: dense always B; sparse B only on CUDA (S5/S6)
};

enum class PlannerKind {
  floor_divide_v1,          // S1/S2: M = S // n; DCP local chunk M // W (interleave 1)
  floor_divide_interleave,  // S3-S5: padded local lengths, PL = cdiv(M, V) * I
  packed,                   // #50613: per-request packing, chunks are request slices
};

// How context-free prefills reach the final merge (I-12, I-13).
enum class ContextMask {
  none,     // S1/S2, v5, v6 (vLLM 903ecb17): nothing passed (the packed planner lists every
            // context-free prefill as an empty query range: (0, -inf) partials)
  first_n,  // S4/S5: prefill_tokens_with_context = query end of the first n prefills
};

struct VersionInfo {
  Version version;
  std::string_view name;
  std::string_view summary;
  std::string_view source;  // spec source tag(s)
  PlannerKind planner;
  SizingRule sizing;
  RoundingRule rounding;
  bool supports_dcp;
  bool supports_interleave;
  bool per_step_assert;  // old planner: assert M % W == 0 every step (checks W, not I*W)
  GatherKind gather_without_dcp;
  ContextMask context_mask;
  bool packed;                     // == (planner == PlannerKind::packed); kept as a column for readers
  bool masks_context_free_tokens;  // == (context_mask == first_n)
};

std::span<const VersionInfo> all_versions();
const VersionInfo& info(Version v);
std::optional<Version> parse_version(std::string_view name);
std::string_view name(Version v);
std::string_view name(Platform p);
std::string_view name(Builder b);
std::string_view name(GatherKind g);
std::string_view name(MergeFlavour f);
std::optional<Platform> parse_platform(std::string_view name);
std::optional<Builder> parse_builder(std::string_view name);

// vLLM's aot_schedule (S2-S4: current_platform.is_cuda(); S1: FA3, which only CUDA has).
constexpr bool aot_schedule(Platform p) { return p == Platform::cuda; }

// The gather kernel a plan of this version uses.
GatherKind gather_kind(const VersionInfo& v, bool dcp);
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

// Whether the S1 builder dies before planning: it rounds by self.page_size, which __init__
// sets only when aot_schedule (vLLM FlashAttention 3). Off CUDA every step with chunked
// context raises AttributeError.
constexpr bool v0_page_size_missing(const VersionInfo& v, Platform p) {
  return v.rounding == RoundingRule::block_needs_fa3 && !aot_schedule(p);
}
// Packed planner: align_chunk_to_block (dense: always; sparse builder: only on CUDA).
constexpr bool packed_aligns_to_block(Builder b, Platform p) { return b == Builder::dense || p == Platform::cuda; }

}  // namespace cp

// The floor-divide family's steps (v0-early .. v4-pr47327, pr41229; spec §2.2, §2.4, §3.6):
// every prefill gets an equal share M = S // n, rounded by the version's rule. Templates over
// the number type: the planner (cp::Int) and the prover (z3::expr) call the same code. A version
// row's FloorDivideRules say which rule each step applies; a new rounding rule is one enum value
// and its case in old_round_to (the self-check iterates kRoundingRules).
#pragma once

#include <array>
#include <stdexcept>
#include <string_view>

#include "reference/planner/arith.h"
#include "reference/planner/platform.h"

namespace cp {

// What the chunk width M = S // n is rounded down to (spec §2.4).
enum class RoundingRule {
  block_needs_fa3,       // S1: always round_down(M, page_size), but page_size exists only with FA3
  block_if_aot,          // S2-S4: round to B only when aot_schedule (CUDA)
  lcm_bw_if_aot_else_w,  // #41229: lcm(B, W) with aot_schedule, else W
  block_per_builder,     // #46114 and later: dense always B; sparse B only on CUDA (S5/S6)
};
inline constexpr std::array kRoundingRules{RoundingRule::block_needs_fa3, RoundingRule::block_if_aot,
                                           RoundingRule::lcm_bw_if_aot_else_w, RoundingRule::block_per_builder};
constexpr std::string_view name(RoundingRule r) {
  switch (r) {
    case RoundingRule::block_needs_fa3: return "block_needs_fa3";
    case RoundingRule::block_if_aot: return "block_if_aot";
    case RoundingRule::lcm_bw_if_aot_else_w: return "lcm_bw_if_aot_else_w";
    case RoundingRule::block_per_builder: return "block_per_builder";
  }
  return "?";
}

// How a chunk's DCP local plan is derived (spec §3.1, §3.2).
enum class LocalRule {
  v1_floor,       // S1/S2: cpM = M // W, cp_ctx = cdiv(ctx, W) (interleave 1), S2 reorg
  padded_blocks,  // S3-S5: PL = cdiv(M, V) * I, padded local lengths, post-#28526 reorg
};

// A floor-divide version's rules, named fields of its row.
struct FloorDivideRules {
  RoundingRule rounding = RoundingRule::block_if_aot;
  LocalRule local = LocalRule::padded_blocks;
  bool per_step_assert = false;                     // assert M % W == 0 every step (checks W, not I*W)
  bool passes_prefill_tokens_with_context = false;  // S4/S5: qsl[n] masks the context-free prefills
};

namespace steps {

// What M = S // n is rounded down to; 1 = not rounded. block_needs_fa3 off CUDA never gets here
// (the builder crashed first).
template <class N>
N old_round_to(RoundingRule r, Platform p, Builder b, const N& B, const N& W) {
  switch (r) {
    case RoundingRule::block_needs_fa3: return B;
    case RoundingRule::block_if_aot: return aot_schedule(p) ? B : lit(B, 1);
    case RoundingRule::lcm_bw_if_aot_else_w: return aot_schedule(p) ? lcm(B, W) : W;
    case RoundingRule::block_per_builder: return packed_aligns_to_block(b, p) ? B : lit(B, 1);
  }
  throw std::logic_error("unknown rounding rule");
}
template <class N>
N old_chunk_width(const FloorDivideRules& r, Platform p, Builder b, const N& S, const N& n, const N& B, const N& W) {
  return arith::old_chunk_width(S, n, old_round_to(r.rounding, p, b, B, W));
}
// The per-step DCP assert (S2-S5): checks W, not the virtual block I*W (spec §3.6).
template <class N>
auto old_per_step_assert_holds(const N& M, const N& W) {
  return floormod(M, W) == lit(M, 0);
}

// Geometry of request (ctx) in chunk c: global span and, under DCP, the local gather every
// rank performs. PL is the local chunk (v1: M // W; later: cdiv(M, V) * I).
template <class N>
struct OldEntry {
  N start, len, local_start, padded_local_len;
};
template <class N>
N old_local_chunk(const FloorDivideRules& r, const N& M, const N& I, const N& W) {
  return r.local == LocalRule::v1_floor ? floordiv(M, W) : arith::old_local_chunk(M, I, W);
}
template <class N>
OldEntry<N> old_entry(const FloorDivideRules& r, const N& ctx, const N& c, const N& M, const N& PL, const N& I,
                      const N& W) {
  OldEntry<N> e{c * M, arith::old_span_len(ctx, c, M), c * PL, lit(ctx, 0)};
  e.padded_local_len =
      r.local == LocalRule::v1_floor ? arith::v1_local_len(ctx, c, M, W) : arith::old_local_len(ctx, c, PL, I, W);
  return e;
}
// The rows rank `rank` keeps of entry g after the all-gather (the reorg): S2's rule (v1: a rank
// past the chunk's last partial stripe keeps one row less) or #28526's (what the rank owns of the
// span: its local context length past local_start, at most the gathered rows).
template <class N>
N old_kept_rows(const FloorDivideRules& r, const N& ctx, const N& c, const N& M, const N& W, const N& rank,
                const N& local_ctx, const OldEntry<N>& g) {
  return r.local == LocalRule::v1_floor ? arith::v1_reorg_kept_rows(ctx, c, M, W, rank, g.padded_local_len)
                                        : arith::reorg_kept_rows(local_ctx, g.local_start, g.padded_local_len);
}

}  // namespace steps
}  // namespace cp

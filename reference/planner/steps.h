// Planner STEPS (DESIGN §3): how a version puts the arith.h formulas together, as templates
// over the number type. The executable planners (cp::Int) and the prover (z3::expr) both call
// these, so a proof is about the code that runs. A step takes the version's row (versions.h)
// and the platform/builder switches as plain C++ values, and every quantity as N.
#pragma once

#include <stdexcept>

#include "reference/planner/arith.h"
#include "reference/planner/versions.h"

namespace cp::steps {

// ---- step 1: workspace sizing (spec §1) -------------------------------------------------
template <class N>
N workspace_size(const VersionInfo& v, const N& mml, const N& mns, const N& B, const N& W, const N& I) {
  switch (v.sizing) {
    case SizingRule::v0_128k: return arith::workspace_v0(mml, mns, B);
    case SizingRule::legacy: return arith::workspace_legacy(mml, mns, B);
    case SizingRule::pr41229: return arith::workspace_pr41229(mml, mns, B, W);
    case SizingRule::packed_v5: return arith::workspace_v5(mml, mns, B, W, I);
    case SizingRule::packed_v6: return arith::workspace_v6(mml, mns, B, W, I);
  }
  throw std::logic_error("unknown sizing rule");
}
// S1's init assert: the workspace holds one page per sequence.
template <class N>
auto v0_init_assert_holds(const N& S, const N& mns, const N& B) {
  return S >= mns * B;
}

// ---- step 2 (old planner): what M = S // n is rounded down to (spec §2.4) ---------------
// 1 = not rounded. block_needs_fa3 off CUDA never gets here (the builder crashed first).
template <class N>
N old_round_to(const VersionInfo& v, Platform p, Builder b, const N& B, const N& W) {
  switch (v.rounding) {
    case RoundingRule::block_needs_fa3: return B;
    case RoundingRule::block_if_aot: return aot_schedule(p) ? B : lit(B, 1);
    case RoundingRule::lcm_bw_if_aot_else_w: return aot_schedule(p) ? lcm(B, W) : W;
    case RoundingRule::block_per_builder: return packed_aligns_to_block(b, p) ? B : lit(B, 1);
  }
  throw std::logic_error("unknown rounding rule");
}
template <class N>
N old_chunk_width(const VersionInfo& v, Platform p, Builder b, const N& S, const N& n, const N& B, const N& W) {
  return arith::old_chunk_width(S, n, old_round_to(v, p, b, B, W));
}
// The per-step DCP assert (S2-S5): checks W, not the virtual block I*W (spec §3.6).
template <class N>
auto old_per_step_assert_holds(const N& M, const N& W) {
  return floormod(M, W) == lit(M, 0);
}

// Old-planner geometry of request (ctx) in chunk c: global span and, under DCP, the local
// gather every rank performs. PL is the local chunk (v1: M // W; later: cdiv(M, V) * I).
template <class N>
struct OldEntry {
  N start, len, local_start, padded_local_len;
};
template <class N>
N old_local_chunk(const VersionInfo& v, const N& M, const N& I, const N& W) {
  return v.planner == PlannerKind::floor_divide_v1 ? floordiv(M, W) : arith::old_local_chunk(M, I, W);
}
template <class N>
OldEntry<N> old_entry(const VersionInfo& v, const N& ctx, const N& c, const N& M, const N& PL, const N& I, const N& W) {
  OldEntry<N> e{c * M, arith::old_span_len(ctx, c, M), c * PL, lit(ctx, 0)};
  e.padded_local_len = v.planner == PlannerKind::floor_divide_v1 ? arith::v1_local_len(ctx, c, M, W)
                                                                 : arith::old_local_len(ctx, c, PL, I, W);
  return e;
}

// ---- packed planner (#50613, spec §2.3) ---------------------------------------------------
template <class N>
struct PackedParams {
  N align;       // every split point is a multiple of it
  N row_budget;  // rows (per rank under DCP) one chunk may use
  N Mmax;        // the largest piece; the planner asserts Mmax > 0
};
template <class N>
PackedParams<N> packed_params(Platform p, Builder b, const N& S, const N& B, const N& W, const N& I, bool dcp) {
  N align = packed_aligns_to_block(b, p) ? B : lit(B, 1);
  if (dcp) align = lcm(align, I * W);
  return {align, dcp ? floordiv(S, W) : S, round_down(S, align)};
}

// One greedy step for the request piece [start, ctx) while the open chunk uses `rows`:
//  * a request without context (ctx == 0) closes the open chunk and belongs to no chunk;
//  * the rest fits: take it all;
//  * else take split = k * align (k from packed_split_search, or the prover's witness whose
//    postcondition is packed_split_postcondition) and close the chunk.
template <class N>
auto packed_closes_chunk_without_context(const N& ctx) {
  return ctx == lit(ctx, 0);
}
template <class N>
N packed_need(const N& start, const N& len, const N& I, const N& W, bool dcp) {
  return arith::packed_rows_needed(start, len, I, W, dcp);
}
template <class N>
auto packed_takes_all(const PackedParams<N>& pp, const N& rows, const N& start, const N& ctx, const N& I, const N& W,
                      bool dcp) {
  return rows + packed_need(start, ctx - start, I, W, dcp) <= pp.row_budget;
}
// The largest k the split may use: split <= min(Mmax, round_down(remaining - 1, align)).
template <class N>
N packed_kmax(const PackedParams<N>& pp, const N& start, const N& ctx) {
  return floordiv(max(arith::packed_split_cap(ctx - start, pp.align, pp.Mmax), lit(ctx, 0)), pp.align);
}
template <class N>
auto packed_split_fits(const PackedParams<N>& pp, const N& rows, const N& start, const N& k, const N& I, const N& W,
                       bool dcp) {
  return rows + packed_need(start, k * pp.align, I, W, dcp) <= pp.row_budget;
}
// What vLLM's binary search returns, stated as its postcondition: k in [0, kmax], k fits, and
// k == kmax or k + 1 does not fit (rows needed are monotone in the length).
template <class N>
auto packed_split_postcondition(const PackedParams<N>& pp, const N& rows, const N& start, const N& ctx, const N& k,
                                const N& I, const N& W, bool dcp) {
  const N kmax = packed_kmax(pp, start, ctx);
  return k >= lit(k, 0) && k <= kmax && packed_split_fits(pp, rows, start, k, I, W, dcp) &&
         (k == kmax || !packed_split_fits(pp, rows, start, k + lit(k, 1), I, W, dcp));
}
// The executable side of the same step: binary search over k (concrete numbers only).
template <class N>
N packed_split_search(const PackedParams<N>& pp, const N& rows, const N& start, const N& ctx, const N& I, const N& W,
                      bool dcp) {
  N lo = lit(ctx, 0), hi = packed_kmax(pp, start, ctx);
  while (lo < hi) {
    const N mid = floordiv(lo + hi + lit(lo, 1), lit(lo, 2));
    if (packed_split_fits(pp, rows, start, mid, I, W, dcp))
      lo = mid;
    else
      hi = mid - lit(mid, 1);
  }
  return lo;
}
// A piece's DCP gather: local_start = padded_rows(start), padded_local_len = its rows.
template <class N>
N packed_local_start(const N& start, const N& I, const N& W) {
  return padded_local_rows(start, I, W);
}

// ---- every DCP forward, per chunk (spec §3.3, §3.5) ----------------------------------------
// allgather_offset = R // (W + 1) with R = S + S // W.
template <class N>
N workspace_rows(const N& S, const N& W, bool dcp) {
  return dcp ? S + floordiv(S, W) : S;
}
template <class N>
auto forward_fits_allgather_offset(const N& toks, const N& R, const N& W) {
  return toks <= floordiv(R, W + lit(W, 1));
}
template <class N>
auto forward_fits_workspace(const N& toks, const N& W, const N& S) {
  return toks * W <= S;
}

}  // namespace cp::steps

// The packed family's steps (v5-packed, v6-current; #50613, spec §2.3): requests are packed into
// the workspace in batch order, a request that does not fit is split at a multiple of the
// alignment. Templates over the number type: the planner (cp::Int) and the prover (z3::expr)
// call the same code. A version row's PackedRules say which rule each step applies.
#pragma once

#include <array>
#include <stdexcept>

#include "reference/planner/arith.h"
#include "reference/planner/platform.h"

namespace cp {

// What a split point is aligned to before DCP's lcm with I*W (spec §2.4).
enum class PackedAlignRule {
  block_per_builder,  // align_chunk_to_block: the dense builder always B, the sparse one only on CUDA
};
inline constexpr std::array kPackedAlignRules{PackedAlignRule::block_per_builder};

// A packed version's rules, named fields of its row.
struct PackedRules {
  PackedAlignRule align = PackedAlignRule::block_per_builder;
};

namespace steps {

template <class N>
struct PackedParams {
  N align;       // every split point is a multiple of it
  N row_budget;  // rows (per rank under DCP) one chunk may use
  N Mmax;        // the largest piece; the planner asserts Mmax > 0
};
template <class N>
N packed_block_align(const PackedRules& r, Platform p, Builder b, const N& B) {
  switch (r.align) {
    case PackedAlignRule::block_per_builder: return packed_aligns_to_block(b, p) ? B : lit(B, 1);
  }
  throw std::logic_error("unknown packed alignment rule");
}
template <class N>
PackedParams<N> packed_params(const PackedRules& r, Platform p, Builder b, const N& S, const N& B, const N& W,
                              const N& I, bool dcp) {
  N align = packed_block_align(r, p, b, B);
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

}  // namespace steps
}  // namespace cp

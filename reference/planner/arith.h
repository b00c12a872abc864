// Planner arithmetic on the single source (DESIGN §3): workspace sizing and the per-chunk
// formulas of every planner version, as templates over the number type. The executable
// planners (families/*/plan.cpp, planner.cpp) instantiate them with cp::Int;
// the prover (invariants/smt/) with z3::expr. Spec section numbers refer to
// shared/spec/vllm-mla-planner.md.
#pragma once

#include "reference/arith/ops.h"
#include "reference/dcp/ownership.h"

namespace cp::arith {

// ---- workspace sizing (spec §1) -------------------------------------------------------

// min(max(8*mml, 4*mns*B), cap): "8 full-length requests or >= 4 pages per request".
template <class N>
N sizing_base(const N& mml, const N& mns, const N& B, std::int64_t cap) {
  return min(max(lit(mml, 8) * mml, lit(mml, 4) * mns * B), lit(mml, cap));
}
// S1 (v0-early): capped at 128K; asserts S >= mns*B instead of clamping.
template <class N>
N workspace_v0(const N& mml, const N& mns, const N& B) {
  return sizing_base(mml, mns, B, 128 * 1024);
}
// S2-S5 (v1..v4): 64K cap, then the #25478 clamp "at least one page per request".
template <class N>
N workspace_legacy(const N& mml, const N& mns, const N& B) {
  return max(sizing_base(mml, mns, B, 64 * 1024), mns * B);
}
// The sizing rules that end in a rounding (pr41229, v5, v6), with it named: S = parts.value =
// parts.q * multiple (ops.h's RoundParts). A proof about S takes q and the multiple from here.
template <class N>
struct Rounding {
  N multiple;
  RoundParts<N> parts;
};
// #41229 proposal: the legacy size rounded down to a multiple of W.
template <class N>
Rounding<N> workspace_pr41229_rounding(const N& mml, const N& mns, const N& B, const N& W) {
  return {W, round_down_parts(workspace_legacy(mml, mns, B), W)};
}
template <class N>
N workspace_pr41229(const N& mml, const N& mns, const N& B, const N& W) {
  return workspace_pr41229_rounding(mml, mns, B, W).parts.value;
}
// Chunk alignment of the packed planner: B without DCP, lcm(B, I*W) with it (spec §1.4).
template <class N>
N packed_alignment(const N& B, const N& W, const N& I) {
  return select(W == lit(W, 1), B, lcm(B, I * W));
}
// S7 (v5-packed, #50484): round_up(max(S0, mns*A), A).
template <class N>
Rounding<N> workspace_v5_rounding(const N& mml, const N& mns, const N& B, const N& W, const N& I) {
  N A = packed_alignment(B, W, I);
  return {A, round_up_parts(max(sizing_base(mml, mns, B, 64 * 1024), mns * A), A)};
}
template <class N>
N workspace_v5(const N& mml, const N& mns, const N& B, const N& W, const N& I) {
  return workspace_v5_rounding(mml, mns, B, W, I).parts.value;
}
// Post-#51733 (v6-current): align_mla_chunked_context_workspace_size at vLLM 903ecb17
// (vllm/model_executor/layers/attention/mla_attention.py): no mns floor, and on every path,
// DCP or not, round_up(max(S0, A), A) with A = B without DCP, lcm(B, I*W) with it (B=11000
// sizes 66000; a test of the pre-merge branch 27ff206f expected 65536, the shipped code does not).
template <class N>
Rounding<N> align_workspace_rounding(const N& S, const N& A) {
  return {A, round_up_parts(max(S, A), A)};
}
template <class N>
N align_workspace(const N& S, const N& A) {  // S9: align(100)=128, align(8)=64 for A=64
  return align_workspace_rounding(S, A).parts.value;
}
template <class N>
Rounding<N> workspace_v6_rounding(const N& mml, const N& mns, const N& B, const N& W, const N& I) {
  return align_workspace_rounding(sizing_base(mml, mns, B, 64 * 1024), packed_alignment(B, W, I));
}
template <class N>
N workspace_v6(const N& mml, const N& mns, const N& B, const N& W, const N& I) {
  return workspace_v6_rounding(mml, mns, B, W, I).parts.value;
}

// ---- old planner: equal split by floor-divide (spec §2.2) -----------------------------

// M = round_down(S // n, round_to); round_to = 1 when the version does not round.
template <class N>
N old_chunk_width(const N& S, const N& n, const N& round_to) {
  return round_down(floordiv(S, n), round_to);
}
template <class N>
N old_num_chunks(const N& max_ctx, const N& M) {
  return cdiv(max_ctx, M);
}
// Global span of request i in chunk c: [c*M, c*M + len).
template <class N>
N old_span_len(const N& ctx, const N& c, const N& M) {
  return max(min(ctx, (c + lit(c, 1)) * M) - c * M, lit(c, 0));
}
// Interleave-aware DCP extension (S3/S4/S5): PL = cdiv(M, V) * I local rows per chunk.
template <class N>
N old_local_chunk(const N& M, const N& I, const N& W) {
  return padded_local_rows(M, I, W);
}
template <class N>
N old_local_len(const N& ctx, const N& c, const N& PL, const N& I, const N& W) {
  return old_span_len(padded_local_rows(ctx, I, W), c, PL);
}
// post-#28526 reorg_kvcache: rows kept from a rank that owns local_ctx positions.
template <class N>
N reorg_kept_rows(const N& local_ctx, const N& local_start, const N& padded_local_len) {
  return min(max(local_ctx - local_start, lit(local_ctx, 0)), padded_local_len);
}
// S2 (v1-dcp, interleave 1): cpM = M // W, cp_ctx = cdiv(ctx, W).
template <class N>
N v1_local_len(const N& ctx, const N& c, const N& M, const N& W) {
  return old_span_len(cdiv(ctx, W), c, floordiv(M, W));
}
// S2 reorg: a rank past `target` holds one row less of the chunk's last partial stripe.
template <class N>
N v1_reorg_kept_rows(const N& ctx, const N& c, const N& M, const N& W, const N& r, const N& cpl) {
  N zero = lit(ctx, 0);
  N ccl = select(cpl == zero, M, min(M, ctx - M * c));
  N target = floormod(ccl - lit(ccl, 1), W);
  return select(r > target && cpl > zero, cpl - lit(cpl, 1), cpl);
}

// ---- packed planner (#50613, spec §2.3) -----------------------------------------------

// Rows (per rank under DCP) that the span [start, start+len) of a request costs.
template <class N>
N packed_rows_needed(const N& start, const N& len, const N& I, const N& W, bool dcp) {
  if (!dcp) return len;
  return padded_local_rows(start + len, I, W) - padded_local_rows(start, I, W);
}
// Largest allowed split (the cap the binary search runs under): a split must leave at
// least one token of the request for the next chunk and never exceed Mmax.
template <class N>
N packed_split_cap(const N& remaining, const N& align, const N& Mmax) {
  return min(Mmax, round_down(remaining - lit(remaining, 1), align));
}

}  // namespace cp::arith

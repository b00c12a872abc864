// The ATOM family's steps (ROCm/ATOM aiter_mla.py, AITER backend; other-engines.md §1):
// without DCP the concatenated contexts are packed into chunks of S rows
// (_build_mla_chunk_meta); under DCP every request gets the same local window of `ch` rows per
// rank (_build_mla_chunk_meta_dcp). Templates over the number type, like every family's steps.
#pragma once

#include <cstdint>

#include "reference/arith/ops.h"

namespace cp {

// How an ATOM version sizes the DCP window (versions.h: VersionInfo::atom).
enum class AtomWindow : std::uint8_t {
  block,               // ATOM's: every request with context in every chunk, ch = max(B, round_down(., B))
  grouped_interleave,  // the proposed fix (docs/findings/atom.md): groups of g requests, ch a multiple of I
};
struct AtomRules {
  AtomWindow window = AtomWindow::block;
};

}  // namespace cp

namespace cp::steps {

// pl_i = cdiv(c_i, B*W) * B: the request's padded local rows, the same on every rank.
template <class N>
N atom_padded_local(const N& ctx, const N& B, const N& W) {
  return cdiv(ctx, B * W) * B;
}

// ch = max(B, round_down(S' // max(n*W, 1), B)), S' = S if S > 0 else 1 (A2 l.1371-1373): the
// local window, a multiple of B. No cap when S // (n*W) < B: then ch = B and a chunk can hold
// n*W*B > S rows (A-7, A-B1).
template <class N>
N atom_window(const N& S, const N& n, const N& B, const N& W) {
  const N one = lit(S, 1);
  const N s = select(S > lit(S, 0), S, one);
  return max(B, round_down(floordiv(s, max(n * W, one)), B));
}

// The fix's group size: g = max(1, S' // (W*I)) requests with context share a chunk, so that a
// window of I local rows per rank fits (g*W*I <= S whenever S >= W*I).
template <class N>
N atom_fixed_group(const N& S, const N& W, const N& I) {
  const N one = lit(S, 1);
  const N s = select(S > lit(S, 0), S, one);
  return max(one, floordiv(s, W * I));
}

// The fix's window for a group of n requests with context: max(I, round_down(S' // (n*W), I)).
// A multiple of I keeps the local window [lo, lo + ch) the global span [lo*W, (lo + ch)*W) on
// every rank (A-3 needs I | ch, not B | ch: the slot of local row j is bt[j // B]*B + j % B
// whatever the window), and n*W*ch <= S when n <= g.
template <class N>
N atom_fixed_window(const N& S, const N& n, const N& W, const N& I) {
  const N one = lit(S, 1);
  const N s = select(S > lit(S, 0), S, one);
  return max(I, round_down(floordiv(s, max(n * W, one)), I));
}

// Rows of a length-`len` local range inside the window [lo, lo + ch): plc[i] (from pl_i) and
// real[i][r] (from the rank's local context length).
template <class N>
N atom_window_rows(const N& len, const N& lo, const N& ch) {
  return max(min(len, lo + ch) - lo, lit(len, 0));
}

}  // namespace cp::steps

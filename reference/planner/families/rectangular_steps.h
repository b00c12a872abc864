// The rectangular chunked-prefix split that SGLang (G1/G2, other-engines.md §2.1) and TokenSpeed
// (T1/T3, §3.1, which took SGLang's) plan with: chunk_len = C // bs over every request of the
// extend batch, nch = cdiv(longest prefix, chunk_len), chunk c of every request starts at
// c * chunk_len (G-2). Steps over the number type, like every family's.
#pragma once

#include "reference/arith/ops.h"

namespace cp::steps {

// chunk_len = C // bs (bs: ALL requests, prefix 0 included). 0 when bs > C (G-1): the next step
// divides by it.
template <class N>
N rect_chunk_len(const N& C, const N& bs) {
  return floordiv(C, bs);
}

// len[c][i] = clip0(min(prefix_i, (c+1)*chunk_len) - c*chunk_len).
template <class N>
N rect_len(const N& prefix, const N& chunk, const N& chunk_len) {
  const N start = chunk * chunk_len;
  return max(min(prefix, start + chunk_len) - start, lit(prefix, 0));
}

// Under DCP with I = 1 (rank r owns position p iff p mod W = r; both engines widen the page so
// that the slot keeps p's residue, G-6/T-5): the positions of [s, s + L) rank r owns,
// 0 if d >= L else 1 + (L - 1 - d) // W with d = (r - s) mod W — TokenSpeed's count[r][i] (T-1)
// and SGLang's get_dcp_lens(L, W, r, s) (G-7), in the hosts' Python (floor).
template <class N>
N owned_in_span(const N& rank, const N& s, const N& L, const N& W) {
  const N d = floormod(rank - s, W);
  return select(d < L, lit(L, 1) + floordiv(L - lit(L, 1) - d, W), lit(L, 0));
}

}  // namespace cp::steps

// Ownership of token positions under decode context parallelism (spec §3.1, §3.2).
//
// Position p of a request lives on rank (p / I) % W at local index (p / V) * I + p % I,
// with V = I * W (the virtual block). Written on the single arithmetic source so the
// prover reasons about the same formulas the simulation executes.
#pragma once

#include "reference/arith/ops.h"

namespace cp {

template <class N>
N owner_rank(const N& p, const N& I, const N& W) {
  return floormod(floordiv(p, I), W);
}

template <class N>
N local_index(const N& p, const N& I, const N& W) {
  return floordiv(p, I * W) * I + floormod(p, I);
}

// Inverse of (owner_rank, local_index): the global position held in local slot `local` of
// rank `rank`.
template <class N>
N global_position(const N& local, const N& rank, const N& I, const N& W) {
  return floordiv(local, I) * (I * W) + rank * I + floormod(local, I);
}

// The KV-cache writer's view (vLLM's slot-mapping kernel under DCP): position p falls in
// virtual page p / (B*W) of B*W positions; inside it, offset v = p mod (B*W) belongs to rank
// (v / I) mod W at slot (v / (I*W))*I + v mod I of that rank's page of B slots. With I | B this
// equals (owner_rank, local_index); I-11 and dcp_index_fuzz compare the two views.
template <class N>
struct PagedSlot {
  N owner;
  N local;
};

template <class N>
PagedSlot<N> paged_slot(const N& p, const N& I, const N& W, const N& B) {
  const N v = floormod(p, B * W);
  return {floormod(floordiv(v, I), W), floordiv(p, B * W) * B + floordiv(v, I * W) * I + floormod(v, I)};
}

// vLLM's get_dcp_local_seq_lens: how many of the first `seq` positions rank r owns, with its
// named quantities (a proof about it takes them from here, not from the term): a = seq // I
// interleave groups, b = a // W whole virtual blocks, base = b*I rows every rank owns, rem =
// seq - base*W positions of the last partial virtual block.
template <class N>
struct DcpLocalLenParts {
  N a, b, base, rem, len;
};
template <class N>
DcpLocalLenParts<N> dcp_local_len_parts(const N& seq, const N& W, const N& r, const N& I) {
  N a = floordiv(seq, I);
  N b = floordiv(a, W);
  N base = b * I;
  N rem = seq - base * W;
  return {a, b, base, rem, base + min(max(rem - r * I, lit(seq, 0)), I)};
}
template <class N>
N dcp_local_len(const N& seq, const N& W, const N& r, const N& I) {
  return dcp_local_len_parts(seq, W, r, I).len;
}

// Local rows a rank gathers for a global prefix of length x: the maximum over ranks,
// rounded up to whole interleave groups (vLLM's "padded" local length).
template <class N>
N padded_local_rows(const N& x, const N& I, const N& W) {
  return cdiv(x, I * W) * I;
}

}  // namespace cp

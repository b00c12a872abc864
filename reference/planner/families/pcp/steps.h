// The PCP virtual-row family's rules and steps (vllm-pcp-and-sparse.md §1; vLLM PCPManager,
// vllm/v1/worker/gpu/pcp_manager.py, #46570 and successors). A prefill's q new tokens are cut
// into C = 2P DualChunkSwap pieces; rank r keeps pieces r and C-1-r as rows (j, start, len);
// decodes are one row on every rank. Each rank then runs v6-current's packed planner over its
// rows (§1.7). The three manager versions PCP-A/B/C differ in the piece rule, the row order,
// the replication of short prefills under DCP and the DCP layout rule: fields of PcpRules.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "reference/arith/ops.h"

namespace cp {

// §1.2: how [0, q) is cut into C pieces.
enum class PcpSplit : std::uint8_t {
  balanced,  // PCP-A (Q2): len_c = floor(q/C) + [c < q mod C]
  ceil,      // PCP-B/C (Q1, Q5): cs = cdiv(q, C), piece c = [c*cs, min(q, (c+1)*cs)); trailing pieces may be empty
};
inline constexpr std::array kPcpSplits{PcpSplit::balanced, PcpSplit::ceil};
constexpr std::string_view name(PcpSplit s) { return s == PcpSplit::balanced ? "balanced" : "ceil"; }

// §1.3: the order of a rank's rows.
enum class PcpOrder : std::uint8_t {
  sort_key,           // PCP-A: sorted by (is_prefilling, start == 0, j, start)
  pure_prefill_last,  // PCP-B: stable partition, rows with is_prefilling and start == 0 last
  decodes_first,      // PCP-C: every decode row first, then prefill rows in request order
};
inline constexpr std::array kPcpOrders{PcpOrder::sort_key, PcpOrder::pure_prefill_last, PcpOrder::decodes_first};
constexpr std::string_view name(PcpOrder o) {
  switch (o) {
    case PcpOrder::sort_key: return "A";
    case PcpOrder::pure_prefill_last: return "B";
    case PcpOrder::decodes_first: return "C";
  }
  return "?";
}

// §1.6 / Q6: which DCP sizes the manager accepts with P > 1.
enum class PcpDcpRule : std::uint8_t {
  one_or_pcp,         // PCP-A's own check: DCP == P whenever DCP > 1
  one_pcp_or_tp_pcp,  // ParallelConfig (Q6) and the later manager's test: DCP in {1, P, TP*P}
};
constexpr std::string_view name(PcpDcpRule r) {
  return r == PcpDcpRule::one_or_pcp ? "dcp in {1, pcp}" : "dcp in {1, pcp, tp*pcp}";
}

struct PcpRules {
  PcpSplit split = PcpSplit::ceil;
  PcpOrder order = PcpOrder::pure_prefill_last;
  bool replicate_short_under_dcp =
      false;  // PCP-C: a prefill whose ceil split has an empty piece is one row on every rank
  PcpDcpRule dcp_rule = PcpDcpRule::one_pcp_or_tp_pcp;
};

namespace steps {

// Offset and length of piece c of q tokens cut into C pieces (§1.2).
template <class N>
N pcp_piece_offset(PcpSplit s, const N& q, const N& C, const N& c) {
  if (s == PcpSplit::ceil) return c * cdiv(q, C);
  const N base = floordiv(q, C), extra = floormod(q, C);
  return c * base + select(c < extra, c, extra);
}
template <class N>
N pcp_piece_len(PcpSplit s, const N& q, const N& C, const N& c) {
  if (s == PcpSplit::ceil) {
    const N cs = cdiv(q, C), left = q - c * cs;
    return select(left < lit(q, 0), lit(q, 0), select(left < cs, left, cs));
  }
  return floordiv(q, C) + select(c < floormod(q, C), lit(q, 1), lit(q, 0));
}
// PCP-C under DCP (inferred from Q5's tests, the code was not found): a prefill whose ceil split
// leaves piece C-1 empty is not split. For P = 2 that is q in {1, 2, 3, 5, 6, 9}.
template <class N>
auto pcp_replicates(const N& q, const N& C) {
  return (C - lit(C, 1)) * cdiv(q, C) >= q;
}

// §1.3 as one sort key (class, request, start) for every version: a rank's rows sort by the
// class of the row (sort_key: 2*prefilling + pure; pure_prefill_last: pure, the rows with
// is_prefilling and start == 0; decodes_first: prefilling), then request, then start (a rank's
// pieces r and C-1-r of a request are in ascending start, so this is the generation order the
// stable partitions keep). prefilling, pure: 0 or 1. (order_rows in plan.cpp sorts by the same
// rule with std::stable_sort / std::stable_partition; the prover reads it here: P-9.)
template <class N>
N pcp_order_class(PcpOrder o, const N& prefilling, const N& pure) {
  switch (o) {
    case PcpOrder::sort_key: return prefilling * lit(pure, 2) + pure;
    case PcpOrder::pure_prefill_last: return pure;
    case PcpOrder::decodes_first: return prefilling;
  }
  return prefilling;
}

}  // namespace steps
}  // namespace cp

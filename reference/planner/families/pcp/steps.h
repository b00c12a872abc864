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

// §1.5: where rank r's local slot k lands in the step's all-gathered token layout.
enum class PcpGather : std::uint8_t {
  compacted,    // PCP-A (Q2/Q3): concat_r(first T_r rows of rank r): g = sum_{r' < r} T_r' + k; the manager
                // pads its local request count to a multiple of P (_pad_num_reqs)
  rank_padded,  // PCP-B/C (Q1 0036d38d _build_batch_layout): every rank padded to T_pad, g = r * T_pad + k
};
constexpr std::string_view name(PcpGather g) { return g == PcpGather::compacted ? "compacted" : "rank_padded"; }

struct PcpRules {
  PcpSplit split = PcpSplit::ceil;
  PcpOrder order = PcpOrder::pure_prefill_last;
  bool replicate_short_under_dcp =
      false;  // PCP-C: a prefill whose ceil split has an empty piece is one row on every rank
  PcpDcpRule dcp_rule = PcpDcpRule::one_pcp_or_tp_pcp;
  PcpGather gather = PcpGather::rank_padded;
  bool graph_padding = true;  // takes a CUDA-graph padded_num_tokens as T_pad (Q4, vllm 07e1fce5's test)
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
// stable partitions keep). prefilling, pure: 0 or 1. (order_rows in plan.cpp sorts by it, the
// prover encodes it: P-9.)
template <class N>
N pcp_order_class(PcpOrder o, const N& prefilling, const N& pure) {
  switch (o) {
    case PcpOrder::sort_key: return prefilling * lit(pure, 2) + pure;
    case PcpOrder::pure_prefill_last: return pure;
    case PcpOrder::decodes_first: return prefilling;
  }
  return prefilling;
}

// PCP-A's local request padding (Q3 test_virtual_request_padding_uses_pcp_multiple): the local row
// count rounded up to a multiple of P; PCP-B/C keep n. The bound each manager raises RuntimeError
// past (§1.6): PCP-A 2*mns + P - 1 padded rows, PCP-B/C 2*mns rows (InputBuffers(2 * max_num_reqs)).
template <class N>
N pcp_padded_reqs(PcpGather g, const N& n, const N& P) {
  return g == PcpGather::compacted ? cdiv(n, P) * P : n;
}
template <class N>
N pcp_max_local_reqs(PcpGather g, const N& mns, const N& P) {
  return g == PcpGather::compacted ? mns * 2 + P - 1 : mns * 2;
}

// PCP context reuse (§2.1, #57668): a rank's adjacent rows a = (ctx_a, q_a), b = (ctx_b, q_b) of one
// request become one row of q_a + q_b tokens; its shared chunk reads [0, ctx_a) for all of them,
// its tail chunk [t_s, ctx_b) for b's tokens only, t_s = ctx_a + q_a (b sees a's new tokens
// through the causal part). Tail length ctx_b - t_s (R-1: >= 0; 0 at r = P-1); rows gathered
// ctx_b - q_a instead of the fallback's ctx_a + ctx_b.
template <class N>
N reuse_tail_start(const N& ctx_a, const N& q_a) {
  return ctx_a + q_a;
}
template <class N>
N reuse_tail_len(const N& ctx_a, const N& q_a, const N& ctx_b) {
  return ctx_b - reuse_tail_start(ctx_a, q_a);
}
template <class N>
N reuse_rows_gathered(const N& ctx_a, const N& q_a, const N& ctx_b) {
  return ctx_a + select(reuse_tail_len(ctx_a, q_a, ctx_b) > 0, reuse_tail_len(ctx_a, q_a, ctx_b), N(0));
}

}  // namespace steps
}  // namespace cp

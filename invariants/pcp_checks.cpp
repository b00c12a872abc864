// The checks of vLLM's PCP virtual rows (vllm-pcp-and-sparse.md §1.8): P-1 coverage of each
// prefill's new tokens over all ranks, P-2 the row shape, P-4 decodes on every rank, P-9 decodes
// before prefills on every rank, P-13 every DCP rank issuing the same collectives; and over the
// manager's gathered layout P-5 single write, P-6 restore, P-7 padding, P-8 limits. They read every
// rank's rows and collectives from plan.pcp; the universal checks (I-3, I-4, I-7, I-9, I-12, I-13)
// see the selected rank's v6 plan over its rows through check()'s batch, with no PCP code.
#include <algorithm>

#include "invariants/checks.h"

namespace cp::detail {
namespace {

std::string row_text(const PcpRow& w) { return "(" + str(w.request) + ", " + str(w.start) + ", " + str(w.len) + ")"; }

// The request count of the global batch: one past the largest request any row names.
int request_count(const PcpLayout& L) {
  int n = 0;
  for (const auto& rk : L.ranks)
    for (const auto& w : rk.rows) n = std::max(n, w.request + 1);
  return n;
}

}  // namespace

// P-1: for each prefill request, the rows over all ranks tile [N, N + q) exactly once; a
// replicated prefill (PCP-C) is the same one row on every rank and counts once.
InvariantResult check_P1(const Batch&, const Plan& p) {
  Sink s(InvariantId::P1_pcp_row_coverage);
  if (!p.pcp) return s.not_evaluated();
  const PcpLayout& L = *p.pcp;
  thread_local std::vector<PcpRow> mine;
  for (int j = 0; j < request_count(L); ++j) {
    mine.clear();
    bool decode = false;
    for (const auto& rk : L.ranks)
      for (const auto& w : rk.rows)
        if (w.request == j && w.len > 0) {
          decode = decode || !w.prefilling;
          mine.push_back(w);
        }
    if (decode || mine.empty()) continue;  // decodes: P-4
    const bool replicated = mine.size() == L.ranks.size() && L.ranks.size() > 1 &&
                            std::all_of(mine.begin(), mine.end(), [&](const PcpRow& w) { return w == mine[0]; });
    if (replicated) continue;
    std::sort(mine.begin(), mine.end(), [](const PcpRow& a, const PcpRow& b) { return a.start < b.start; });
    std::int64_t next = mine.front().start;
    for (const auto& w : mine) {
      if (w.start != next)
        s.add([&] {
          return Violation{.request = j,
                           .expected = "a row starting at " + str(next),
                           .got = "row " + row_text(w),
                           .reason = w.start < next ? "new tokens on two ranks" : "new tokens on no rank"};
        });
      next = std::max(next, w.start + w.len);
    }
  }
  return s.done();
}

// P-2: a split prefill has at most two rows per rank (pieces r and C-1-r), each a contiguous range.
InvariantResult check_P2(const Batch&, const Plan& p) {
  Sink s(InvariantId::P2_pcp_row_shape);
  if (!p.pcp) return s.not_evaluated();
  const PcpLayout& L = *p.pcp;
  for (std::size_t r = 0; r < L.ranks.size(); ++r) {
    const auto& rows = L.ranks[r].rows;
    for (int j = 0; j < request_count(L); ++j) {
      const auto n = std::count_if(rows.begin(), rows.end(), [&](const PcpRow& w) { return w.request == j; });
      if (n > 2)
        s.add([&] {
          return Violation{.request = j,
                           .rank = static_cast<int>(r),
                           .expected = "at most 2 rows (pieces r and 2P-1-r)",
                           .got = str(n) + " rows",
                           .reason = "DualChunkSwap gives a rank two pieces of a prefill"};
        });
    }
  }
  return s.done();
}

// P-4: every decode is the same row (j, N, q) on every rank.
InvariantResult check_P4(const Batch&, const Plan& p) {
  Sink s(InvariantId::P4_pcp_decodes_replicated);
  if (!p.pcp) return s.not_evaluated();
  const PcpLayout& L = *p.pcp;
  for (const auto& w : L.ranks.front().rows) {
    if (w.prefilling) continue;
    for (std::size_t r = 1; r < L.ranks.size(); ++r) {
      const auto& rows = L.ranks[r].rows;
      if (std::find(rows.begin(), rows.end(), w) == rows.end())
        s.add([&] {
          return Violation{.request = w.request,
                           .rank = static_cast<int>(r),
                           .expected = "decode row " + row_text(w) + " as on rank 0",
                           .got = "absent",
                           .reason = "a decode's KV and hidden state come from every rank's copy"};
        });
    }
  }
  return s.done();
}

// P-9: on every rank the decode rows precede the prefill rows: split_decodes_and_prefills takes
// the first prefilling row as the boundary, so a decode row after it goes down the prefill path.
InvariantResult check_P9(const Batch&, const Plan& p) {
  Sink s(InvariantId::P9_pcp_decodes_first);
  if (!p.pcp) return s.not_evaluated();
  const PcpLayout& L = *p.pcp;
  for (std::size_t r = 0; r < L.ranks.size(); ++r) {
    const PcpRank& rk = L.ranks[r];
    for (std::size_t i = static_cast<std::size_t>(rk.num_decodes); i < rk.rows.size(); ++i)
      if (!rk.rows[i].prefilling)
        s.add([&] {
          return Violation{.request = rk.rows[i].request,
                           .rank = static_cast<int>(r),
                           .row = static_cast<std::int64_t>(i),
                           .expected = "decode rows before row " + str(rk.num_decodes) + ", the first prefill row",
                           .got = "decode row " + row_text(rk.rows[i]) + " at row " + str(static_cast<std::int64_t>(i)),
                           .reason = "num_decodes = " + str(rk.num_decodes) +
                                     ": the decode is planned as a prefill with context " + str(rk.rows[i].start) +
                                     " (PB-2)"};
        });
  }
  return s.done();
}

// P-13 (#53573): under DCP every rank of the DCP group issues the same collectives: each enters
// the chunked-context path or none does, with the same chunk count and the same all-gather size
// per chunk. Rank-local rows differ, so v6's DCP path over them need not agree: a rank waits in a
// collective its peer never issues (the DCP kv-gather timeout).
InvariantResult check_P13(const Batch&, const Plan& p) {
  Sink s(InvariantId::P13_pcp_collective_symmetry);
  if (!p.pcp) return s.not_evaluated();
  const PcpLayout& L = *p.pcp;
  if (L.size < 2) return s.not_applicable("pcp=1: one rank");
  const PcpRank& r0 = L.ranks.front();
  for (std::size_t r = 1; r < L.ranks.size(); ++r) {
    const PcpRank& rk = L.ranks[r];
    if (rk.context_path != r0.context_path) {
      s.add([&] {
        return Violation{
            .rank = static_cast<int>(r),
            .expected = std::string("the context path ") + (r0.context_path ? "entered" : "skipped") + " as on rank 0",
            .got = rk.context_path ? "entered (" + str(static_cast<std::int64_t>(rk.gathered.size())) +
                                         " chunk(s), first all-gather " + str(rk.gathered.front()) + " rows)"
                                   : "skipped: no prefill row with context",
            .reason = "one rank waits in the DCP KV all-gather its peer never issues (#53573)"};
      });
      continue;
    }
    if (!rk.context_path) continue;
    const std::size_t n = std::max(rk.gathered.size(), r0.gathered.size());
    for (std::size_t ci = 0; ci < n; ++ci) {
      const std::int64_t a = ci < r0.gathered.size() ? r0.gathered[ci] : -1;
      const std::int64_t b = ci < rk.gathered.size() ? rk.gathered[ci] : -1;
      if (a == b) continue;
      s.add([&] {
        const auto text = [](std::int64_t v) { return v < 0 ? std::string("no chunk") : str(v) + " rows"; };
        return Violation{.chunk = static_cast<int>(ci),
                         .rank = static_cast<int>(r),
                         .expected = "all-gather of " + text(a) + " as on rank 0",
                         .got = text(b),
                         .reason = "the ranks' KV all-gathers differ in count or size: mismatched collectives"};
      });
      break;
    }
  }
  return s.done();
}

}  // namespace cp::detail

// The manager's gathered layout (§1.5, §1.6; vLLM 0036d38d _build_batch_layout): P-5 the single
// KV write, P-6 the restore bijection, P-7 the padding, P-8 the limits.
namespace cp::detail {

// P-5: in every rank's cache write (all ranks write the one gathered layout, re-indexed through
// gather_idx), each global new token is written exactly once: one write-masked slot per token.
InvariantResult check_P5(const Batch&, const Plan& p) {
  Sink s(InvariantId::P5_pcp_single_write);
  if (!p.pcp) return s.not_evaluated();
  const PcpGathered& g = p.pcp->gathered;
  std::vector<int> writes(g.global_request.size(), 0);
  for (std::size_t i = 0; i < g.write_mask.size(); ++i)
    if (g.write_mask[i] && g.gather_idx[i] >= 0 && g.gather_idx[i] < static_cast<std::int64_t>(writes.size()))
      ++writes[static_cast<std::size_t>(g.gather_idx[i])];
  for (std::size_t t = 0; t < writes.size(); ++t)
    if (writes[t] != 1)
      s.add([&] {
        return Violation{.request = static_cast<int>(g.global_request[t]),
                         .row = g.global_position[t],
                         .expected = "global token " + str(static_cast<std::int64_t>(t)) + " written once",
                         .got = "written " + str(writes[t]) + " time(s)",
                         .reason = writes[t] == 0 ? "its KV never reaches the cache: later reads see stale rows"
                                                  : "two slots write one cache row (a replicated row written twice)"};
      });
  return s.done();
}

// P-6: hidden_restore_idx is a bijection from the global tokens onto the write-masked slots, and
// slot restore[t] holds token t.
InvariantResult check_P6(const Batch&, const Plan& p) {
  Sink s(InvariantId::P6_pcp_restore_bijection);
  if (!p.pcp) return s.not_evaluated();
  const PcpGathered& g = p.pcp->gathered;
  std::vector<char> hit(g.gather_idx.size(), 0);
  std::int64_t masked = 0;
  for (char m : g.write_mask) masked += m ? 1 : 0;
  for (std::size_t t = 0; t < g.restore.size(); ++t) {
    const std::int64_t k = g.restore[t];
    const bool ok = k >= 0 && k < static_cast<std::int64_t>(hit.size()) && g.write_mask[static_cast<std::size_t>(k)] &&
                    g.gather_idx[static_cast<std::size_t>(k)] == static_cast<std::int64_t>(t) &&
                    !hit[static_cast<std::size_t>(k)];
    if (ok) hit[static_cast<std::size_t>(k)] = 1;
    if (!ok)
      s.add([&] {
        return Violation{.request = static_cast<int>(g.global_request[t]),
                         .row = k,
                         .expected = "restore[" + str(static_cast<std::int64_t>(t)) +
                                     "] a write-masked slot holding that token, no other token's",
                         .got = k < 0 ? "no slot" : "slot " + str(k),
                         .reason = "sampling would read another token's hidden state"};
      });
  }
  if (masked != static_cast<std::int64_t>(g.restore.size()))
    s.add([&] {
      return Violation{
          .expected = str(static_cast<std::int64_t>(g.restore.size())) + " write-masked slots (one per token)",
          .got = str(masked),
          .reason = "the restore is not onto the written slots"};
    });
  return s.done();
}

// P-7: T_pad >= max_r T_r; a slot past its rank's T_r (rank-padded layout) is padding: token 0,
// position 0, no request, no write (so its slot mapping is PAD).
InvariantResult check_P7(const Batch&, const Plan& p) {
  Sink s(InvariantId::P7_pcp_padding);
  if (!p.pcp) return s.not_evaluated();
  const PcpLayout& L = *p.pcp;
  const PcpGathered& g = L.gathered;
  for (std::size_t r = 0; r < L.ranks.size(); ++r) {
    const std::int64_t T = L.ranks[r].tokens;
    if (T > g.t_pad)
      s.add([&] {
        return Violation{.rank = static_cast<int>(r),
                         .expected = "T_r <= T_pad=" + str(g.t_pad),
                         .got = "T_r=" + str(T),
                         .reason = "the rank's tokens do not fit its all-gather block (Q4: ValueError)"};
      });
    const std::int64_t end =
        r + 1 < L.ranks.size() ? g.rank_offset[r + 1] : static_cast<std::int64_t>(g.gather_idx.size());
    for (std::int64_t k = g.rank_offset[r] + std::min(T, g.t_pad); k < end; ++k) {
      const auto i = static_cast<std::size_t>(k);
      if (g.gather_idx[i] != 0 || g.position[i] != 0 || g.request[i] != -1 || g.write_mask[i])
        s.add([&] {
          return Violation{.rank = static_cast<int>(r),
                           .row = k,
                           .expected = "padding slot: token 0, position 0, PAD slot",
                           .got = "token " + str(g.gather_idx[i]) + " position " + str(g.position[i]) +
                                  (g.write_mask[i] ? " written" : ""),
                           .reason = "a padding slot would write or restore a real token"};
        });
    }
  }
  return s.done();
}

// P-8 (§1.6): each rank's local request count, after the manager's padding, within its input
// buffers: PCP-A round_up(n, P) <= 2*mns + P - 1, PCP-B/C n <= 2*mns (partition_batch's RuntimeError).
InvariantResult check_P8(const Batch&, const Plan& p) {
  Sink s(InvariantId::P8_pcp_limits);
  if (!p.pcp) return s.not_evaluated();
  const PcpLayout& L = *p.pcp;
  if (L.max_num_seqs == 0) return s.not_applicable("max_num_seqs not given: the manager's row bound needs it");
  const PcpGather rule = p.version_info().pcp.gather;
  const std::int64_t bound = steps::pcp_max_local_reqs(rule, Int(L.max_num_seqs), Int(L.size)).get();
  for (std::size_t r = 0; r < L.ranks.size(); ++r)
    if (L.ranks[r].padded_reqs > bound)
      s.add([&] {
        return Violation{.rank = static_cast<int>(r),
                         .expected = "local requests <= " + str(bound),
                         .got = str(L.ranks[r].padded_reqs) + " (" +
                                str(static_cast<std::int64_t>(L.ranks[r].rows.size())) + " rows)",
                         .reason = "RuntimeError: PCP local request count exceeds the MRV2 input buffer size"};
      });
  return s.done();
}

}  // namespace cp::detail

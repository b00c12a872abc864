// The checks of vLLM's dense PCP x DCP local-shard path (vllm-pcp-and-sparse.md §3.4; mla_pcp.py at
// vllm-project/vllm@b4a0027c): C-1 replicated queries, C-2 collective symmetry, C-3 coverage of the
// local rows, C-4 the rows a rank gathers fit its workspace, C-5 no empty+empty merge of a rank's
// chunk partials through a NaN kernel, C-6 local lengths from the context. C-4 is also the reason
// the span rules I-4, I-6, I-7, I-10 answer n/a on the local path (catalogue: needs_span_correspondence);
// the universal I-3, I-9 (exactly once, over every rank's local rows), I-12 and I-13 run unchanged.
// With pcp_rows the ranks' rows and what each rank's plan does are in plan.pcp (C-1, C-2).
#include <algorithm>

#include "invariants/checks.h"
#include "reference/dcp/ownership.h"
#include "reference/planner/merge_kernels.h"

namespace cp::detail {
namespace local_shard_rows_of {

// A rank's prefill rows (past its decode boundary): what its builder passes as queries.
std::vector<PcpRow> prefill_rows(const PcpRank& rk) {
  return {rk.rows.begin() + std::min<std::size_t>(static_cast<std::size_t>(rk.num_decodes), rk.rows.size()),
          rk.rows.end()};
}
std::int64_t tokens_of(const std::vector<PcpRow>& rows) {
  std::int64_t t = 0;
  for (const auto& w : rows) t += w.len;
  return t;
}
std::string rows_text(const std::vector<PcpRow>& rows) {
  std::string s = "[";
  for (const auto& w : rows)
    s += (s.size() > 1 ? " (" : "(") + str(w.request) + "," + str(w.start) + "," + str(w.len) + ")";
  return s + "]";
}
// The all-gathers a gather_reorg rank issues: one per chunk with toks > 0 (the loop `continue`s on 0).
std::vector<std::int64_t> all_gathers(const PcpRank& rk) {
  std::vector<std::int64_t> out;
  if (!rk.context_path) return out;
  for (auto t : rk.gathered)
    if (t > 0) out.push_back(t);
  return out;
}

}  // namespace local_shard_rows_of
using namespace local_shard_rows_of;

// C-1: the combine merges per (token, head) across the DCP group: the same query rows everywhere.
InvariantResult check_C1(const Batch&, const Plan& p) {
  Sink s(InvariantId::C1_local_replicated_queries);
  if (!p.built) return s.not_evaluated();
  if (!p.local_attention && p.num_with_context > 0)
    return s.not_applicable("gather_reorg path: each rank attends the all-gathered KV with its own queries");
  if (!p.pcp) {
    s.note("pcp_rows=replicated: every DCP rank's builder sees the case's batch");
    return s.done();
  }
  const auto& ranks = p.pcp->ranks;
  const auto first = prefill_rows(ranks[0]);
  for (std::size_t r = 1; r < ranks.size(); ++r) {
    const auto mine = prefill_rows(ranks[r]);
    if (mine != first)
      s.add([&] {
        return Violation{.rank = static_cast<int>(r),
                         .expected = "rank 0's query rows " + rows_text(first),
                         .got = rows_text(mine),
                         .reason =
                             "cp_lse_ag_out_ar combines the ranks' partials element-wise: rank-local PCP rows "
                             "put different tokens (or counts) under one index"};
      });
  }
  return s.done();
}

// C-2: the decision to enter the context path is each rank's (has_context = its metadata is not
// None); the local path then issues one combine of T_q tokens, the gather_reorg path one
// all-gather per chunk with toks > 0, of toks rows.
InvariantResult check_C2(const Batch&, const Plan& p) {
  Sink s(InvariantId::C2_local_collective_symmetry);
  if (!p.built) return s.not_evaluated();
  if (!p.pcp) {
    s.note("pcp_rows=replicated: every DCP rank plans the same batch, so every rank issues the same collectives");
    return s.done();
  }
  const auto& ranks = p.pcp->ranks;
  const bool local = steps::local_shard_path(p.dcp, p.pcp->size) == LocalShardPath::local_shard;
  const PcpRank& r0 = ranks[0];
  for (std::size_t r = 1; r < ranks.size(); ++r) {
    const PcpRank& rk = ranks[r];
    const auto t0 = tokens_of(prefill_rows(r0)), tr = tokens_of(prefill_rows(rk));
    if (rk.context_path != r0.context_path) {
      s.add([&] {
        return Violation{
            .rank = static_cast<int>(r),
            .expected = std::string("rank 0 ") + (r0.context_path ? "enters" : "skips") + " the context path",
            .got = std::string("rank ") + str(static_cast<std::int64_t>(r)) + (rk.context_path ? " enters" : " skips") +
                   " it",
            .reason = local ? "one rank waits in the DCP combine (cp_lse_ag_out_ar) that the other never "
                              "issues: a hang (CB-2, PB-1's case)"
                            : "one rank waits in the per-chunk KV all-gather: a hang"};
      });
    } else if (r0.context_path && local && t0 != tr) {
      s.add([&] {
        return Violation{.rank = static_cast<int>(r),
                         .expected = "a combine of " + str(t0) + " query tokens (rank 0)",
                         .got = str(tr) + " tokens",
                         .reason = "the combine's all-gather of LSEs and all-reduce of outputs need one shape"};
      });
    } else if (r0.context_path && !local && all_gathers(rk) != all_gathers(r0)) {
      s.add([&] {
        return Violation{.rank = static_cast<int>(r),
                         .expected = str(static_cast<std::int64_t>(all_gathers(r0).size())) + " all-gathers (rank 0)",
                         .got = str(static_cast<std::int64_t>(all_gathers(rk).size())) + " all-gathers or other sizes",
                         .reason = "every rank must issue the same KV all-gathers per chunk"};
      });
    }
  }
  return s.done();
}

// C-3: sum over chunks of l (kept[rank]) is the rank's share L, and the shares sum to ctx.
InvariantResult check_C3(const Batch& b, const Plan& p) {
  Sink s(InvariantId::C3_local_coverage);
  if (!p.built) return s.not_evaluated();
  if (p.num_with_context == 0) return s.not_applicable("no prefill has context: no context path");
  // Local rows per (request, rank) over every chunk, in one pass (not one pass per request).
  const auto W = static_cast<std::size_t>(p.dcp);
  thread_local std::vector<std::int64_t> attended;
  attended.assign(b.ctx.size() * W, 0);
  for (const Chunk& ch : p.chunks)
    for (const ChunkEntry& e : ch.entries)
      for (std::size_t d = 0; d < std::min(W, e.kept.size()); ++d)
        attended[static_cast<std::size_t>(e.request) * W + d] += e.kept[d];
  for (int r : p.prefills) {
    const auto& L = p.local_ctx[static_cast<std::size_t>(r)];
    std::int64_t shares = 0;
    for (std::int64_t d = 0; d < p.dcp; ++d) {
      const std::int64_t rows = attended[static_cast<std::size_t>(r) * W + static_cast<std::size_t>(d)];
      const std::int64_t share = L[static_cast<std::size_t>(d)];
      shares += share;
      if (rows != share)
        s.add([&] {
          return Violation{.request = r,
                           .rank = static_cast<int>(d),
                           .expected = "sum over chunks of local rows = L = " + str(share),
                           .got = str(rows),
                           .reason = rows < share ? "the rank never attends part of its shard"
                                                  : "the rank attends a local row twice"};
        });
    }
    if (shares != b.ctx[static_cast<std::size_t>(r)])
      s.add([&] {
        return Violation{.request = r,
                         .expected = "sum over ranks of L = ctx = " + str(b.ctx[static_cast<std::size_t>(r)]),
                         .got = str(shares),
                         .reason = "get_dcp_local_seq_lens does not partition the context"};
      });
  }
  return s.done();
}

// C-4: cp_gather_cache writes seq_tot padded local rows into workspace[:seq_tot] (R rows).
InvariantResult check_C4(const Batch&, const Plan& p) {
  Sink s(InvariantId::C4_local_workspace_rows);
  if (!p.built) return s.not_evaluated();
  if (!p.local_attention) return s.not_applicable("gather_reorg path: the all-gather layout's budgets are I-4 and I-7");
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    if (p.chunks[ci].local_tokens() > p.workspace_rows)
      s.add([&] {
        return Violation{.chunk = static_cast<int>(ci),
                         .expected = "seq_tot <= R = " + str(p.workspace_rows),
                         .got = str(p.chunks[ci].local_tokens()),
                         .reason = "cp_gather_cache writes past the rank's workspace"};
      });
  return s.done();
}

// C-5: each rank folds its chunk partials with merge_attn_states before the combine; a prefill the
// rank holds no row of in chunk c gets (0, -inf) (the empty chunk output, or the kernel's LSE for a
// zero-length sequence). Two such partials meeting in a kernel that gives NaN poison the rank's
// partial, and the NaN enters the combine (CB-1, I-12b per rank).
InvariantResult check_C5(const Batch& batch, const Plan& p) {
  Sink s(InvariantId::C5_local_empty_rows);
  if (!p.built) return s.not_evaluated();
  if (!p.local_attention) return s.not_applicable("gather_reorg path: the chunk partials are global (I-12)");
  if (p.chunks.size() < 2) return s.not_applicable("one chunk: no merge of a rank's chunk partials");
  const MergeKernel& kernel = *kernel_for(p.version, p.merge).kernel;
  std::vector<std::int64_t> qsl(1, 0);
  for (auto q : batch.q) qsl.push_back(qsl.back() + q);
  const std::int64_t base = qsl[static_cast<std::size_t>(p.num_decodes)];
  for (std::size_t b = 0; b < p.prefills.size(); ++b) {
    const int r = p.prefills[b];
    const bool masked =
        p.prefill_tokens_with_context && qsl[static_cast<std::size_t>(r)] - base >= *p.prefill_tokens_with_context;
    if (masked) continue;  // the final merge takes these tokens' suffix only
    for (std::int64_t d = 0; d < p.dcp; ++d) {
      const auto rows = [&](std::size_t ci) { return p.chunks[ci].entries[b].kept[static_cast<std::size_t>(d)]; };
      if (rows(0) != 0 || rows(1) != 0) continue;  // the running partial is empty only while every chunk was
      if (kernel.both_empty != BothEmpty::nan) {
        s.note([&] {
          return "empty+empty merges of a rank's chunk partials occur but go through " + std::string(kernel.id) +
                 ", which copies the prefix and writes -inf";
        });
        continue;
      }
      s.add([&] {
        return Violation{.chunk = 1,
                         .request = r,
                         .rank = static_cast<int>(d),
                         .expected = "no merge of two empty partials through " + std::string(kernel.id),
                         .got = "rank " + str(d) + " holds no row of the request in chunks 0 and 1 (lse -inf, -inf)",
                         .reason = "merge_attn_states " + std::string(kernel.id) +
                                   " gives NaN; the rank's NaN partial then enters the DCP combine"};
      });
    }
  }
  return s.done();
}

// C-6: L from ctx (not ctx + q) and l = clamp(min(L, s + PL) - s, 0), per prefill, chunk and rank.
InvariantResult check_C6(const Batch& b, const Plan& p) {
  Sink s(InvariantId::C6_local_lengths_from_context);
  if (!p.built) return s.not_evaluated();
  if (!p.local_attention) return s.not_applicable("gather_reorg path: the local lengths are I-8's");
  const Int W = p.dcp, I = p.interleave, PL = p.local_chunk;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    for (const ChunkEntry& e : p.chunks[ci].entries)
      for (std::int64_t d = 0; d < p.dcp; ++d) {
        const Int L = dcp_local_len(Int(b.ctx[static_cast<std::size_t>(e.request)]), W, Int(d), I);
        const std::int64_t want = steps::local_shard_rows(L, Int(e.local_start), PL).get();
        const std::int64_t got = e.kept[static_cast<std::size_t>(d)];
        const std::int64_t Lp = p.local_ctx[static_cast<std::size_t>(e.request)][static_cast<std::size_t>(d)];
        if (got != want || Lp != L.get())
          s.add([&] {
            return Violation{.chunk = static_cast<int>(ci),
                             .request = e.request,
                             .rank = static_cast<int>(d),
                             .expected = "L = " + str(L.get()) + " from ctx, l = " + str(want),
                             .got = "L = " + str(Lp) + ", l = " + str(got),
                             .reason = "local lengths not derived from the context alone (C-6, I-8)"};
          });
      }
  return s.done();
}

}  // namespace cp::detail

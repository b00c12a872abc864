// The checks of vLLM's sparse-MLA planners (vllm-pcp-and-sparse.md): the indexer chunker's E-2..E-6
// (§5.4; E-1 is I-4 on its plans), the gathered prefill's D-5 and D-7 (§4.5; D-6 is I-7) and the
// sparse builder's profile reservation Z-1 (§5.7; Z-2 is the builder's init assert, I-1).
#include <algorithm>

#include "invariants/checks.h"
#include "reference/dcp/ownership.h"
#include "reference/planner/families/indexer/steps.h"

namespace cp::detail {

InvariantResult check_E2(const Batch&, const Plan& p) {
  Sink s(InvariantId::E2_indexer_logits_budget);
  if (!p.built) return s.not_evaluated();
  const Int E = p.logits_budget;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    const Int Nn = ch.total_tokens(), m = ch.token_end - ch.token_start;
    if (Nn <= E && m * Nn > E)
      s.add([&] {
        return Violation{.chunk = static_cast<int>(ci),
                         .expected = "query tokens x K rows <= E=" + str(E.get()) + " fp32 logits",
                         .got = str(m.get()) + " x " + str(Nn.get()) + " = " + str((m * Nn).get()),
                         .reason = "the chunk's logits exceed VLLM_SPARSE_INDEXER_MAX_LOGITS_MB"};
      });
  }
  return s.done();
}

// E-3 (#51252): the consumer's K buffer holds every chunk's gathered K rows.
InvariantResult check_E3(const Batch&, const Plan& p) {
  Sink s(InvariantId::E3_indexer_consumer_rows);
  if (!p.built) return s.not_evaluated();
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    if (ch.total_tokens() <= p.workspace_rows) continue;
    s.add([&] {
      const auto it = std::upper_bound(ch.cu_seq_lens.begin(), ch.cu_seq_lens.end(), p.workspace_rows);
      const auto first = static_cast<std::size_t>(it - ch.cu_seq_lens.begin()) - 1;
      return Violation{.chunk = static_cast<int>(ci),
                       .request = ch.entries[std::min(first, ch.entries.size() - 1)].request,
                       .row = p.workspace_rows,
                       .expected = "K rows <= the consumer's K buffer of " + str(p.workspace_rows) + " rows",
                       .got = str(ch.total_tokens()) + " rows (the chunker's budget WS=" + str(p.workspace) + ")",
                       .reason = "rows [" + str(p.workspace_rows) + ", " + str(ch.total_tokens()) +
                                 ") are never written (the gather guards token_idx < num_tokens) while ks/ke point "
                                 "at them: uninitialised K, wrong logits and top-k, no crash"};
    });
  }
  if (p.workspace_rows < p.workspace)
    s.note([&] {
      return "the consumer allocates " + str(p.workspace_rows) +
             " K rows, the chunker admits up to WS=" + str(p.workspace);
    });
  return s.done();
}

// E-4: the sub-slices of one row slice are consecutive and share its one K gather.
InvariantResult check_E4(const Batch&, const Plan& p) {
  Sink s(InvariantId::E4_indexer_shared_gather);
  if (!p.built) return s.not_evaluated();
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    if (!ch.is_continuation) continue;
    const Chunk* prev = ci > 0 ? &p.chunks[ci - 1] : nullptr;
    if (prev && prev->request_start == ch.request_start && prev->request_end == ch.request_end &&
        prev->token_end == ch.token_start)
      continue;
    s.add([&] {
      return Violation{.chunk = static_cast<int>(ci),
                       .expected = "skip_kv_gather only right after a sub-slice of the same rows",
                       .got = "rows [" + str(ch.request_start) + ", " + str(ch.request_end) + ") tokens [" +
                              str(ch.token_start) + ", " + str(ch.token_end) + ")",
                       .reason = "the chunk reuses a K gather of other rows"};
    });
  }
  return s.done();
}

// E-5: the chunks (and the dropped K-less sub-slices) tile the prefill tokens once, in order.
InvariantResult check_E5(const Batch& b, const Plan& p) {
  Sink s(InvariantId::E5_indexer_token_cover);
  if (!p.built) return s.not_evaluated();
  std::int64_t total = 0;
  for (int r : p.prefills) total += b.q[static_cast<std::size_t>(r)];
  thread_local std::vector<std::pair<std::int64_t, std::int64_t>> spans;  // reused: no allocation once warm
  spans.assign(p.empty_token_ranges.begin(), p.empty_token_ranges.end());
  for (const auto& ch : p.chunks) spans.emplace_back(ch.token_start, ch.token_end);
  std::sort(spans.begin(), spans.end());
  std::int64_t next = 0;
  for (const auto& span : spans) {
    const std::int64_t a = span.first, e = span.second;  // not a structured binding: clang 14 (the fuzz
                                                         // preset's compiler) cannot capture one
    if (a != next)
      s.add([&] {
        return Violation{.expected = "next sub-slice starts at token " + str(next),
                         .got = "[" + str(a) + ", " + str(e) + ")",
                         .reason = a < next ? "prefill tokens indexed twice" : "prefill tokens never indexed"};
      });
    next = std::max(next, e);
  }
  if (next != total)
    s.add([&] {
      return Violation{
          .expected = "tokens covered up to " + str(total), .got = str(next), .reason = "prefill tokens never indexed"};
    });
  if (!p.empty_token_ranges.empty())
    s.note([&] {
      return str(static_cast<std::int64_t>(p.empty_token_ranges.size())) +
             " sub-slice(s) without K rows dropped: no top-k for their tokens (not analysed)";
    });
  return s.done();
}

// E-6: a query token's K range (ke - ks) stays inside its row's n K rows and grows with k.
InvariantResult check_E6(const Batch& b, const Plan& p) {
  Sink s(InvariantId::E6_indexer_key_ranges);
  if (!p.built) return s.not_evaluated();
  thread_local std::vector<std::int64_t> qsl;  // reused: no allocation once warm
  qsl.assign(b.size() + 1, 0);
  for (std::size_t i = 0; i < b.size(); ++i) qsl[i + 1] = qsl[i] + b.q[i];
  const std::int64_t base = qsl[static_cast<std::size_t>(p.num_decodes)];
  const Int rho = p.compress_ratio;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    for (std::size_t k = 0; k < ch.entries.size(); ++k) {
      const auto r = static_cast<std::size_t>(ch.entries[k].request);
      const std::int64_t lo = std::max(ch.token_start, qsl[r] - base), hi = std::min(ch.token_end, qsl[r + 1] - base);
      if (lo >= hi) continue;
      const Int seq = Int(b.ctx[r]) + b.q[r], n = ch.entries[k].len;
      const Int first = lo - (qsl[r] - base), last = hi - 1 - (qsl[r] - base);
      // The plan keeps no per-token ranges: the family's step (steps.h) gives ke - ks.
      const Int k_first = steps::indexer_key_len(seq, Int(b.q[r]), first, rho),
                k_last = steps::indexer_key_len(seq, Int(b.q[r]), last, rho);
      if (k_last > n || k_first > k_last || k_first < 0)
        s.add([&] {
          return Violation{.chunk = static_cast<int>(ci),
                           .request = static_cast<int>(r),
                           .expected = "0 <= ke - ks <= n=" + str(n.get()) + ", non-decreasing",
                           .got = "first " + str(k_first.get()) + ", last " + str(k_last.get()),
                           .reason = "a query token's K range leaves its request's K rows"};
        });
    }
  }
  return s.done();
}

namespace {
// Rank d's share of the extent: local slots [0, local) hold positions global_position(k, d, I, W).
void gathered_shares(const Plan& p, const ChunkEntry& e, std::int64_t& worst_rank, std::int64_t& misrouted) {
  worst_rank = -1;
  misrouted = 0;
  const auto& local = p.local_ctx[static_cast<std::size_t>(e.request)];
  for (std::size_t d = 0; d < local.size(); ++d)
    if (local[d] > e.padded_local_len) {
      misrouted += local[d] - e.padded_local_len;
      if (worst_rank < 0) worst_rank = static_cast<std::int64_t>(d);
    }
}
}  // namespace

// D-5: each region's rows per rank cover the busiest rank's share of its extent.
InvariantResult check_D5(const Batch&, const Plan& p) {
  Sink s(InvariantId::D5_gathered_shard_cover);
  if (!p.built) return s.not_evaluated();
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    for (const auto& e : p.chunks[ci].entries) {
      const auto& local = p.local_ctx[static_cast<std::size_t>(e.request)];
      for (std::size_t d = 0; d < local.size(); ++d)
        if (local[d] > e.padded_local_len)
          s.add([&] {
            return Violation{.chunk = static_cast<int>(ci),
                             .request = e.request,
                             .rank = static_cast<int>(d),
                             .expected = "rows per rank >= rank " + str(static_cast<std::int64_t>(d)) + "'s share " +
                                         str(local[d]) + " of extent " + str(e.len),
                             .got = "rpr=" + str(e.padded_local_len),
                             .reason = "cdiv(e, W) is the busiest rank's share only for interleave 1 (DB-2)"};
          });
    }
  return s.done();
}

// D-7: every top-k position p of a region resolves to the row that holds it, owner(p)*SR + ws +
// local(p) with local(p) < rpr; a position past its rank's rpr rows reads another region's or
// rank's rows.
InvariantResult check_D7(const Batch&, const Plan& p) {
  Sink s(InvariantId::D7_gathered_layout);
  if (!p.built) return s.not_evaluated();
  const Int I = p.interleave, W = p.dcp;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    const std::int64_t SR = ch.local_tokens();
    for (std::size_t k = 0; k < ch.entries.size(); ++k) {
      const ChunkEntry& e = ch.entries[k];
      std::int64_t worst = -1, misrouted = 0;
      gathered_shares(p, e, worst, misrouted);
      if (misrouted == 0) continue;
      s.add([&] {
        const std::int64_t ws = ch.padded_local_cu[k], rpr = e.padded_local_len;
        const std::int64_t pos = global_position(Int(rpr), Int(worst), I, W).get();
        return Violation{.chunk = static_cast<int>(ci),
                         .request = e.request,
                         .rank = static_cast<int>(worst),
                         .row = worst * SR + ws + rpr,
                         .expected = "every position read at the row that holds it",
                         .got = str(misrouted) + " position(s) from p=" + str(pos) + " (rank " + str(worst) +
                                "'s local slot " + str(rpr) + ") read row " + str(worst * SR + ws + rpr),
                         .reason =
                             "local(p) >= rows per rank: the row belongs to the next region or rank's shard (wrong KV, "
                             "silently)"};
      });
    }
  }
  return s.done();
}

// Z-1 (#57170): the profile run reserves at least the rows the sparse builder up-projects.
InvariantResult check_Z1(const Batch&, const Plan& p) {
  Sink s(InvariantId::Z1_profile_reservation);
  if (p.profile_rows == 0)
    return s.not_applicable("no profile-run reservation modelled (a sparse builder sized from max_model_len)");
  if (p.profile_rows < p.workspace)
    s.add([&] {
      return Violation{.expected = "profile-run kv_b_proj rows >= S_sparse=" + str(p.workspace),
                       .got = str(p.profile_rows) + " (the dense formula)",
                       .reason = "the profile run reserves less than a dense-MHA chunk up-projects: possible OOM"};
    });
  else if (p.profile_rows > p.workspace)
    s.note([&] {
      return "over-reservation (#57170): the profile run reserves " + str(p.profile_rows) + " rows for " +
             str(p.workspace) + " needed";
    });
  return s.done();
}

}  // namespace cp::detail

// The checks of vLLM's PCP context reuse (vllm-pcp-and-sparse.md §2.4, #57668), tagged CR- here
// (the spec's R-; R-1 is TensorRT-LLM's rule in this catalogue). CR-1 the tail is not negative,
// CR-2 the merged batch is the rank's rows, CR-3 the causal merge (the tail serves only row b's
// tokens, as a continuation), CR-4 the tail's new tokens are in the cache before it is read
// (through the step's KV write, P-5), CR-6 the saving: rows gathered ctx_b - q_a, not ctx_a + ctx_b.
// R-2 (coverage) is the universal I-3 on the merged batch (Batch::lead_*); R-5 is a numerics
// statement (docs/plan.md). They read every rank's rows and merges from plan.pcp.
#include <algorithm>

#include "invariants/checks.h"
#include "reference/planner/families/pcp/steps.h"

namespace cp::detail {
namespace {

std::string pair_text(const PcpRow& a, const PcpRow& b) {
  return "rows (" + str(a.request) + ", " + str(a.start) + ", " + str(a.len) + ") and (" + str(b.request) + ", " +
         str(b.start) + ", " + str(b.len) + ")";
}
bool any_reuse(const PcpLayout& L) {
  return std::any_of(L.ranks.begin(), L.ranks.end(), [](const PcpRank& rk) { return rk.reused; });
}

}  // namespace

// CR-1: ctx_b >= ctx_a + q_a for every merged pair on every rank (0 at r = P-1 with ceil pieces).
InvariantResult check_CR1(const Batch&, const Plan& p) {
  Sink s(InvariantId::CR1_reuse_tail_nonnegative);
  if (!p.pcp) return s.not_evaluated();
  if (!any_reuse(*p.pcp)) return s.not_applicable("no rank ran ctx_reuse's plan");
  for (std::size_t r = 0; r < p.pcp->ranks.size(); ++r) {
    const PcpRank& rk = p.pcp->ranks[r];
    for (const auto& m : rk.merges) {
      if (m.tail_len >= 0) continue;
      const PcpRow& a = rk.rows[static_cast<std::size_t>(m.row_a)];
      const PcpRow& b = rk.rows[static_cast<std::size_t>(m.row_b)];
      s.add([&] {
        return Violation{.request = a.request,
                         .rank = static_cast<int>(r),
                         .row = m.row_a,
                         .expected = "tail [ctx_a + q_a, ctx_b) = [" + str(a.start + a.len) + ", " + str(b.start) +
                                     ") of length >= 0",
                         .got = "length " + str(m.tail_len) + " (" + pair_text(a, b) + ")",
                         .reason =
                             "row a lies after row b: the pair is merged in the wrong order (PCP-A/B order a "
                             "fresh prefill's piece 0 last)"};
      });
    }
  }
  return s.done();
}

// CR-2: the merged batch is the rank's rows: each pair is two adjacent prefill rows of one request,
// pairs do not overlap, and on the selected rank the batch the checks read (ctx, q, lead) is the one
// the rows and pairs imply (q' = q_a + q_b, ctx' = ctx_b, lead = row a; singletons unchanged).
InvariantResult check_CR2(const Batch& bt, const Plan& p) {
  Sink s(InvariantId::CR2_reuse_rows_preserved);
  if (!p.pcp) return s.not_evaluated();
  const PcpLayout& L = *p.pcp;
  if (!any_reuse(L)) return s.not_applicable("no rank ran ctx_reuse's plan");
  for (std::size_t r = 0; r < L.ranks.size(); ++r) {
    const PcpRank& rk = L.ranks[r];
    int last = -1;
    for (const auto& m : rk.merges) {
      const PcpRow& a = rk.rows[static_cast<std::size_t>(m.row_a)];
      const PcpRow& b = rk.rows[static_cast<std::size_t>(m.row_b)];
      if (m.row_b != m.row_a + 1 || a.request != b.request || m.row_a < rk.num_decodes || m.row_a <= last)
        s.add([&] {
          return Violation{.request = a.request,
                           .rank = static_cast<int>(r),
                           .row = m.row_a,
                           .expected = "two adjacent prefill rows of one request, after the previous pair",
                           .got = "rows " + str(m.row_a) + ", " + str(m.row_b) + ": " + pair_text(a, b),
                           .reason = "the merged row is not the rank's rows"};
        });
      last = m.row_b;
    }
    if (static_cast<int>(r) != L.rank || !rk.reused) continue;
    // The selected rank: rebuild the merged batch from the rows and compare.
    std::size_t i = 0, mi = 0, out = 0;
    for (; i < rk.rows.size(); ++i, ++out) {
      const bool pair = mi < rk.merges.size() && rk.merges[mi].row_a == static_cast<int>(i);
      const PcpRow& a = rk.rows[i];
      const PcpRow& b = pair ? rk.rows[i + 1] : a;
      const std::int64_t want_ctx = b.start, want_q = pair ? a.len + b.len : a.len, want_lead = pair ? a.len : 0;
      if (out >= bt.size() || bt.ctx[out] != want_ctx || bt.q[out] != want_q ||
          (bt.merged(out) ? bt.lead_q[out] : 0) != want_lead || (pair && bt.lead_ctx[out] != a.start))
        s.add([&] {
          return Violation{
              .request = static_cast<int>(out),
              .rank = static_cast<int>(r),
              .row = static_cast<std::int64_t>(i),
              .expected = "merged row ctx=" + str(want_ctx) + " q=" + str(want_q) + " lead q=" + str(want_lead),
              .got = out < bt.size() ? "ctx=" + str(bt.ctx[out]) + " q=" + str(bt.q[out]) : "no row",
              .reason = "the batch the checks read differs from the rank's rows"};
        });
      if (pair) ++i, ++mi;
    }
    if (out != bt.size())
      s.add([&] {
        return Violation{.rank = static_cast<int>(r),
                         .expected = str(static_cast<std::int64_t>(out)) + " merged rows",
                         .got = str(static_cast<std::int64_t>(bt.size())),
                         .reason = "rows lost or duplicated by the merge"};
      });
  }
  return s.done();
}

// CR-3: the causal merge on the selected rank's plan: row a's tokens lead the merged row,
// every shared chunk serves all of its tokens, every tail chunk exactly row b's (the suffix) and
// is a continuation (its output merges into the state the shared chunk and the causal part built).
InvariantResult check_CR3(const Batch& b, const Plan& p) {
  Sink s(InvariantId::CR3_reuse_causal_merge);
  if (!p.pcp) return s.not_evaluated();
  if (!p.pcp->ranks[static_cast<std::size_t>(p.pcp->rank)].reused) return s.not_applicable("the v6 fallback ran");
  std::vector<std::int64_t> q0(b.size() + 1, 0);
  for (std::size_t r = 0; r < b.size(); ++r) q0[r + 1] = q0[r] + b.q[r];
  const std::int64_t base = q0[static_cast<std::size_t>(p.num_decodes)];
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    for (const auto& e : ch.entries) {
      const auto r = static_cast<std::size_t>(e.request);
      if (!b.merged(r)) continue;
      const bool in_shared = e.start + e.len <= b.lead_ctx[r];
      const std::int64_t t0 = q0[r] - base + (in_shared ? 0 : b.lead_q[r]), t1 = q0[r + 1] - base;
      if (ch.token_start == t0 && ch.token_end == t1 && (in_shared || ch.is_continuation)) continue;
      s.add([&] {
        return Violation{.chunk = static_cast<int>(ci),
                         .request = e.request,
                         .expected = std::string(in_shared ? "shared" : "tail") + " chunk over tokens [" + str(t0) +
                                     ", " + str(t1) + ")" + (in_shared ? "" : ", a continuation"),
                         .got = "[" + str(e.start) + ", " + str(e.start + e.len) + ") for tokens [" +
                                str(ch.token_start) + ", " + str(ch.token_end) + ")" +
                                (ch.is_continuation ? " (continuation)" : ""),
                         .reason = "the merged row's causal part and chunks would not add up for row b's tokens"};
      });
    }
  }
  return s.done();
}

// CR-4: the tail [t_s, ctx_b) holds other ranks' new tokens of the step; each one must be in
// this rank's cache before it is read, i.e. written by the step's all-gathered KV write (P-5).
InvariantResult check_CR4(const Batch&, const Plan& p) {
  Sink s(InvariantId::CR4_reuse_cache_ready);
  if (!p.pcp) return s.not_evaluated();
  const PcpLayout& L = *p.pcp;
  if (!any_reuse(L)) return s.not_applicable("no rank ran ctx_reuse's plan");
  const PcpGathered& g = L.gathered;
  thread_local std::vector<std::pair<std::int64_t, std::int64_t>> wrote;  // (request, position), sorted
  wrote.clear();
  for (std::size_t i = 0; i < g.write_mask.size(); ++i)
    if (g.write_mask[i]) wrote.emplace_back(g.request[i], g.position[i]);
  std::sort(wrote.begin(), wrote.end());
  const auto written = [&](int req, std::int64_t pos) {
    return std::binary_search(wrote.begin(), wrote.end(), std::pair<std::int64_t, std::int64_t>(req, pos));
  };
  const auto computed = [&](int req) {  // N_j: the first new token's position (tokens in request order)
    const auto it = std::lower_bound(g.global_request.begin(), g.global_request.end(), std::int64_t{req});
    return it == g.global_request.end() ? std::int64_t{0}
                                        : g.global_position[static_cast<std::size_t>(it - g.global_request.begin())];
  };
  for (std::size_t r = 0; r < L.ranks.size(); ++r)
    for (const auto& m : L.ranks[r].merges) {
      const PcpRow& a = L.ranks[r].rows[static_cast<std::size_t>(m.row_a)];
      const PcpRow& b = L.ranks[r].rows[static_cast<std::size_t>(m.row_b)];
      const std::int64_t N = computed(a.request);
      for (std::int64_t pos = std::max(a.start + a.len, N); pos < b.start; ++pos)
        if (!written(a.request, pos)) {
          s.add([&] {
            return Violation{.request = a.request,
                             .rank = static_cast<int>(r),
                             .row = pos,
                             .expected = "position " + str(pos) + " written by the step's KV write",
                             .got = "no write-masked gathered slot holds it",
                             .reason = "the tail reads a new token of another rank that is not in the cache"};
          });
          break;
        }
    }
  return s.done();
}

// CR-6: the saving. Rows the selected rank's plan gathers for a merged row are ctx_a plus the
// tail, ctx_b - q_a, where the fallback gathers ctx_a + ctx_b; the note reports both.
InvariantResult check_CR6(const Batch& b, const Plan& p) {
  Sink s(InvariantId::CR6_reuse_saving);
  if (!p.pcp) return s.not_evaluated();
  if (!p.pcp->ranks[static_cast<std::size_t>(p.pcp->rank)].reused) return s.not_applicable("the v6 fallback ran");
  std::int64_t reuse = 0, fallback = 0;
  for (std::size_t r = 0; r < b.size(); ++r) {
    if (!b.merged(r)) continue;
    std::int64_t got = 0;
    for (const auto& ch : p.chunks)
      for (const auto& e : ch.entries)
        if (e.request == static_cast<int>(r)) got += e.len;
    const std::int64_t want = steps::reuse_rows_gathered(Int(b.lead_ctx[r]), Int(b.lead_q[r]), Int(b.ctx[r])).get();
    reuse += got;
    fallback += b.lead_ctx[r] + b.ctx[r];
    if (got != want)
      s.add([&] {
        return Violation{.request = static_cast<int>(r),
                         .expected = str(want) + " rows gathered (ctx_a + the tail)",
                         .got = str(got),
                         .reason = got > want ? "context gathered twice: no saving" : "context not gathered"};
      });
  }
  s.note([&] { return "merged rows gather " + str(reuse) + " rows; the v6 fallback would gather " + str(fallback); });
  return s.done();
}

}  // namespace cp::detail

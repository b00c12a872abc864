// Which context positions the plan schedules: I-3 (coverage) and I-8 (local bookkeeping).
#include <algorithm>

#include "invariants/checks.h"
#include "invariants/interval/local_len.h"
#include "reference/dcp/ownership.h"

namespace cp::detail {

namespace {

// A merged row (Batch::lead_q, vLLM PCP context reuse): its leading row's tokens and the rest are
// two groups; an entry serves each group whose tokens its chunk's token range holds, and each
// group's entries must tile, in chunk order, exactly the context it attends through chunks:
// [0, lead_ctx) for the leading tokens, [0, lead_ctx) then [lead_ctx + lead_q, ctx) for the rest
// (the causal part covers [lead_ctx, lead_ctx + lead_q)).
void check_merged_coverage(const Batch& b, const Plan& p, std::size_t r, std::int64_t q0, Sink& s) {
  const std::int64_t lead = b.lead_ctx[r], lead_end = lead + b.lead_q[r], ctx = b.ctx[r];
  const int req = static_cast<int>(r);
  if (lead_end > ctx)
    s.add([&] {
      return Violation{.request = req,
                       .expected = "the leading row's positions [" + str(lead) + ", " + str(lead_end) +
                                   ") below the rest's context " + str(ctx),
                       .got = "they reach " + str(lead_end),
                       .reason = "the causal part lets the rest attend positions past its context (future tokens)"};
    });
  struct Group {
    std::int64_t t0, t1;      // its query tokens among the prefill tokens
    std::int64_t want[2][2];  // the context intervals it attends through chunks
    int n = 0, at = 0;        // intervals, the one being tiled
    std::int64_t next = 0;    // the next position expected
  };
  Group g[2] = {{q0, q0 + b.lead_q[r], {{0, lead}, {0, 0}}, 1},
                {q0 + b.lead_q[r], q0 + b.q[r], {{0, lead}, {lead_end, std::max(ctx, lead_end)}}, 2}};
  for (auto& x : g) {
    while (x.at < x.n && x.want[x.at][0] == x.want[x.at][1]) ++x.at;  // skip empty intervals
    x.next = x.at < x.n ? x.want[x.at][0] : 0;
  }
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    for (const auto& e : ch.entries) {
      if (e.request != req || e.len == 0) continue;
      for (int gi = 0; gi < 2; ++gi) {
        Group& x = g[gi];
        if (x.t0 == x.t1) continue;
        const bool all = ch.token_start <= x.t0 && x.t1 <= ch.token_end;
        const bool some = ch.token_start < x.t1 && x.t0 < ch.token_end;
        if (some && !all)
          s.add([&] {
            return Violation{.chunk = static_cast<int>(ci),
                             .request = req,
                             .expected = "tokens [" + str(x.t0) + ", " + str(x.t1) + ") all in or all out",
                             .got = "chunk tokens [" + str(ch.token_start) + ", " + str(ch.token_end) + ")",
                             .reason = "a chunk serves part of a row's tokens"};
          });
        if (!all) continue;
        const std::int64_t end = x.at < x.n ? x.want[x.at][1] : x.next;
        if (e.start != x.next || e.start + e.len > end)
          s.add([&] {
            return Violation{
                .chunk = static_cast<int>(ci),
                .request = req,
                .expected = "span [" + str(x.next) + ", " + str(end) + ") or a prefix of it for tokens [" + str(x.t0) +
                            ", " + str(x.t1) + ")",
                .got = "[" + str(e.start) + ", " + str(e.start + e.len) + ")",
                .reason = e.start + e.len > end && e.start == x.next
                              ? "positions attended twice (the causal part covers them) or past the context"
                              : (e.start < x.next ? "positions scheduled twice" : "positions skipped")};
          });
        x.next = std::max(x.next, e.start + e.len);
        while (x.at < x.n && x.next >= x.want[x.at][1]) {
          ++x.at;
          while (x.at < x.n && x.want[x.at][0] == x.want[x.at][1]) ++x.at;
          if (x.at < x.n) x.next = x.want[x.at][0];
        }
      }
    }
  }
  for (const auto& x : g)
    if (x.t0 != x.t1 && x.at < x.n)
      s.add([&] {
        return Violation{.request = req,
                         .expected = "context [" + str(x.want[x.n - 1][0]) + ", " + str(x.want[x.n - 1][1]) +
                                     ") covered for tokens [" + str(x.t0) + ", " + str(x.t1) + ")",
                         .got = "covered up to " + str(x.next),
                         .reason = "context not fully covered"};
      });
}

}  // namespace

// Every context position of every request is attended exactly once: each request's spans tile
// [0, ctx) in chunk order; a merged row's two token groups each tile what they attend through
// chunks (check_merged_coverage).
InvariantResult check_I3(const Batch& b, const Plan& p) {
  Sink s(InvariantId::I3_coverage);
  if (!p.built) return s.not_evaluated();
  // Next expected start per request; spans must tile [0, ctx) in chunk order.
  thread_local std::vector<std::int64_t> next;  // reused: no allocation per check once warm
  next.assign(b.size(), 0);
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    for (const auto& e : p.chunks[ci].entries) {
      if (e.len == 0) continue;
      const auto r = static_cast<std::size_t>(e.request);
      if (b.merged(r)) continue;  // check_merged_coverage
      if (e.start != next[r])
        s.add([&] {
          return Violation{.chunk = static_cast<int>(ci),
                           .request = e.request,
                           .expected = "span starts at " + str(next[r]),
                           .got = "[" + str(e.start) + ", " + str(e.start + e.len) + ")",
                           .reason = e.start < next[r] ? "positions scheduled twice" : "positions skipped"};
        });
      if (e.start + e.len > b.ctx[r])
        s.add([&] {
          return Violation{.chunk = static_cast<int>(ci),
                           .request = e.request,
                           .expected = "span ends <= ctx=" + str(b.ctx[r]),
                           .got = str(e.start + e.len),
                           .reason = "span reaches past the context"};
        });
      next[r] = std::max(next[r], e.start + e.len);
    }
  // Chunk token ranges count the prefill tokens (from the first request after the decodes).
  std::int64_t q0 = 0;
  for (std::size_t r = 0; r < b.size(); ++r) {
    if (static_cast<int>(r) == p.num_decodes) q0 = 0;
    if (b.merged(r)) check_merged_coverage(b, p, r, q0, s);
    q0 += b.q[r];
  }
  for (int r : p.prefills)
    if (!b.merged(static_cast<std::size_t>(r)) &&
        next[static_cast<std::size_t>(r)] != b.ctx[static_cast<std::size_t>(r)])
      s.add([&] {
        return Violation{.request = r,
                         .expected = "context covered up to " + str(b.ctx[static_cast<std::size_t>(r)]),
                         .got = "covered up to " + str(next[static_cast<std::size_t>(r)]),
                         .reason = "context not fully covered"};
      });
  return s.done();
}

InvariantResult check_I8(const Batch& b, const Plan& p) {
  Sink s(InvariantId::I8_local_length_bookkeeping);
  if (!p.built) return s.not_evaluated();
  // (a) local context lengths come from the same ctx as the global plan and add up to it.
  for (int r : p.prefills) {
    const auto ri = static_cast<std::size_t>(r);
    std::int64_t sum = 0;
    for (std::int64_t rank = 0; rank < p.dcp; ++rank) sum += p.local_ctx[ri][static_cast<std::size_t>(rank)];
    if (sum != b.ctx[ri])
      s.add([&] {
        return Violation{.request = r,
                         .expected = "sum over ranks of local_ctx == ctx=" + str(b.ctx[ri]),
                         .got = str(sum),
                         .reason = "local context lengths were computed from another length (e.g. context + draft)"};
      });
  }
  // (b) each rank's padded local length covers what that rank owns of the span.
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    for (const auto& e : p.chunks[ci].entries)
      for (std::int64_t rank = 0; rank < p.dcp; ++rank) {
        // Plain int64 where the operands exclude overflow (interval/local_len.h), else checked.
        const std::int64_t owned =
            (Int(interval_detail::local_len((Int(e.start) + e.len).get(), p.dcp, rank, p.interleave)) -
             interval_detail::local_len(e.start, p.dcp, rank, p.interleave))
                .get();
        if (e.padded_local_len < owned)
          s.add([&] {
            return Violation{.chunk = static_cast<int>(ci),
                             .request = e.request,
                             .rank = static_cast<int>(rank),
                             .expected = "padded_local_len >= " + str(owned) + " (rows the rank owns in the span)",
                             .got = str(e.padded_local_len),
                             .reason = "the rank's gather stops before its share of the span"};
          });
      }
  return s.done();
}

}  // namespace cp::detail

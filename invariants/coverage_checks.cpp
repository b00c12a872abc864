// Which context positions the plan schedules: I-3 (coverage) and I-8 (local bookkeeping).
#include <algorithm>

#include "invariants/checks.h"
#include "invariants/interval/local_len.h"
#include "reference/dcp/ownership.h"

namespace cp::detail {

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
  for (int r : p.prefills)
    if (next[static_cast<std::size_t>(r)] != b.ctx[static_cast<std::size_t>(r)])
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

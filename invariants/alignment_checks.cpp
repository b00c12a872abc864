// Where each gather starts: I-5 (page-aligned starts for the old kernel), I-6 (virtual
// block alignment under DCP), I-10 (every rank's local start matches the global start).
#include "invariants/checks.h"
#include "invariants/interval/local_len.h"
#include "reference/dcp/ownership.h"

namespace cp::detail {

InvariantResult check_I5(const Batch&, const Plan& p) {
  Sink s(InvariantId::I5_page_aligned_starts);
  if (p.gather != GatherKind::page_rounding)
    return s.not_applicable(
        [&] { return std::string("gather is ") + std::string(name(p.gather)) + ": arbitrary starts are exact"; });
  if (!p.built) return s.not_evaluated();
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    for (const auto& e : p.chunks[ci].entries)
      if (e.len > 0 && e.start % p.block != 0)
        s.add([&] {
          return Violation{.chunk = static_cast<int>(ci),
                           .request = e.request,
                           .expected = "start mod B == 0 (B=" + str(p.block) + ")",
                           .got = "start=" + str(e.start) + " (mod B = " + str(e.start % p.block) + ")",
                           .reason = "the batch-grid kernel copies from position " + str(e.start / p.block * p.block) +
                                     " instead of " + str(e.start)};
        });
  return s.done();
}

InvariantResult check_I6(const Batch&, const Plan& p) {
  Sink s(InvariantId::I6_virtual_block_alignment);
  const std::int64_t V = p.virtual_block;
  if (!p.built) {
    // The old planner's alignment is a property of M alone; report it even without chunks.
    if (!p.packed && p.chunk_width > 0 && p.chunk_width % V != 0)
      s.add([&] {
        return Violation{.expected = "M mod V == 0 (V = I*W = " + str(V) + ")",
                         .got = "M=" + str(p.chunk_width) + " (mod V = " + str(p.chunk_width % V) + ")",
                         .reason = "chunk boundaries split virtual blocks"};
      });
    return s.done();
  }
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    for (const auto& e : p.chunks[ci].entries) {
      if (e.len == 0 || e.start == 0) continue;
      if (e.start % V != 0)
        s.add([&] {
          return Violation{.chunk = static_cast<int>(ci),
                           .request = e.request,
                           .expected = "start mod V == 0 (V = I*W = " + str(V) + ")",
                           .got = "start=" + str(e.start) + " (mod V = " + str(e.start % V) + ")",
                           .reason = "the chunk boundary splits a virtual block across chunks"};
        });
      else if (e.local_start * p.dcp != e.start)
        s.add([&] {
          return Violation{.chunk = static_cast<int>(ci),
                           .request = e.request,
                           .expected = "local_start == start/W = " + str(e.start / p.dcp),
                           .got = str(e.local_start),
                           .reason = "the local gather does not begin at the span's first local slot"};
        });
    }
  return s.done();
}

InvariantResult check_I10(const Batch&, const Plan& p) {
  Sink s(InvariantId::I10_gather_start_semantics);
  if (!p.built) return s.not_evaluated();
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    for (const auto& e : p.chunks[ci].entries) {
      if (e.len == 0) continue;
      for (std::int64_t rank = 0; rank < p.dcp; ++rank) {
        // cp_gather_cache reads local slots from seq_starts: that must be the number of
        // positions before `start` that this rank owns.
        const std::int64_t want = interval_detail::local_len(e.start, p.dcp, rank, p.interleave);
        if (e.local_start != want) {
          s.add([&] {
            return Violation{.chunk = static_cast<int>(ci),
                             .request = e.request,
                             .rank = static_cast<int>(rank),
                             .expected = "local start " + str(want) + " (positions < " + str(e.start) + " on rank " +
                                         str(rank) + ")",
                             .got = str(e.local_start),
                             .reason = "cp_gather_cache starts at the wrong local slot"};
          });
          break;  // one per entry is enough to explain it
        }
      }
    }
  return s.done();
}

}  // namespace cp::detail

// I-9's token-level walk: the ground truth. For every workspace row of the simulated gather ->
// all-gather -> reorg (reference/dcp/simulate.h), which request's which position it holds;
// every entry must receive exactly its own positions [start, start+len), each once.
#include "invariants/catalogue.h"
#include "invariants/reorg_walk.h"
#include "reference/dcp/movement.h"

namespace cp::detail {

namespace {

// Checks the rows one entry received (row_of(i) for i in [0, n), attention's row numbers
// first_row + i) against its span: foreign, duplicate and missing positions.
template <class RowOf>
void receive(const ChunkEntry& e, std::int64_t first_row, std::int64_t n, RowOf row_of, Receipt& r,
             std::vector<std::uint8_t>& seen, bool text) {
  ReorgCounts& k = r.counts;
  seen.assign(static_cast<std::size_t>(e.len), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const RowSource& src = row_of(i);
    const std::int64_t t = first_row + i;
    const bool own = src.kind == RowKind::context && src.request == e.request && src.position >= e.start &&
                     src.position < e.start + e.len;
    if (!own) {
      ++k.foreign;
      if (k.first_bad_row < 0) k.first_bad_row = t;
      if (text) add_to_group(r.groups, src.request, src.kind, 1, src.position, src.position);
      continue;
    }
    auto& flag = seen[static_cast<std::size_t>(src.position - e.start)];
    if (flag) {
      ++k.duplicate;
      if (k.first_bad_row < 0) k.first_bad_row = t;
    }
    flag = 1;
  }
  for (std::int64_t i = 0; i < e.len; ++i)
    if (!seen[static_cast<std::size_t>(i)]) {
      if (k.missing++ == 0) r.first_missing = e.start + i;
      r.last_missing = e.start + i;
    }
}

// Local attention: an entry receives, on every rank, the rows of that rank's gather runs of its
// request (row numbers are the ranks' concatenated rows, rank-major): attended_spans, the spans the
// numerics attend (reference/dcp/movement.h).
std::vector<RowSource> attended_locally(const ChunkMovement& m, const std::vector<RowSource>& rows, const Chunk& ch,
                                        std::size_t entry, std::int64_t ranks) {
  std::vector<RowSource> got;
  for (const AttendSpan& sp : attended_spans(m, ch, entry, ranks))
    got.insert(got.end(), rows.begin() + sp.lo, rows.begin() + sp.hi);
  return got;
}

}  // namespace

void walk_tokens(const Batch& b, const Plan& p, ReceiptVisitor visit) {
  const bool text = !verdict_only();
  std::vector<std::uint8_t> seen;
  std::vector<Group> groups;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    const ChunkMovement m = chunk_movement(p, ch);
    const std::vector<RowSource> rows = simulate_chunk(b, p, ch);
    for (std::size_t eb = 0; eb < ch.entries.size(); ++eb) {
      const ChunkEntry& e = ch.entries[eb];
      Receipt r{.counts = {.chunk = static_cast<int>(ci), .entry = static_cast<int>(eb), .request = e.request},
                .groups = groups};
      groups.clear();
      if (m.exchange == Exchange::local_attend) {
        const auto got = attended_locally(m, rows, ch, eb, p.dcp);
        receive(
            e, 0, static_cast<std::int64_t>(got.size()),
            [&](std::int64_t i) -> const RowSource& { return got[static_cast<std::size_t>(i)]; }, r, seen, text);
      } else {
        const std::int64_t lo = ch.cu_seq_lens[eb];
        receive(
            e, lo, ch.cu_seq_lens[eb + 1] - lo,
            [&](std::int64_t i) -> const RowSource& { return rows[static_cast<std::size_t>(lo + i)]; }, r, seen, text);
      }
      visit(r);
    }
  }
}

}  // namespace cp::detail

// I-9's token-level walk: the ground truth. For every workspace row of the simulated gather ->
// all-gather -> reorg (reference/dcp/simulate.h), which request's which position it holds;
// every entry must receive exactly its own positions [start, start+len), each once.
#include "invariants/catalogue.h"
#include "invariants/reorg_walk.h"

namespace cp::detail {

void walk_tokens(const Batch& b, const Plan& p, ReceiptVisitor visit) {
  const bool text = !verdict_only();
  std::vector<std::uint8_t> seen;
  std::vector<Group> groups;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci) {
    const Chunk& ch = p.chunks[ci];
    const std::vector<RowSource> rows = simulate_chunk(b, p, ch);
    for (std::size_t eb = 0; eb < ch.entries.size(); ++eb) {
      const ChunkEntry& e = ch.entries[eb];
      Receipt r{.counts = {.chunk = static_cast<int>(ci), .entry = static_cast<int>(eb), .request = e.request},
                .groups = groups};
      ReorgCounts& k = r.counts;
      groups.clear();
      seen.assign(static_cast<std::size_t>(e.len), 0);
      for (std::int64_t t = ch.cu_seq_lens[eb]; t < ch.cu_seq_lens[eb + 1]; ++t) {
        const RowSource& src = rows[static_cast<std::size_t>(t)];
        const bool own = src.kind == RowKind::context && src.request == e.request && src.position >= e.start &&
                         src.position < e.start + e.len;
        if (!own) {
          ++k.foreign;
          if (k.first_bad_row < 0) k.first_bad_row = t;
          if (text) add_to_group(groups, src.request, src.kind, 1, src.position, src.position);
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
      visit(r);
    }
  }
}

}  // namespace cp::detail

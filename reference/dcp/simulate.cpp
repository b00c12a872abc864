#include "reference/dcp/simulate.h"

#include "reference/dcp/ownership.h"

namespace cp {

RowSource classify(const Case& c, int request, std::int64_t position) {
  const auto r = static_cast<std::size_t>(request);
  if (position >= 0 && position < c.ctx[r]) return {request, position, RowKind::context};
  if (position >= c.ctx[r] && position < c.ctx[r] + c.q[r]) return {request, position, RowKind::new_token};
  return {request, position, RowKind::stale};
}

std::vector<RowSource> gather_rank(const Case& c, const Plan&, const Chunk& ch, std::int64_t rank) {
  std::vector<RowSource> rows;
  rows.reserve(static_cast<std::size_t>(ch.local_tokens()));
  const Int I = c.interleave, W = c.dcp, R = rank;
  // cp_gather_cache: row cu[b] + k of the local workspace holds local slot seq_starts[b] + k.
  for (const auto& e : ch.entries)
    for (std::int64_t k = 0; k < e.padded_local_len; ++k)
      rows.push_back(classify(c, e.request, global_position(Int(e.local_start + k), R, I, W).get()));
  return rows;
}

std::vector<RowSource> simulate_chunk(const Case& c, const Plan& p, const Chunk& ch) {
  const std::int64_t total = ch.total_tokens();
  std::vector<RowSource> out;
  out.reserve(static_cast<std::size_t>(total));
  if (c.dcp == 1) {
    for (const auto& e : ch.entries) {
      // The old batch-grid kernel starts copying at the page holding `start` (spec §3.4).
      const std::int64_t first = p.gather == GatherKind::page_rounding ? e.start / c.block * c.block : e.start;
      for (std::int64_t k = 0; k < e.len; ++k) out.push_back(classify(c, e.request, first + k));
    }
    return out;
  }
  // All-gather: rank r's toks local rows land at [r*toks, (r+1)*toks) of G (rank-major).
  const std::int64_t toks = ch.local_tokens();
  std::vector<RowSource> G;
  G.reserve(static_cast<std::size_t>(toks * c.dcp));
  for (std::int64_t r = 0; r < c.dcp; ++r) {
    auto local = gather_rank(c, p, ch, r);
    G.insert(G.end(), local.begin(), local.end());
  }
  // Reorg: per request, per rank, the first kept[r] rows of its padded local block. Torch
  // slicing clamps at the end of G, which the padded lengths never reach.
  for (std::size_t b = 0; b < ch.entries.size(); ++b) {
    const auto& e = ch.entries[b];
    const std::int64_t src = ch.padded_local_cu[b];
    for (std::int64_t r = 0; r < c.dcp; ++r)
      for (std::int64_t k = 0; k < e.kept[static_cast<std::size_t>(r)]; ++k) {
        const std::int64_t g = r * toks + src + k;
        out.push_back(g < static_cast<std::int64_t>(G.size()) ? G[static_cast<std::size_t>(g)] : RowSource{});
      }
  }
  // Attention reads [0, total) by the global cu_seq_lens: missing rows are stale buffer
  // contents, extra rows are never read.
  out.resize(static_cast<std::size_t>(total), RowSource{});
  return out;
}

}  // namespace cp

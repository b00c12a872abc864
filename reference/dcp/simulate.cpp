#include "reference/dcp/simulate.h"

#include <algorithm>

#include "reference/dcp/movement.h"
#include "reference/dcp/ownership.h"

namespace cp {

RowSource classify(const Batch& b, int request, std::int64_t position) {
  const auto r = static_cast<std::size_t>(request);
  if (position >= 0 && position < b.ctx[r]) return {request, position, RowKind::context};
  if (position >= b.ctx[r] && position < b.ctx[r] + b.q[r]) return {request, position, RowKind::new_token};
  return {request, position, RowKind::stale};
}

std::vector<RowSource> gather_rank(const Batch& b, const Plan& p, const Chunk& ch, std::int64_t rank) {
  const ChunkMovement m = chunk_movement(p, ch);
  std::vector<RowSource> rows(static_cast<std::size_t>(m.local_rows));
  const Int I = p.interleave, W = p.dcp, R = rank;
  // cp_gather_cache: local row dst + k holds the rank's local slot src + k.
  for (const auto& g : m.gather)
    for (std::int64_t k = 0; k < g.len; ++k)
      rows[static_cast<std::size_t>(g.dst + k)] =
          classify(b, g.request, global_position(Int(g.src + k), R, I, W).get());
  return rows;
}

std::vector<RowSource> simulate_chunk(const Batch& b, const Plan& p, const Chunk& ch) {
  const ChunkMovement m = chunk_movement(p, ch);
  // Attention reads [0, total) by the global cu_seq_lens: rows nothing wrote are stale buffer
  // contents, rows written past the end are never read.
  std::vector<RowSource> out(static_cast<std::size_t>(m.total_rows), RowSource{});
  if (!m.dcp) {
    for (const auto& g : m.gather)
      for (std::int64_t k = 0; k < g.len; ++k)
        out[static_cast<std::size_t>(g.dst + k)] = classify(b, g.request, g.src + k);
    return out;
  }
  // All-gather: rank r's local rows land at [r*toks, (r+1)*toks) of G (rank-major).
  std::vector<RowSource> G;
  G.reserve(static_cast<std::size_t>(m.gathered_rows));
  for (std::int64_t r = 0; r < p.dcp; ++r) {
    auto local = gather_rank(b, p, ch, r);
    G.insert(G.end(), local.begin(), local.end());
  }
  for (const auto& run : m.reorg) std::copy_n(G.begin() + run.src, run.len, out.begin() + run.dst);
  return out;
}

}  // namespace cp

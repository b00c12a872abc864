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
  return gather_rank(b, p, chunk_movement(p, ch), rank);
}

std::vector<RowSource> gather_rank(const Batch& b, const Plan& p, const ChunkMovement& m, std::int64_t rank) {
  std::vector<RowSource> rows(static_cast<std::size_t>(m.local_rows));
  const Int I = p.interleave, W = p.dcp, R = rank;
  // The rank's gather (vLLM's cp_gather_cache, ATOM's local_slot_ids, SGLang's owner-mask read):
  // local row dst + k holds the rank's local slot src + k; rows past the buffer are dropped.
  for (const auto& g0 : m.gather) {
    if (!runs_on(m, g0, rank)) continue;
    const CopyRun g = clip_gather(m, g0);
    for (std::int64_t k = 0; k < g.len; ++k)
      rows[static_cast<std::size_t>(g.dst + k)] =
          classify(b, g.request, global_position(Int(g.src + k), R, I, W).get());
  }
  return rows;
}

std::vector<RowSource> simulate_chunk(const Batch& b, const Plan& p, const Chunk& ch) {
  return simulate_chunk(b, p, chunk_movement(p, ch));
}

std::vector<RowSource> simulate_chunk(const Batch& b, const Plan& p, const ChunkMovement& m) {
  // Attention reads [0, total) by the global cu_seq_lens: rows nothing wrote are stale buffer
  // contents, rows written past the end are never read.
  std::vector<RowSource> out(static_cast<std::size_t>(m.total_rows), RowSource{});
  if (m.exchange == Exchange::none) {
    for (const auto& g : m.gather)
      for (std::int64_t k = 0; k < g.len; ++k)
        out[static_cast<std::size_t>(g.dst + k)] = classify(b, g.request, g.src + k);
    return out;
  }
  const std::vector<RowSource> G = all_gather(b, p, m);
  if (m.exchange == Exchange::local_attend) return G;  // each rank attends its own rows
  for (const auto& run0 : m.reorg) {
    const CopyRun run = clip_keep(m, run0);  // the rows inside both buffers
    for (std::int64_t k = 0; k < run.len; ++k)
      out[static_cast<std::size_t>(run.dst + k * run.dst_stride)] = G[static_cast<std::size_t>(run.src + k)];
  }
  return out;
}

std::vector<RowSource> all_gather(const Batch& b, const Plan& p, const ChunkMovement& m) {
  // Rank r's send row j lands at gathered_row(m, r, j, W) (rank-major or row-interleaved).
  std::vector<RowSource> G(static_cast<std::size_t>((Int(m.local_rows) * p.dcp).get()));
  for (std::int64_t r = 0; r < p.dcp; ++r) {
    const auto local = gather_rank(b, p, m, r);
    for (std::int64_t j = 0; j < m.local_rows; ++j)
      G[static_cast<std::size_t>(gathered_row(m, r, j, p.dcp))] = local[static_cast<std::size_t>(j)];
  }
  return G;
}

}  // namespace cp

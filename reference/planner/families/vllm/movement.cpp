#include "reference/planner/families/vllm/movement.h"

#include <algorithm>

#include "reference/arith/ops.h"
#include "reference/planner/plan.h"

namespace cp {

ChunkMovement vllm_chunk_movement(const Plan& p, const Chunk& ch) {
  ChunkMovement m;
  m.dcp = p.is_dcp();
  m.exchange = m.dcp ? Exchange::all_gather : Exchange::none;
  m.total_rows = ch.total_tokens();
  if (!m.dcp) {
    for (std::size_t b = 0; b < ch.entries.size(); ++b) {
      const auto& e = ch.entries[b];
      const std::int64_t first =
          p.gather == GatherKind::page_rounding ? round_down(Int(e.start), Int(p.block)).get() : e.start;
      m.gather.push_back({.request = e.request, .rank = 0, .src = first, .dst = ch.cu_seq_lens[b], .len = e.len});
    }
    return m;
  }
  m.local_rows = ch.local_tokens();
  m.gathered_rows = (Int(m.local_rows) * p.dcp).get();
  for (std::size_t b = 0; b < ch.entries.size(); ++b) {
    const auto& e = ch.entries[b];
    m.gather.push_back({.request = e.request,
                        .rank = 0,
                        .src = e.local_start,
                        .dst = ch.padded_local_cu[b],
                        .len = e.padded_local_len});
  }
  std::int64_t dst = 0;
  for (std::size_t b = 0; b < ch.entries.size(); ++b) {
    const auto& e = ch.entries[b];
    for (std::int64_t r = 0; r < p.dcp; ++r) {
      const std::int64_t kept = e.kept[static_cast<std::size_t>(r)];
      const std::int64_t src = r * m.local_rows + ch.padded_local_cu[b];
      const std::int64_t n = std::max<std::int64_t>(0, std::min({kept, m.total_rows - dst, m.gathered_rows - src}));
      if (n > 0)
        m.reorg.push_back({.request = e.request, .rank = static_cast<int>(r), .src = src, .dst = dst, .len = n});
      dst += kept;
    }
  }
  m.reorg_rows = dst;
  return m;
}

}  // namespace cp

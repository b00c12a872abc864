// Hand-built local-attention movements (Exchange::local_attend, PCP x DCP's shape) for the tests:
// no family emits local attention on main, so the CPU numerics test
// (tests/mla/test_engine_movements.cpp) and the GPU check test (tests/gpu/test_gpu.cpp) run these
// through CheckOptions::movement / check_one's movement.
#pragma once

#include "reference/planner/movement.h"
#include "reference/planner/plan.h"

namespace cp::test_movements {

// A local-attention movement over vLLM's shards (PCP x DCP's shape): rank r attends the kept[r]
// rows it owns of each entry, nothing is exchanged, the ranks' partials merge by LSE.
inline ChunkMovement local_attention(const Plan& p, const Chunk& ch) {
  ChunkMovement m{.exchange = Exchange::local_attend, .dcp = true, .gather_per_rank = true};
  m.total_rows = ch.total_tokens();
  m.local_rows = ch.local_tokens();
  m.gathered_rows = m.local_rows * p.dcp;
  for (std::size_t b = 0; b < ch.entries.size(); ++b)
    for (std::int64_t r = 0; r < p.dcp; ++r)
      m.gather.push_back({.request = ch.entries[b].request,
                          .rank = static_cast<int>(r),
                          .src = ch.entries[b].local_start,
                          .dst = ch.padded_local_cu[b],
                          .len = ch.entries[b].kept[static_cast<std::size_t>(r)]});
  return m;
}

// The same with every rank attending its whole padded rows: past the span they hold the next
// chunk's keys, new-token rows or stale slots.
inline ChunkMovement local_attention_padded(const Plan& p, const Chunk& ch) {
  ChunkMovement m = local_attention(p, ch);
  for (std::size_t i = 0; i < m.gather.size(); ++i)
    m.gather[i].len = ch.entries[i / static_cast<std::size_t>(p.dcp)].padded_local_len;
  return m;
}

}  // namespace cp::test_movements

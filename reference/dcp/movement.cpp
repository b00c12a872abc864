#include "reference/dcp/movement.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace cp {

ChunkMovement chunk_movement(const Plan& p, const Chunk& ch) { return p.version_info().family->movement(p, ch); }

bool vllm_shaped(const ChunkMovement& m) {
  return m.exchange != Exchange::local_attend && m.layout == GatherLayout::rank_major && !m.gather_per_rank &&
         std::all_of(m.reorg.begin(), m.reorg.end(), [](const CopyRun& r) { return r.dst_stride == 1; });
}

void require_vllm_shaped(const ChunkMovement& m, const char* consumer) {
  if (!vllm_shaped(m))
    throw std::invalid_argument(std::string(consumer) +
                                " executes vLLM's movement only (gather, rank-major all-gather, reorg); this plan's "
                                "movement (per-rank gathers, an interleaved layout, strided keep runs or local "
                                "attention) is checked by the invariants but not yet run by the numerics");
}

}  // namespace cp

// vLLM's context data movement (spec §3.3-§3.5), shared by its two planner families
// (floor-divide and packed): without DCP the version's gather kernel; under DCP every rank's
// cp_gather_cache of its padded local rows, the rank-major all-gather, and reorg's kept rows.
#pragma once

#include "reference/planner/movement.h"

namespace cp {
struct Plan;
struct Chunk;
ChunkMovement vllm_chunk_movement(const Plan& p, const Chunk& ch);
}  // namespace cp

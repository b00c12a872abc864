// The context data movement of one chunk, computed ONCE from the plan by the plan's family
// (FamilyInfo::movement, in the vocabulary of reference/planner/movement.h). The token-level
// simulation (simulate.h) classifies rows by walking it; the CPU numerics (reference/mla) and
// the GPU pipeline (kernels/) execute it. Nobody else derives these indices.
#pragma once

#include "reference/planner/movement.h"
#include "reference/planner/plan.h"

namespace cp {

ChunkMovement chunk_movement(const Plan& p, const Chunk& ch);

// vLLM's shape of movement (no per-rank gathers, rank-major all-gather, unit-stride keep runs):
// the one the numerics drivers execute today; others they refuse by name (require_vllm_shaped).
bool vllm_shaped(const ChunkMovement& m);
void require_vllm_shaped(const ChunkMovement& m, const char* consumer);

}  // namespace cp

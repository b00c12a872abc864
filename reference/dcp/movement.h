// The context data movement of one chunk, computed ONCE from the plan by the plan's family
// (FamilyInfo::movement, in the vocabulary of reference/planner/movement.h). The token-level
// simulation (simulate.h) classifies rows by walking it; the CPU numerics (reference/mla) and
// the GPU pipeline (kernels/) execute it. Nobody else derives these indices: the clipping of a
// run to its buffers and the rows each plan entry attends are here, once, for all three.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/planner/movement.h"
#include "reference/planner/plan.h"

namespace cp {

ChunkMovement chunk_movement(const Plan& p, const Chunk& ch);

// vLLM's shape of movement (every rank runs every gather run, rank-major all-gather, unit-stride
// keep runs): the shape the DCP index fuzzer rebuilds independently (fuzz_dcp_index.cpp 3).
bool vllm_shaped(const ChunkMovement& m);

// A gather run as it executes: the rows that fit the send buffer of m.local_rows rows (the
// engines' index_select / cp_gather_cache write no further; len 0 when none fit).
CopyRun clip_gather(const ChunkMovement& m, const CopyRun& g);
// A keep run as it executes: the rows k whose source lies in the all-gather output
// [0, gathered_rows) and whose destination dst + k * dst_stride lies in [0, total_rows), as one
// run (both conditions hold on one interval of k); len 0 when none.
CopyRun clip_keep(const ChunkMovement& m, const CopyRun& run);

// Workspace rows one plan entry attends. With all_gather / none: its rows [cu_b, cu_b+1) of the
// workspace. With local_attend: the "workspace" is the ranks' buffers rank-major (rank r's row j
// at r * local_rows + j: simulate_chunk's layout, a local_attend movement is rank_major) and the entry attends, on each
// rank, the rows that rank gathered for the entry's request; the ranks' partial results merge by LSE.
struct AttendSpan {
  int rank = 0;  // the rank that attends the rows (0 unless local_attend)
  std::int64_t lo = 0, hi = 0;
};
std::vector<AttendSpan> attended_spans(const ChunkMovement& m, const Chunk& ch, std::size_t entry, std::int64_t ranks);
// Rows of the workspace the numerics build for the chunk: total_rows, or W * local_rows under
// local attention.
std::int64_t workspace_rows(const ChunkMovement& m, std::int64_t ranks);

}  // namespace cp

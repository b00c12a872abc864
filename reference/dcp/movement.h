// The context data movement of one chunk (spec §3.3-§3.5), computed ONCE from the plan: which
// rows each gather copies, the all-gather layout and reorg's keep segments. The token-level
// simulation (simulate.h) classifies rows by walking it; the CPU numerics (reference/mla) and
// the GPU pipeline (kernels/) execute it. Nobody else derives these indices.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/planner/plan.h"

namespace cp {

// `len` rows starting at `src` land at rows starting at `dst`.
struct CopyRun {
  int request = 0;
  int rank = 0;  // reorg: the rank whose rows these are; 0 otherwise
  std::int64_t src = 0;
  std::int64_t dst = 0;
  std::int64_t len = 0;
  friend bool operator==(const CopyRun&, const CopyRun&) = default;
};

struct ChunkMovement {
  bool dcp = false;
  std::int64_t total_rows = 0;     // attention reads workspace rows [0, total) (global cu_seq_lens)
  std::int64_t local_rows = 0;     // DCP: rows of every rank's local workspace (toks)
  std::int64_t gathered_rows = 0;  // DCP: W * toks rows of the all-gather output, rank-major
  std::int64_t reorg_rows = 0;     // DCP: rows reorg produces before clipping (sum of kept)
  // Without DCP: src = the first global position the version's kernel copies (the batch-grid
  // kernel starts at the page holding `start`), dst = workspace row.
  // Under DCP: the gather EVERY rank runs on its own shard (cp_gather_cache): src = first local
  // slot, dst = row of the rank's local workspace; the rank's slot k holds global position
  // global_position(k, rank, I, W).
  std::vector<CopyRun> gather;
  // DCP: reorg keeps rows [src, src+len) of the all-gather output (rank r's rows start at
  // r * local_rows) at workspace rows [dst, dst+len), per request then per rank; runs are
  // clipped to both buffers (torch slicing clamps) and empty runs dropped.
  std::vector<CopyRun> reorg;
};

ChunkMovement chunk_movement(const Plan& p, const Chunk& ch);

}  // namespace cp

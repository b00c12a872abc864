// Token-level simulation of the context data movement of one chunk (spec §3.3-§3.5):
// gather (per rank under DCP) -> all-gather -> reorg, as index maps. For every workspace
// row it says which request's which position the row really holds. This is the ground
// truth the invariants approximate and the data the numerics attend to.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/caseio/batch.h"
#include "reference/dcp/movement.h"
#include "reference/planner/plan.h"

namespace cp {

enum class RowKind : std::uint8_t {
  context,    // a context position of `request` (position < ctx)
  new_token,  // KV of one of the request's new tokens of this step (ctx <= position < ctx+q)
  stale,      // a slot past what the request wrote, or a workspace row nothing wrote this chunk
};

// How a violation names a row's kind (I-9 token level and interval level say it the same way).
inline const char* row_kind_name(RowKind k) {
  switch (k) {
    case RowKind::context: return "context";
    case RowKind::new_token: return "new-token KV";
    case RowKind::stale: return "stale";
  }
  return "?";
}

struct RowSource {
  int request = -1;            // -1 for stale rows with no owner
  std::int64_t position = -1;  // global position in that request's sequence
  RowKind kind = RowKind::stale;
  friend bool operator==(const RowSource&, const RowSource&) = default;
};

// Which row a position of `request` is: context, a new token of this step, or stale.
RowSource classify(const Batch& b, int request, std::int64_t position);

// Local rows rank `rank` gathers for a chunk, in its local workspace order (rows [0, toks)).
std::vector<RowSource> gather_rank(const Batch& b, const Plan& p, const Chunk& ch, std::int64_t rank);
std::vector<RowSource> gather_rank(const Batch& b, const Plan& p, const ChunkMovement& m, std::int64_t rank);

// The all-gather output: every rank's send buffer laid out as the movement's layout says
// (W * local_rows rows). Under local attention: rank r's attended rows at [r*L, (r+1)*L).
std::vector<RowSource> all_gather(const Batch& b, const Plan& p, const ChunkMovement& m);

// Workspace rows [0, chunk.total_tokens()) as attention reads them. Under DCP: every rank's
// gather, the all-gather and the keep runs; rows the keep map did not produce read whatever the
// buffer held (stale). Without DCP: the version's gather kernel. Under local attention: the
// ranks' attended rows, rank-major (all_gather), merged by LSE afterwards.
std::vector<RowSource> simulate_chunk(const Batch& b, const Plan& p, const Chunk& ch);
// The same for a movement given directly (p supplies W and the interleave only).
std::vector<RowSource> simulate_chunk(const Batch& b, const Plan& p, const ChunkMovement& m);

}  // namespace cp

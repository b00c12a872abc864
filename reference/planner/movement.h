// The data movement of one chunk: the part of the plan value that says, per rank, which rows
// reach attention (DESIGN §9 "one plan value for every engine"). A family describes its engine's
// movement in this one vocabulary (FamilyInfo::movement); every consumer — the token-level
// simulation and the universal invariants on it, the CPU numerics, the GPU pipeline — executes
// the description and never re-derives an index. The engines' movements, as runs:
//  - no context parallelism: one gather per request straight into the workspace;
//  - gather + all-gather + keep map (vLLM's reorg, ATOM's ag_row_indices, SGLang's slice of the
//    transposed all-gather, TokenSpeed's reconstruction index): every rank gathers rows of its
//    own shard into a send buffer of `local_rows` rows, the all-gather lays the ranks' buffers
//    out rank-major or row-interleaved, and keep runs copy gathered rows to workspace rows;
//  - local attention (vLLM's PCP x DCP local shard): every rank attends the rows it gathered,
//    and the partial results merge across ranks by LSE; nothing is exchanged before attention.
#pragma once

#include <cstdint>
#include <vector>

namespace cp {

enum class Exchange : std::uint8_t {
  none,          // W = 1: gather runs write workspace rows directly
  all_gather,    // gather -> all-gather (layout) -> keep runs
  local_attend,  // gather -> attention on each rank -> LSE merge across ranks
};

// Where rank r's send row j lands in the all-gather output (W ranks, L = local_rows).
enum class GatherLayout : std::uint8_t {
  rank_major,       // r * L + j  (NCCL all-gather into one buffer: vLLM, ATOM, TokenSpeed)
  row_interleaved,  // j * W + r  (the all-gather output transposed: SGLang)
};

// `len` rows: row src + k lands at row dst + k * dst_stride.
struct CopyRun {
  int request = 0;
  int rank = 0;  // keep: whose rows these are; gather: the rank that runs it (gather_per_rank)
  std::int64_t src = 0;
  std::int64_t dst = 0;
  std::int64_t len = 0;
  std::int64_t dst_stride = 1;  // TokenSpeed's reconstruction puts one rank's rows W apart
  friend bool operator==(const CopyRun&, const CopyRun&) = default;
};

struct ChunkMovement {
  Exchange exchange = Exchange::none;
  bool dcp = false;  // exchange != none (the consumers' first question)
  GatherLayout layout = GatherLayout::rank_major;
  bool gather_per_rank = false;    // gather runs apply to run.rank only (else: every rank runs each)
  std::int64_t total_rows = 0;     // attention reads workspace rows [0, total) (global cu_seq_lens)
  std::int64_t local_rows = 0;     // DCP: rows of every rank's send buffer / local workspace
  std::int64_t gathered_rows = 0;  // all_gather: W * local_rows rows of the all-gather output
  std::int64_t reorg_rows = 0;     // all_gather: rows the keep map produces before clipping
  // Without DCP: src = the first global position the version's kernel copies, dst = workspace row.
  // Under DCP: src = first local slot of the rank's shard (slot k holds global position
  // global_position(k, rank, I, W), reference/dcp/ownership.h), dst = row of its send buffer.
  std::vector<CopyRun> gather;
  // all_gather: keep runs from the all-gather output to the workspace (clipped to both buffers,
  // empty runs dropped). local_attend: empty.
  std::vector<CopyRun> reorg;
};

// Where rank r's send row j sits in the all-gather output.
inline std::int64_t gathered_row(const ChunkMovement& m, std::int64_t rank, std::int64_t row, std::int64_t ranks) {
  return m.layout == GatherLayout::rank_major ? rank * m.local_rows + row : row * ranks + rank;
}

// Does rank `rank` run gather run g?
inline bool runs_on(const ChunkMovement& m, const CopyRun& g, std::int64_t rank) {
  return !m.gather_per_rank || g.rank == rank;
}

}  // namespace cp

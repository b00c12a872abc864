// What a PCP plan carries besides the selected rank's v6 chunks (vllm-pcp-and-sparse.md §1.2-§1.7):
// every rank's rows (RankSegment: global request, absolute start, length) and, per rank, the
// collectives its v6 plan would issue, so the P- checks see every rank without re-planning.
#pragma once

#include <cstdint>
#include <vector>

namespace cp {

struct PcpRow {
  int request = 0;         // the global request (case index)
  std::int64_t start = 0;  // absolute position of its first token: the row's context in v6 (§1.7)
  std::int64_t len = 0;    // its new tokens on this rank
  bool prefilling = true;  // the request's is_prefilling (decode rows: false)
  friend bool operator==(const PcpRow&, const PcpRow&) = default;
};

// One PCP rank: its rows in the manager's order and what its v6 plan over them does.
struct PcpRank {
  std::vector<PcpRow> rows;
  int num_decodes = 0;                 // split_decodes_and_prefills' boundary over the rows
  bool context_path = false;           // some prefill row has context: the chunked-context path runs
  bool built = false;                  // its v6 plan was produced (no plan-time assert)
  std::vector<std::int64_t> gathered;  // per chunk: the rows each DCP rank all-gathers (DCP) or gathers
  std::int64_t tokens = 0;             // T_r
};

struct PcpLayout {
  std::int64_t size = 1;  // P
  int rank = 0;           // the rank whose v6 plan is the plan's chunks (pcp_rank)
  std::int64_t tp = 1;
  std::vector<PcpRank> ranks;
  // The selected rank's rows as the requests v6 plans (ctx = start, q = len): the batch every
  // check reads for this plan (batch_of in plan.h).
  std::vector<std::int64_t> batch_ctx, batch_q;
};

}  // namespace cp

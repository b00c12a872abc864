// What a PCP plan carries besides the selected rank's v6 chunks (vllm-pcp-and-sparse.md §1.2-§1.7):
// every rank's rows (RankSegment: global request, absolute start, length) and, per rank, the
// collectives its v6 plan would issue, so the P- checks see every rank without re-planning.
#pragma once

#include <cstdint>
#include <vector>

namespace cp {

struct PcpRow {
  int request = 0;          // the global request (case index)
  std::int64_t start = 0;   // absolute position of its first token: the row's context in v6 (§1.7)
  std::int64_t len = 0;     // its new tokens on this rank
  bool prefilling = true;   // the request's is_prefilling (decode rows: false)
  bool replicated = false;  // the same row on every rank: a decode, or PCP-C's unsplit short prefill
  friend bool operator==(const PcpRow&, const PcpRow&) = default;
};

// PCP context reuse (§2, #57668): rows a and b of one request, adjacent on a rank, merged into one
// row of the rank's plan batch (PcpLayout::batch_*): a's tokens first, then b's.
struct PcpMerge {
  int row_a = 0;  // the rank's row indices (PcpRank::rows), b == a + 1
  int row_b = 0;
  int merged = 0;             // its index in the merged batch (the plan's chunk requests)
  std::int64_t tail_len = 0;  // ctx_b - (ctx_a + q_a): R-1 wants >= 0
};

// One PCP rank: its rows in the manager's order and what its v6 plan over them does.
struct PcpRank {
  std::vector<PcpRow> rows;
  std::vector<PcpMerge> merges;        // ctx_reuse: the pairs merged (empty: the v6 fallback ran)
  bool reused = false;                 // ctx_reuse's plan ran (its conditions held), not the v6 fallback
  std::int64_t padded_reqs = 0;        // the local request count after the manager's padding (PCP-A: to P)
  int num_decodes = 0;                 // split_decodes_and_prefills' boundary over the rows
  bool context_path = false;           // some prefill row has context: the chunked-context path runs
  bool built = false;                  // its v6 plan was produced (no plan-time assert)
  std::vector<std::int64_t> gathered;  // per chunk: the rows each DCP rank all-gathers (DCP) or gathers
  std::int64_t tokens = 0;             // T_r
};

// The step's all-gathered token layout (§1.5; vLLM 0036d38d PCPManager._build_batch_layout and
// _convert_to_gathered_slot_mappings): gathered slot g holds global token gather_idx[g]; the KV
// write of every rank re-indexes the global slot mapping through it and writes PAD where
// write_mask[g] is false; hidden states come back through restore[t].
struct PcpGathered {
  std::int64_t t_pad = 0;                 // T_pad: max_r T_r, or the CUDA-graph padded_num_tokens
  std::vector<std::int64_t> rank_offset;  // where rank r's slot 0 lands (r * T_pad, or the compacted sum)
  std::vector<std::int64_t> gather_idx;   // per gathered slot: the global token (0 for padding)
  std::vector<std::int64_t> position;     // per gathered slot: its position (0 for padding)
  std::vector<int> request;               // per gathered slot: its global request (-1 for padding)
  std::vector<char> write_mask;           // per gathered slot: the slot's KV is written (prefill, or rank 0's decode)
  std::vector<std::int64_t> restore;      // hidden_restore_idx: per global token, its gathered slot
  std::vector<std::int64_t> global_request;  // per global token (query_start_loc order): its request
  std::vector<std::int64_t> global_position;
};

struct PcpLayout {
  std::int64_t size = 1;  // P
  int rank = 0;           // the rank whose v6 plan is the plan's chunks (pcp_rank)
  std::int64_t tp = 1;
  std::int64_t max_num_seqs = 0;  // mns for the manager's row bound (P-8); 0: not given
  std::vector<PcpRank> ranks;
  PcpGathered gathered;
  // The selected rank's rows as the requests v6 plans (ctx = start, q = len), or under ctx_reuse
  // its merged rows (a merged row: ctx = ctx_b, q = q_a + q_b, lead = row a): the batch every
  // check reads for this plan (batch_of in plan.h).
  std::vector<std::int64_t> batch_ctx, batch_q, batch_lead_ctx, batch_lead_q;
};

}  // namespace cp

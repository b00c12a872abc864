// split_indexer_prefill_chunks (vllm-pcp-and-sparse.md §5.2) as a function of the prefill rows'
// K-row counts and query lengths: the indexer family's planner and the fidelity test (vLLM's
// tests/v1/attention/test_sparse_mla_backends.py expected values) call this one copy.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace cp {

// One row slice [row_start, row_end) with M query tokens and k_rows K rows, cut into query
// sub-slices of max_q tokens: [0, max_q), [max_q, 2 max_q), ... < M.
struct IndexerSlice {
  std::size_t row_start = 0, row_end = 0;
  std::int64_t M = 0, k_rows = 0, max_q = 0;
};
// n[i] = floor(seq_i / rho), q[i]: the prefill rows; WS the K budget; E = max_logits_bytes / 4.
std::vector<IndexerSlice> split_indexer_prefill_chunks(std::span<const std::int64_t> n, std::span<const std::int64_t> q,
                                                       std::int64_t WS, std::int64_t E);

}  // namespace cp

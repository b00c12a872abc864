// The local-shard family's rules and steps (vllm-pcp-and-sparse.md §3; vLLM
// vllm/model_executor/layers/attention/mla_pcp.py at b4a0027c and 0268d827). Under PCP x DCP with
// DCP = P every DCP rank attends its own shard of each chunk (no all-gather, no reorg) and the
// ranks' partials meet in one LSE combine over the DCP group; with DCP = TP*P the ordinary
// gather -> all-gather -> reorg path runs. The chunk metadata is the floor-divide (old batch-column)
// planner's: starts c*PL, padded local lengths; this file adds only what the local path computes
// from it. Templates over the number type, as every family's steps.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "reference/arith/ops.h"

namespace cp {

// §3.1: mla_pcp.py's _compute_dcp_prefill_context dispatch on dcp_tp_size = DCP / P.
enum class LocalShardPath : std::uint8_t {
  local_shard,   // dcp_tp_size == 1 (DCP = P): _compute_pcp_dcp_prefill_context
  gather_reorg,  // DCP = TP*P, TP > 1: _context_parallel_compute_prefill_context (all-gather + reorg)
};
inline constexpr std::array kLocalShardPaths{LocalShardPath::local_shard, LocalShardPath::gather_reorg};
constexpr std::string_view name(LocalShardPath p) {
  return p == LocalShardPath::local_shard ? "local_shard" : "gather_reorg";
}

namespace steps {

// §3.1: the path the dispatch takes for DCP size W over P PCP ranks (dcp_tp_size = W / P).
inline LocalShardPath local_shard_path(std::int64_t W, std::int64_t P) {
  return W / P == 1 ? LocalShardPath::local_shard : LocalShardPath::gather_reorg;
}

// §3.2 (build_pcp_chunked_context_metadata): the real local rows of one prefill in chunk c on a
// rank whose share of the context is L = get_dcp_local_seq_lens(ctx, W, rank, I):
// l = clamp(min(L, s + PL) - s, 0) with s = c * PL (the old planner's local_chunk_starts).
template <class N>
N local_shard_rows(const N& L, const N& s, const N& PL) {
  return max(min(L, s + PL) - s, lit(L, 0));
}

// The global positions a chunk's local rows [s, s + PL) stand for on every rank: with PL a
// multiple of I, local row k of rank r holds position (k / I) * V + r * I + k mod I, so the ranks'
// rows of chunk c are the positions [s * W, (s + PL) * W) of the context (C-4: no global span of
// the old planner is used, the union is what the ranks attend).
template <class N>
N local_shard_span_start(const N& ctx, const N& s, const N& W) {
  return min(ctx, s * W);
}
template <class N>
N local_shard_span_len(const N& ctx, const N& s, const N& PL, const N& W) {
  return min(ctx, (s + PL) * W) - local_shard_span_start(ctx, s, W);
}

}  // namespace steps
}  // namespace cp

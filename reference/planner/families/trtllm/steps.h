// The TensorRT-LLM family's steps (PyTorch backend, tensorrt_llm/_torch/attention_backend/
// trtllm.py; other-engines.md §4): the chunked-context loops of context MLA. No DCP in the
// chunked path (Helix context parallelism is decode-only). Before #7477 every request's context
// is cut into columns of chunk_size (rectangular_steps.h with chunk_len = chunk_size); from
// #7477 on the contexts are packed in request order into loops of T = chunk_size * BBS rows.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "reference/arith/ops.h"
#include "reference/planner/families/rectangular_steps.h"

namespace cp {

// How a TensorRT-LLM version splits the cached context (versions.h: VersionInfo::trtllm).
enum class TrtllmSplit : std::uint8_t {
  per_request_columns,  // R1 (#4651 era): len[c][i] = clip(c_i - c*chunk_size, 0, chunk_size)
  packed,               // R2 (#7477 on): greedy packing into loops of T rows, chunked_global_offset
  none,                 // SM < 100 (R4): no chunking, forward_context_with_cached_kv gathers it all
};
inline constexpr std::array kTrtllmSplits{TrtllmSplit::per_request_columns, TrtllmSplit::packed, TrtllmSplit::none};
constexpr std::string_view name(TrtllmSplit s) {
  switch (s) {
    case TrtllmSplit::per_request_columns: return "per_request_columns";
    case TrtllmSplit::packed: return "packed";
    case TrtllmSplit::none: return "none";
  }
  return "?";
}

struct TrtllmRules {
  TrtllmSplit split = TrtllmSplit::packed;
};

// chunked_prefill_buffer_batch_size (R3 interface.py): T = BBS * chunk_size rows per loop.
inline constexpr std::int64_t kTrtllmBufferBatchSize = 4;

namespace steps {

// Loop c of the packed split covers [c*T, (c+1)*T) of the contexts concatenated in request
// order; request i (at offset off) gets len[c][i] = clip0(min(off + ctx, (c+1)*T) - max(off, c*T)).
template <class N>
N trtllm_packed_len(const N& off, const N& ctx, const N& chunk, const N& T) {
  const N g0 = chunk * T;
  return max(min(off + ctx, g0 + T) - max(off, g0), lit(ctx, 0));
}

}  // namespace steps
}  // namespace cp

// Step 1 of every planner (spec §1): the version's determine_chunked_prefill_workspace_size, as
// a rule a version row names. A new sizing rule is one enum value, its case below and its
// formula in arith.h; the prover's self-check iterates kSizingRules, so it checks the new rule
// with no edit.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "reference/planner/arith.h"

namespace cp {

enum class SizingRule {
  v0_128k,                    // S1: min(max(8*mml, 4*mns*B), 128K); init assert S >= mns*B
  legacy,                     // S2-S5: 64K cap, then max(S, mns*B) (#25478)
  pr41229,                    // legacy rounded down to a multiple of W
  packed_v5,                  // #50484: round_up(max(S0, mns*A), A)
  packed_v6,                  // #51733 (vLLM 903ecb17): no mns floor; round_up(max(S0, A), A) with or without DCP
  atom_chunk_size,            // ATOM: attn_prefill_chunk_size, a config value (default 16384, atom/config.py)
  tokenspeed_chunk_capacity,  // TokenSpeed: C = chunked_prefill_size * mla_chunk_multiplier (8192 * 4)
  sglang_kv_chunk_capacity,   // SGLang: SGLANG_MAX_KV_CHUNK_CAPACITY (131072; G1 hard-codes 128 * 1024)
  trtllm_kv_buffer,           // TensorRT-LLM: BBS * max_num_tokens = 4 * 8192 context K/V workspace rows
  sparse_mla,                 // vLLM sparse builder (Q11): max(min(max(8*mml, 4*mns*B), 65536, mns*topk), mns*B)
  indexer_workspace,          // vLLM sparse indexer (#36178): WS = 40 * mml K rows
  gathered_prefill,           // vLLM FlashMLA sparse PCP x DCP (#56157): max_gathered_rows = 5 * mml
};
inline constexpr std::array kSizingRules{SizingRule::v0_128k,
                                         SizingRule::legacy,
                                         SizingRule::pr41229,
                                         SizingRule::packed_v5,
                                         SizingRule::packed_v6,
                                         SizingRule::atom_chunk_size,
                                         SizingRule::tokenspeed_chunk_capacity,
                                         SizingRule::sglang_kv_chunk_capacity,
                                         SizingRule::trtllm_kv_buffer,
                                         SizingRule::sparse_mla,
                                         SizingRule::indexer_workspace,
                                         SizingRule::gathered_prefill};
constexpr std::string_view name(SizingRule r) {
  switch (r) {
    case SizingRule::v0_128k: return "v0_128k";
    case SizingRule::legacy: return "legacy";
    case SizingRule::pr41229: return "pr41229";
    case SizingRule::packed_v5: return "packed_v5";
    case SizingRule::packed_v6: return "packed_v6";
    case SizingRule::atom_chunk_size: return "atom_chunk_size";
    case SizingRule::tokenspeed_chunk_capacity: return "tokenspeed_chunk_capacity";
    case SizingRule::sglang_kv_chunk_capacity: return "sglang_kv_chunk_capacity";
    case SizingRule::trtllm_kv_buffer: return "trtllm_kv_buffer";
    case SizingRule::sparse_mla: return "sparse_mla";
    case SizingRule::indexer_workspace: return "indexer_workspace";
    case SizingRule::gathered_prefill: return "gathered_prefill";
  }
  return "?";
}

// ATOM's default attn_prefill_chunk_size (A2 atom/config.py l.1428-1452); `workspace=` sets it.
inline constexpr std::int64_t kAtomDefaultChunkSize = 16384;
// TokenSpeed's chunk capacity with chunked_prefill_size and mla_chunk_multiplier unset: 8192 * 4
// (T3 server_args.py l.323, l.478); `workspace=` sets C.
inline constexpr std::int64_t kTokenSpeedDefaultCapacity = 8192 * 4;
// SGLang's chunk capacity C: SGLANG_MAX_KV_CHUNK_CAPACITY (G8 environ.py; G1's constant 128 * 1024).
inline constexpr std::int64_t kSGLangDefaultCapacity = 131072;
// TensorRT-LLM's context K/V workspace: chunked_prefill_buffer_batch_size (4, R3) x max_num_tokens
// (default 8192; chunk_size = max_num_tokens, R6) rows, R5's floor; `workspace=` sets it.
inline constexpr std::int64_t kTrtllmDefaultKvBuffer = 4 * 8192;
// DeepSeek V3.2's index_topk (config.json), which the sparse builder's S_sparse reads (Q11).
inline constexpr std::int64_t kSparseIndexTopk = 2048;
// The sparse indexer's K workspace: 40 * mml rows, "40 = (576 * 2 // 132) * 5" (#36178: 132-byte
// entries inside FlashMLA's 5 * mml x 1152 B workspace).
inline constexpr std::int64_t kIndexerWorkspaceMult = 40;
// FlashMLA sparse's gathered prefill workspace: max_gathered_rows = 5 * mml (#56157).
inline constexpr std::int64_t kGatheredWorkspaceMult = 5;

namespace steps {

// The sized workspace S and, for a rule that ends in a rounding, that rounding's named
// quantities (S = q*multiple; arith.h's Rounding): what a proof about S lists.
template <class N>
struct Sizing {
  N S;
  std::optional<arith::Rounding<N>> rounding;
};
template <class N>
Sizing<N> workspace_sizing(SizingRule r, const N& mml, const N& mns, const N& B, const N& W, const N& I) {
  auto rounded = [](const arith::Rounding<N>& k) { return Sizing<N>{k.parts.value, k}; };
  switch (r) {
    case SizingRule::v0_128k: return {arith::workspace_v0(mml, mns, B), std::nullopt};
    case SizingRule::legacy: return {arith::workspace_legacy(mml, mns, B), std::nullopt};
    case SizingRule::pr41229: return rounded(arith::workspace_pr41229_rounding(mml, mns, B, W));
    case SizingRule::packed_v5: return rounded(arith::workspace_v5_rounding(mml, mns, B, W, I));
    case SizingRule::packed_v6: return rounded(arith::workspace_v6_rounding(mml, mns, B, W, I));
    case SizingRule::atom_chunk_size: return {lit(mml, kAtomDefaultChunkSize), std::nullopt};
    case SizingRule::tokenspeed_chunk_capacity: return {lit(mml, kTokenSpeedDefaultCapacity), std::nullopt};
    case SizingRule::sglang_kv_chunk_capacity: return {lit(mml, kSGLangDefaultCapacity), std::nullopt};
    case SizingRule::trtllm_kv_buffer: return {lit(mml, kTrtllmDefaultKvBuffer), std::nullopt};
    case SizingRule::sparse_mla:
      return {max(min(min(max(lit(mml, 8) * mml, lit(mml, 4) * mns * B), lit(mml, 65536)),
                      mns * lit(mml, kSparseIndexTopk)),
                  mns * B),
              std::nullopt};
    case SizingRule::indexer_workspace: return {lit(mml, kIndexerWorkspaceMult) * mml, std::nullopt};
    case SizingRule::gathered_prefill: return {lit(mml, kGatheredWorkspaceMult) * mml, std::nullopt};
  }
  throw std::logic_error("unknown sizing rule");
}
template <class N>
N workspace_size(SizingRule r, const N& mml, const N& mns, const N& B, const N& W, const N& I) {
  return workspace_sizing(r, mml, mns, B, W, I).S;
}
// S1's init assert: the workspace holds one page per sequence.
template <class N>
auto v0_init_assert_holds(const N& S, const N& mns, const N& B) {
  return S >= mns * B;
}

}  // namespace steps
}  // namespace cp

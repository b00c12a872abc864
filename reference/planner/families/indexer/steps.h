// The sparse indexer family's steps (vllm-pcp-and-sparse.md §5; vLLM #36178,
// vllm/v1/attention/backends/mla/indexer.py split_indexer_prefill_chunks and
// build_prefill_chunk_metadata): the prefill rows are cut into row slices whose compressed K rows
// fit the K workspace WS and whose logits (query tokens x K rows, fp32) fit E; a slice whose
// logits do not fit is cut again into query sub-slices that share the slice's one K gather.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "reference/arith/ops.h"

namespace cp {

// Which K buffer the indexer's consumer allocates (versions.h: VersionInfo::indexer).
enum class IndexerConsumer : std::uint8_t {
  workspace,         // DeepSeek V3.2: the chunker's WS rows
  divided_by_ratio,  // DeepSeek V4 (vllm/models/deepseek_v4/attention.py, #51252): floor(WS / rho) rows
};
inline constexpr std::array kIndexerConsumers{IndexerConsumer::workspace, IndexerConsumer::divided_by_ratio};
constexpr std::string_view name(IndexerConsumer c) {
  switch (c) {
    case IndexerConsumer::workspace: return "workspace";
    case IndexerConsumer::divided_by_ratio: return "divided_by_ratio";
  }
  return "?";
}

struct IndexerRules {
  IndexerConsumer consumer = IndexerConsumer::workspace;
  bool compresses = false;  // the model has a compress ratio (V4); V3.2 accepts only compress_ratio=1
};

// VLLM_SPARSE_INDEXER_MAX_LOGITS_MB's default (#36178; 256 on sm12x in a later test copy).
inline constexpr std::int64_t kIndexerDefaultLogitsMb = 512;

namespace steps {

// The compressed K rows of a request of seq tokens: n = floor(seq / rho).
template <class N>
N indexer_k_rows(const N& seq, const N& rho) {
  return floordiv(seq, rho);
}
// The inner loop's admission: the next row joins the slice while its K rows fit WS and the
// slice's logits (M + q) * (Nn + n) fit E.
template <class N>
auto indexer_admits(const N& M, const N& Nn, const N& q, const N& n, const N& WS, const N& E) {
  return Nn + n <= WS && (M + q) * (Nn + n) <= E;
}
// Query tokens per sub-slice: max(1, E // Nn), or the whole slice when it has no K rows. (A
// select, so the prover runs it too; the divisor max(Nn, 1) is Nn wherever the branch is taken.)
template <class N>
N indexer_max_q(const N& M, const N& Nn, const N& E) {
  const N one = lit(Nn, 1);
  return select(Nn > lit(Nn, 0), max(floordiv(E, max(Nn, one)), one), M);
}
// build_prefill_chunk_metadata's ke - ks for query token k of a row of seq tokens, q of them new:
// causal over the compressed sequence, floor((seq - q + 1 + k) / rho) K rows.
template <class N>
N indexer_key_len(const N& seq, const N& q, const N& k, const N& rho) {
  return floordiv(seq - q + lit(seq, 1) + k, rho);
}
// The consumer's K buffer rows.
template <class N>
N indexer_consumer_rows(IndexerConsumer c, const N& WS, const N& rho) {
  return c == IndexerConsumer::divided_by_ratio ? floordiv(WS, rho) : WS;
}

}  // namespace steps
}  // namespace cp

// vLLM's sparse indexer prefill chunker (vllm-pcp-and-sparse.md §5.2; #36178,
// vllm/v1/attention/backends/mla/indexer.py split_indexer_prefill_chunks and
// build_prefill_chunk_metadata, code-index 51768060791). A request of seq = ctx + q tokens has
// n = floor(seq / rho) compressed K rows. The plan value: one chunk per emitted (row slice, query
// sub-slice); its entries are the slice's requests with spans [0, n) of their compressed K rows
// (the K gather), token_start/token_end the sub-slice in prefill-token space, and
// is_continuation = skip_kv_gather (a later sub-slice reuses the K rows the first gathered).
// plan.workspace = WS (the chunker's K budget: I-4 is E-1), plan.workspace_rows = the consumer's
// K buffer (E-3), plan.logits_budget = E (E-2). A slice with no K rows at all (every seq < rho)
// is dropped: its token range goes to plan.empty_token_ranges (E-5).
#include <algorithm>

#include "reference/planner/families/indexer/family.h"
#include "reference/planner/families/indexer/split.h"
#include "reference/planner/families/vllm/movement.h"
#include "reference/planner/planner_internal.h"

namespace cp {

std::vector<IndexerSlice> split_indexer_prefill_chunks(std::span<const std::int64_t> n, std::span<const std::int64_t> q,
                                                       std::int64_t WS, std::int64_t E) {
  std::vector<IndexerSlice> out;
  std::size_t end = 0;
  while (end < n.size()) {
    IndexerSlice s;
    s.row_start = end;
    Int M = 0, Nn = 0;
    while (end < n.size() && steps::indexer_admits(M, Nn, Int(q[end]), Int(n[end]), Int(WS), Int(E))) {
      M = M + q[end];
      Nn = Nn + n[end];
      ++end;
    }
    if (end == s.row_start) {  // one request alone breaks a budget: taken anyway
      M = q[end];
      Nn = n[end];
      ++end;
    }
    s.row_end = end;
    s.M = M.get();
    s.k_rows = Nn.get();
    // The code copy's max_q is 0 for a slice with M = 0 and no K rows (range step 0 raises); the
    // test expects [] for seq=[0], q=[0] (EB-2): here such a slice emits nothing. The case format
    // never has one (every prefill has q >= 2).
    s.max_q = steps::indexer_max_q(M, Nn, Int(E)).get();
    if (s.M > 0) out.push_back(s);
  }
  return out;
}

}  // namespace cp

namespace cp::detail {
namespace {

// Tighter than make_plan's general limits: a real step has at most a few thousand sub-slices
// (mnbt tokens over max_q = E // sum n >= 20 at the default 512 MiB and WS = 40 * mml), and a
// million one-token sub-slices would cost the fuzzers more than every other family together.
constexpr std::int64_t kMaxIndexerSubSlices = std::int64_t{1} << 16;
constexpr std::int64_t kMaxIndexerEntries = std::int64_t{1} << 20;

void refuse_oversize(const std::vector<IndexerSlice>& slices) {
  std::int64_t chunks = 0, entries = 0;
  for (const auto& s : slices) {
    const std::int64_t k = cdiv(Int(s.M), Int(s.max_q)).get();
    chunks += k;
    entries += k * static_cast<std::int64_t>(s.row_end - s.row_start);
    if (chunks > kMaxIndexerSubSlices || entries > kMaxIndexerEntries)
      throw CaseError("max_logits_mb", "the plan would have over " + std::to_string(chunks) +
                                           " query sub-slices, over the simulation limit; raise max_logits_mb");
  }
}

void plan_indexer(const Case& c, Plan& plan) {
  const Int rho = c.compress_ratio;
  const auto& qsl = query_start_loc_scratch(c);
  const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];
  std::vector<std::int64_t> n, q;
  n.reserve(plan.prefills.size());
  q.reserve(plan.prefills.size());
  for (int r : plan.prefills) {
    const auto ri = static_cast<std::size_t>(r);
    n.push_back(steps::indexer_k_rows(Int(c.ctx[ri]) + c.q[ri], rho).get());
    q.push_back(c.q[ri]);
  }
  const std::vector<IndexerSlice> slices = split_indexer_prefill_chunks(n, q, plan.workspace, plan.logits_budget);
  refuse_oversize(slices);
  for (const auto& s : slices) {
    const std::int64_t first = qsl[static_cast<std::size_t>(plan.prefills[s.row_start])] - base;
    for (std::int64_t o = 0; o < s.M; o += s.max_q) {
      const std::int64_t len = std::min(s.max_q, s.M - o);
      if (s.k_rows == 0) {  // build_prefill_chunk_metadata: total == 0, the chunk is dropped
        plan.empty_token_ranges.emplace_back(first + o, first + o + len);
        continue;
      }
      Chunk ch = take_chunk();
      for (std::size_t k = s.row_start; k < s.row_end; ++k)
        ch.entries.push_back(ChunkEntry{.request = plan.prefills[k], .start = 0, .len = n[k]});
      finish_chunk(ch, false, qsl, base);
      ch.token_start = first + o;
      ch.token_end = ch.token_start + len;
      ch.is_continuation = o > 0;  // skip_kv_gather
      plan.chunks.push_back(std::move(ch));
    }
  }
  plan.chunk_width = plan.workspace;
  if (!plan.empty_token_ranges.empty())
    add_note(plan, [&] {
      return std::to_string(plan.empty_token_ranges.size()) +
             " query sub-slice(s) with no compressed K rows (every seq < compress_ratio) dropped: their tokens get "
             "no top-k from this step (E-5; what the top-k buffer holds for them is not analysed)";
    });
  plan.built = true;
}

// __init__-side: WS (sized 40 * mml, or workspace= as split_indexer_prefill_chunks' argument),
// the consumer's K buffer and E. Rejects a compress ratio on a model that has none, and a
// request longer than max_model_len (the scheduler never builds one).
void indexer_init(const Case& c, Plan& plan) {
  const VersionInfo& vi = info(c.version);
  if (!vi.indexer.compresses && c.compress_ratio != 1)
    throw CaseError("compress_ratio", std::string(vi.name) +
                                          " models DeepSeek V3.2, whose indexer has no compress ratio: "
                                          "compress_ratio must be 1 (DeepSeek V4: version=indexer-dsv4)");
  if (c.max_model_len)
    for (std::size_t i = 0; i < c.ctx.size(); ++i)
      if (c.ctx[i] + c.q[i] > *c.max_model_len)
        throw CaseError("ctx", "request " + std::to_string(i) + " has ctx+q = " + std::to_string(c.ctx[i] + c.q[i]) +
                                   " tokens > max_model_len=" + std::to_string(*c.max_model_len) +
                                   " (the scheduler never builds it)");
  const Int mb = c.max_logits_mb.value_or(kIndexerDefaultLogitsMb);
  plan.logits_budget = floordiv(mb * (std::int64_t{1} << 20), Int(4)).get();
  plan.row_budget = plan.workspace;
  plan.compress_ratio = c.compress_ratio;
  plan.workspace_rows =
      steps::indexer_consumer_rows(vi.indexer.consumer, Int(plan.workspace), Int(c.compress_ratio)).get();
}

}  // namespace
}  // namespace cp::detail

namespace cp {
const FamilyInfo indexer_family{
    .name = "sparse-indexer",
    .summary =
        "vLLM's sparse indexer prefill chunker (DeepSeek V3.2/V4): row slices within WS compressed K rows "
        "and E logits, query sub-slices sharing one K gather",
    .models = "vLLM v1/attention/backends/mla/indexer.py split_indexer_prefill_chunks (#36178)",
    .init = &detail::indexer_init,
    .plan = &detail::plan_indexer,
    .movement = &vllm_chunk_movement,  // one gather of each request's compressed K rows, no exchange
    .interval_level = true,            // vLLM's movement: I-9's closed form (invariants/interval/) is its exact walk
    .spans_are_context = false,
    .smt_encoded = true,  // invariants/smt/encode_sparse.cpp
};
}  // namespace cp

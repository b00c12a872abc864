// PCP context reuse (vllm-pcp-and-sparse.md §2; vLLM #57668 "Reuse MLA context across PCP virtual
// rows", open). The function body (_build_pcp_context_reuse in mla_attention.py) was not found in
// any stored source; this follows the PR text and its unit test (code-index 68287493100), whose
// five cases tests/test_pcp_family.cpp reproduces. What the test does not pin is inferred, each
// choice named below and in docs/plan.md:
//  - pairs: adjacent prefill rows of one request (req_idx[k] == req_idx[k+1]), left to right;
//    other rows stay singletons, one chunk (run) each, never packed together (test 4);
//  - a range longer than S (ctx_a > S, a long tail or singleton) is cut into pieces of
//    round_down(S, B) rows from its start, as the PR author's earlier shared-context planner does
//    (Hg-Spark/vllm@66a5dc18 vllm/v1/attention/ops/pcp_shared_context.py _split_materialization);
//  - an empty range (ctx_a = 0, or the empty tail at r = P-1) gets no chunk (v6's rule: no chunk
//    holds an empty span); tokens that attend no chunk get an empty token range ((0, -inf));
//  - is_continuation is v6's rule: the chunk's first span starts past 0 (the tail always does);
//  - the tail length ctx_b - (ctx_a + q_a) is not guarded (the PR lists no such condition): a pair
//    whose row a lies after row b (PCP-A/B order a fresh prefill's piece 0 last) gets no tail
//    chunk and its causal part reaches past b's context (CR-1, CR-3, I-3 report it).
#include "reference/planner/families/pcp/reuse.h"

#include "reference/planner/families/pcp/steps.h"
#include "reference/planner/planner_internal.h"

namespace cp::detail {

const char* reuse_refusal(const Case& c, const PcpRank& rk, const Plan& plan) {
  if (!c.ctx_reuse) return "ctx_reuse off";
  if (plan.builder != Builder::dense) return "sparse MLA (use_sparse)";
  if (plan.dcp != 1) return "dcp_world_size != 1";
  if (!c.causal) return "not causal";
  if (c.sliding_window) return "sliding window";
  for (std::size_t i = static_cast<std::size_t>(rk.num_decodes); i + 1 < rk.rows.size(); ++i)
    if (rk.rows[i].request == rk.rows[i + 1].request && rk.rows[i].len > 0 && rk.rows[i + 1].len > 0) return nullptr;
  return "no adjacent pair of one request's prefill rows";
}

namespace {

// One chunk per piece of [lo, hi) for merged row m; a tail's chunks serve only the last q_tail
// tokens of the row.
void add_range(Plan& plan, const std::vector<std::int64_t>& qsl, std::int64_t base, int m, std::int64_t lo,
               std::int64_t hi, std::int64_t piece, std::int64_t q_tail) {
  for (std::int64_t s = lo; s < hi; s += piece) {
    Chunk ch = take_chunk();
    ch.entries.push_back(ChunkEntry{.request = m, .start = s, .len = std::min(piece, hi - s)});
    finish_chunk(ch, false, qsl, base);
    if (q_tail > 0) ch.token_start = ch.token_end - q_tail;
    ch.is_continuation = s > 0;
    plan.chunks.push_back(std::move(ch));
  }
}

}  // namespace

bool plan_reuse(const Case& c, PcpRank& rk, Plan& plan, Case& rc, std::vector<std::int64_t>& lead_ctx,
                std::vector<std::int64_t>& lead_q) {
  const std::int64_t piece = (floordiv(Int(plan.workspace), Int(plan.block)) * plan.block).get();
  if (piece <= 0) return false;
  rc = c;
  rc.ctx.clear(), rc.q.clear(), lead_ctx.clear(), lead_q.clear();
  rk.merges.clear();
  const auto& rows = rk.rows;
  const std::size_t nd = static_cast<std::size_t>(rk.num_decodes);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& a = rows[i];
    const bool pair =
        i >= nd && i + 1 < rows.size() && rows[i + 1].request == a.request && a.len > 0 && rows[i + 1].len > 0;
    if (!pair) {
      rc.ctx.push_back(a.start), rc.q.push_back(a.len), lead_ctx.push_back(0), lead_q.push_back(0);
      continue;
    }
    const auto& b = rows[i + 1];
    rk.merges.push_back({.row_a = static_cast<int>(i),
                         .row_b = static_cast<int>(i + 1),
                         .merged = static_cast<int>(rc.ctx.size()),
                         .tail_len = steps::reuse_tail_len(Int(a.start), Int(a.len), Int(b.start)).get()});
    rc.ctx.push_back(b.start), rc.q.push_back(a.len + b.len), lead_ctx.push_back(a.start), lead_q.push_back(a.len);
    ++i;
  }
  const Batch mb(rc.ctx, rc.q, lead_ctx, lead_q);
  plan.prefills.clear();
  plan.num_with_context = 0;
  for (int m = rk.num_decodes; m < static_cast<int>(rc.ctx.size()); ++m) {
    plan.prefills.push_back(m);
    if (mb.chunk_context(static_cast<std::size_t>(m)) > 0) ++plan.num_with_context;
  }
  plan.packed = true;
  plan.align = plan.block;
  plan.row_budget = plan.workspace;
  plan.chunk_width = piece;
  const auto& qsl = query_start_loc_scratch(rc);
  const std::int64_t base = qsl[nd];
  for (int m : plan.prefills) {  // §2.3: chunks in row order, the shared chunk before the tail
    const auto r = static_cast<std::size_t>(m);
    if (!mb.merged(r)) {
      add_range(plan, qsl, base, m, 0, rc.ctx[r], piece, 0);
    } else {
      const std::int64_t t_s = steps::reuse_tail_start(Int(lead_ctx[r]), Int(lead_q[r])).get();
      add_range(plan, qsl, base, m, 0, lead_ctx[r], piece, 0);
      add_range(plan, qsl, base, m, t_s, rc.ctx[r], piece, rc.q[r] - lead_q[r]);
    }
    if (const std::int64_t n = mb.chunkless_tokens(r); n > 0)
      plan.empty_token_ranges.emplace_back(qsl[r] - base, qsl[r] - base + n);
  }
  if (static_cast<std::int64_t>(plan.chunks.size()) > kMaxChunks)
    throw CaseError("ctx", "plan would have over " + std::to_string(kMaxChunks) + " chunks; raise workspace");
  rk.reused = true;
  plan.built = true;
  return true;
}

}  // namespace cp::detail

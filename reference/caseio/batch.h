// The batch of one step as the invariant checks and the DCP simulation see it: per request the
// context length and the query (new-token) count, nothing else. The geometry (B, W, I, S, the
// kernels) is the plan's (reference/planner/plan.h), so a function that takes a Batch and a
// Plan cannot read the case's copy of it (DESIGN §9: checks read the plan and the batch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "reference/caseio/case.h"

namespace cp {

struct Batch {
  std::span<const std::int64_t> ctx;  // context tokens per request
  std::span<const std::int64_t> q;    // query tokens per request (decodes first, as vLLM orders them)
  // Merged rows (vLLM PCP context reuse, #57668; empty for every other plan): request r's first
  // lead_q[r] query tokens are a leading row at positions [lead_ctx[r], lead_ctx[r] + lead_q[r])
  // and its other q[r] - lead_q[r] tokens sit at [ctx[r], ...); all q[r] tokens are one causal
  // sequence, so the later tokens attend the leading row's positions through the causal part, not
  // through a chunk. The leading tokens need [0, lead_ctx) from chunks; the others [0, lead_ctx)
  // and [lead_ctx + lead_q, ctx). lead_q[r] == 0: an ordinary request.
  std::span<const std::int64_t> lead_ctx;
  std::span<const std::int64_t> lead_q;

  Batch(std::span<const std::int64_t> ctx_lens, std::span<const std::int64_t> q_lens,
        std::span<const std::int64_t> lead_ctx_lens = {}, std::span<const std::int64_t> lead_q_lens = {})
      : ctx(ctx_lens), q(q_lens), lead_ctx(lead_ctx_lens), lead_q(lead_q_lens) {}
  // A case's batch: a Case passes where a Batch is asked for. A view: the case must outlive it.
  Batch(const Case& c) : ctx(c.ctx), q(c.q) {}  // NOLINT(google-explicit-constructor)

  std::size_t size() const { return ctx.size(); }
  bool merged(std::size_t r) const { return !lead_q.empty() && lead_q[r] > 0; }
  // Context positions request r attends through chunks (its causal part covers the rest).
  std::int64_t chunk_context(std::size_t r) const { return merged(r) ? ctx[r] - lead_q[r] : ctx[r]; }
  // How many of request r's first query tokens attend no chunk at all (their context partial is
  // the empty (0, -inf) one): every token of a context-free request, the leading row of a merged
  // row whose leading row has no context, or all of it when the rest needs none either.
  std::int64_t chunkless_tokens(std::size_t r) const {
    if (!merged(r)) return ctx[r] == 0 ? q[r] : 0;
    if (lead_ctx[r] != 0) return 0;
    return ctx[r] == lead_ctx[r] + lead_q[r] ? q[r] : lead_q[r];
  }
};

}  // namespace cp

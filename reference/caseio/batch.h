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

  Batch(std::span<const std::int64_t> ctx_lens, std::span<const std::int64_t> q_lens) : ctx(ctx_lens), q(q_lens) {}
  // A case's batch: a Case passes where a Batch is asked for. A view: the case must outlive it.
  Batch(const Case& c) : ctx(c.ctx), q(c.q) {}  // NOLINT(google-explicit-constructor)

  std::size_t size() const { return ctx.size(); }
};

}  // namespace cp

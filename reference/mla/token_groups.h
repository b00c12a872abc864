// The query-token groups the numerics run (CPU: check.cpp; GPU: kernels/harness/pipeline.cpp),
// one description for both. A request of the plan's batch is one group, except a merged row of
// PCP context reuse (vLLM #57668; Batch::lead_*): its two rows a, b are one causal sequence of
// q_a + q_b tokens, but the chunks do not serve them alike (the shared chunk [0, ctx_a) serves
// every token, the tail [t_s, ctx_b) only b's). Every output element depends on its own token
// alone, so the row runs as two groups:
//   a: q_a tokens at positions [ctx_a, t_s), context ctx_a, causal keys = its own tokens;
//   b: q_b tokens at positions [ctx_b, ...), context ctx_b, causal keys = a's tokens then its own
//      (lead_q = q_a leading keys every b token sees: the merged row's causal attention,
//      bottom-right aligned, math/causal.h), so each b token attends exactly the keys, in the
//      order, of the merged row's single causal call.
// The unchunked reference runs every group as an ordinary request (chunked = false: b with its
// whole context [0, ctx_b) and no leading keys).
#pragma once

#include <cstdint>
#include <vector>

#include "reference/caseio/case.h"
#include "reference/planner/plan.h"

namespace cp::mla {

struct TokenGroup {
  int request = 0;            // the plan batch's request (a PCP rank's row index)
  int qn = 0;                 // query tokens
  int q_offset = 0;           // its first token's index among the request's query tokens
  std::int64_t ctx = 0;       // context length: its new tokens sit at [ctx, ctx + qn)
  std::int64_t token0 = 0;    // prefill token index of its first token
  std::int64_t lead_ctx = 0;  // the leading keys' first position (a merged row's b group)
  int lead_q = 0;             // leading causal keys every token sees (0: an ordinary request)
  int suffix_rows() const { return lead_q + qn; }
};

struct TokenGroups {
  std::vector<TokenGroup> groups;  // prefill order, a before b
  std::vector<int> first, count;   // per batch request: its groups (count 0: not a prefill)
  std::vector<char> merged;        // per batch request: a merged row (two groups)
  // The groups that chunk ch's entry b attends for: every group of the entry's request, or of a
  // merged row the groups whose tokens lie inside the chunk's token range (a tail: b only).
  std::vector<int> served(const Chunk& ch, std::size_t b) const;
};

TokenGroups token_groups(const Case& c, const Plan& plan, bool chunked);

}  // namespace cp::mla

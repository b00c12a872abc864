// Shared between the planner families; not part of the public interface.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "reference/planner/plan.h"

namespace cp::detail {

// Steps 3+ of make_plan, one per family. Both fill plan.chunks (with DCP local plans) and
// record the version's plan-time asserts.
void plan_old(const Case& c, Plan& plan);
void plan_packed(const Case& c, Plan& plan);

// Fills the request/token slice and cu_seq_lens / padded_local_cu of a chunk from its entries
// (qsl: query_start_loc of the case; base: the prefills' first query token).
void finish_chunk(Chunk& ch, bool dcp, const std::vector<std::int64_t>& qsl, std::int64_t base);

// The context tokens of the plan's prefills (checked arithmetic: a sum past int64 throws).
inline Int sum_of_contexts(const Case& c, const Plan& plan) {
  Int total = 0;
  for (int r : plan.prefills) total = total + c.ctx[static_cast<std::size_t>(r)];
  return total;
}

// Step 2's split after `num_decodes` decodes: plan.num_decodes, prefills, num_with_context and,
// under DCP, every prefill's local context lengths per rank (get_dcp_local_seq_lens).
void split_prefills(const Case& c, Plan& plan, int num_decodes);

// vLLM's builder __init__ (both vLLM families): R = S + S/W rows under DCP and the init assert
// S % W == 0.
void vllm_init(const Case& c, Plan& plan);

// The asserts every DCP forward runs per chunk (spec §3.3, §3.5): the local rows fit the
// all-gather layout and reorg kept exactly the rows the global plan expects.
void record_forward_asserts(Plan& plan);

// `detail`: the values as text, or a callable returning it (called only when plan_text()).
template <class Detail>
void add_assert(Plan& plan, const char* stage, const char* which, Detail&& detail, int chunk = -1) {
  std::string d;
  if (plan_text()) {
    if constexpr (std::is_invocable_v<Detail&>)
      d = detail();
    else
      d = std::forward<Detail>(detail);
  }
  plan.asserts.push_back({stage, which, std::move(d), chunk});
}
// A note (text, or a callable returning it), written only when plan_text().
template <class Text>
void add_note(Plan& plan, Text&& text) {
  if (!plan_text()) return;
  if constexpr (std::is_invocable_v<Text&>)
    plan.notes.push_back(text());
  else
    plan.notes.push_back(std::forward<Text>(text));
}

// Storage reuse for make_plan_into: an empty chunk / row vector, with the capacity of one a
// recycled plan held (thread-local pool), and query_start_loc(c) in thread-local storage
// (valid until the next call on this thread).
Chunk take_chunk();
void return_chunk(Chunk&& ch);  // an unused chunk back to the pool
std::vector<std::int64_t> take_rows();
const std::vector<std::int64_t>& query_start_loc_scratch(const Case& c);

}  // namespace cp::detail

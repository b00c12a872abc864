// Shared between the planner families; not part of the public interface.
#pragma once

#include "reference/planner/plan.h"

namespace cp::detail {

// Steps 3+ of make_plan, one per family. Both fill plan.chunks (with DCP local plans) and
// record the version's plan-time asserts.
void plan_old(const Case& c, Plan& plan);
void plan_packed(const Case& c, Plan& plan);

// Fills the request/token slice and cu_seq_lens / padded_local_cu of a chunk from its entries
// (qsl: query_start_loc of the case; base: the prefills' first query token).
void finish_chunk(Chunk& ch, bool dcp, const std::vector<std::int64_t>& qsl, std::int64_t base);

// The asserts every DCP forward runs per chunk (spec §3.3, §3.5): the local rows fit the
// all-gather layout and reorg kept exactly the rows the global plan expects.
void record_forward_asserts(Plan& plan);

void add_assert(Plan& plan, std::string stage, std::string which, std::string detail, int chunk = -1);

// Storage reuse for make_plan_into: an empty chunk / row vector, with the capacity of one a
// recycled plan held (thread-local pool), and query_start_loc(c) in thread-local storage
// (valid until the next call on this thread).
Chunk take_chunk();
void return_chunk(Chunk&& ch);  // an unused chunk back to the pool
std::vector<std::int64_t> take_rows();
const std::vector<std::int64_t>& query_start_loc_scratch(const Case& c);

}  // namespace cp::detail

#include "fuzz/common/plan_cost.h"

#include <algorithm>
#include <exception>
#include <numeric>

#include "reference/planner/families/pcp/family.h"
#include "reference/planner/plan.h"
#include "reference/planner/versions.h"

namespace cp::fuzz {

std::int64_t alignment_unit(const Case& c) {
  const std::int64_t v = c.interleave * c.dcp;
  return c.dcp > 1 ? std::lcm(c.block, v) : c.block;
}

std::int64_t simulated_rows(const Case& c) {
  // Each rank gathers cdiv(len, V) * I padded rows per span (up to I*W more than len in all),
  // and the checks walk every rank's rows: (ctx + I*W) * W per request with context.
  const std::int64_t v = std::min<std::int64_t>(c.interleave * c.dcp, std::int64_t{1} << 30);
  std::int64_t rows = 0;
  for (auto x : c.ctx)
    if (x > 0) rows += (x + v) * std::max<std::int64_t>(1, c.dcp);
  return rows;
}

std::int64_t pcp_layout_slots(const Case& c) {
  const bool manager = info(c.version).family == &pcp_family || c.pcp_rows.has_value();
  if (!manager || !c.pcp) return 0;
  std::int64_t tokens = 0;
  for (auto q : c.q) tokens += q;
  return *c.pcp * std::max(c.padded_num_tokens.value_or(0), tokens) + tokens;
}

std::int64_t token_level_rows(const Case& c) {
  const std::int64_t slots = pcp_layout_slots(c);
  return info(c.version).family->interval_level ? slots : slots + simulated_rows(c);
}

std::int64_t estimated_plan_entries(const Case& c) {
  std::int64_t s = 0;
  try {
    s = c.workspace
            ? *c.workspace
            : size_workspace(c.version, c.platform, *c.max_model_len, *c.max_num_seqs, c.block, c.dcp, c.interleave);
  } catch (const std::exception&) {
    return 0;  // sizing itself refuses: cheap
  }
  std::int64_t n = 0, max_ctx = 0, total = 0;
  for (auto x : c.ctx) {
    n += x > 0;
    max_ctx = std::max(max_ctx, x);
    total += x;
  }
  auto P = static_cast<std::int64_t>(c.ctx.size());
  if (c.pcp) {  // every rank plans up to 2 rows per request, contexts up to N + q: about 2N + q rows
    total = 0;
    for (std::size_t i = 0; i < c.ctx.size(); ++i) total += 2 * c.ctx[i] + c.q[i];
    total *= *c.pcp;
    P *= 2 * *c.pcp;
    n = P;
  }
  if (n == 0 || s <= 0) return P;
  if (!info(c.version).is_packed() && !c.pcp) {  // K = cdiv(max_ctx, M) chunks, every prefill in every chunk
    const std::int64_t width = std::max<std::int64_t>(1, s / n);
    return (max_ctx / width + 1) * P;
  }
  // Packed: a chunk holds about S/W rows per rank, i.e. about S global positions, minus the
  // padding of a split to the alignment unit; every request adds at most one more entry.
  const std::int64_t unit = alignment_unit(c);
  const std::int64_t per_chunk = s < unit ? s : std::max(unit, s - unit);
  return total / per_chunk + 2 * P + 1;
}

std::int64_t estimated_plan_work(const Case& c) {
  const std::int64_t e = estimated_plan_entries(c);
  const std::int64_t w = std::max<std::int64_t>(1, c.dcp);
  return e > (std::int64_t{1} << 40) / w ? std::int64_t{1} << 40 : e * w;
}

}  // namespace cp::fuzz

// make_plan: workspace sizing, batch split, dispatch to the planner family, forward asserts.
#include <algorithm>

#include "reference/planner/arith.h"
#include "reference/planner/planner_internal.h"

namespace cp {

std::int64_t Chunk::max_seq_len() const {
  std::int64_t m = 0;
  for (const auto& e : entries) m = std::max(m, e.len);
  return m;
}

int Chunk::token_to_seq(std::int64_t t) const {
  // cu_seq_lens is non-decreasing; the owner is the last entry whose start is <= t.
  auto it = std::upper_bound(cu_seq_lens.begin(), cu_seq_lens.end(), t);
  return static_cast<int>(it - cu_seq_lens.begin()) - 1;
}

std::vector<std::int64_t> query_start_loc(const Case& c) {
  std::vector<std::int64_t> qsl{0};
  for (auto q : c.q) qsl.push_back(qsl.back() + q);
  return qsl;
}

std::int64_t size_workspace(Version v, Platform, std::int64_t mml, std::int64_t mns, std::int64_t block,
                            std::int64_t dcp, std::int64_t interleave) {
  const Int m = mml, s = mns, B = block, W = dcp, I = interleave;
  switch (v) {
    case Version::v0_early: return arith::workspace_v0(m, s, B).get();
    case Version::v1_dcp:
    case Version::v2_interleave:
    case Version::v3_pr46114:
    case Version::v4_pr47327: return arith::workspace_legacy(m, s, B).get();
    case Version::pr41229: return arith::workspace_pr41229(m, s, B, W).get();
    case Version::v5_packed: return arith::workspace_v5(m, s, B, W, I).get();
    case Version::v6_current: return arith::workspace_v6(m, s, B, W, I).get();
  }
  return 0;
}

namespace detail {

void add_assert(Plan& plan, std::string stage, std::string which, std::string detail, int chunk) {
  plan.asserts.push_back({std::move(stage), std::move(which), std::move(detail), chunk});
}

void finish_chunk(Chunk& ch, bool dcp) {
  ch.cu_seq_lens.assign(1, 0);
  for (const auto& e : ch.entries) ch.cu_seq_lens.push_back((Int(ch.cu_seq_lens.back()) + e.len).get());
  if (dcp) {
    ch.padded_local_cu.assign(1, 0);
    for (const auto& e : ch.entries)
      ch.padded_local_cu.push_back((Int(ch.padded_local_cu.back()) + e.padded_local_len).get());
  }
}

void record_forward_asserts(const Case& c, Plan& plan) {
  if (c.dcp == 1) return;
  const std::int64_t W = c.dcp;
  // allgather_offset = R // (W+1), which is S/W exactly when W | S (spec §3.3).
  const std::int64_t allgather_offset = plan.workspace_rows / (W + 1);
  for (std::size_t ci = 0; ci < plan.chunks.size(); ++ci) {
    const Chunk& ch = plan.chunks[ci];
    const int chunk = static_cast<int>(ci);
    const std::int64_t toks = ch.local_tokens();
    if (toks > allgather_offset)
      add_assert(plan, "forward", "toks <= allgather_offset",
                 "toks=" + std::to_string(toks) + " allgather_offset=" + std::to_string(allgather_offset), chunk);
    if (toks * W > plan.workspace)
      add_assert(plan, "forward", "toks * dcp_world_size <= workspace",
                 "toks*W=" + std::to_string(toks * W) + " S=" + std::to_string(plan.workspace), chunk);
    std::int64_t kept_total = 0, kept_max = 0;
    for (const auto& e : ch.entries) {
      std::int64_t k = 0;
      for (auto v : e.kept) k += v;
      kept_total += k;
      kept_max = std::max(kept_max, k);
    }
    if (kept_total != ch.total_tokens())
      add_assert(plan, "forward", "reorganized_kv_c_normed.shape[0] == sum_seq_len",
                 "reorg kept " + std::to_string(kept_total) + " rows, sum_seq_len=" +
                     std::to_string(ch.total_tokens()),
                 chunk);
    if (kept_max != ch.max_seq_len())
      add_assert(plan, "forward", "max reorganized rows per request == max_seq_len",
                 "max kept " + std::to_string(kept_max) + ", max_seq_len=" + std::to_string(ch.max_seq_len()),
                 chunk);
  }
}

}  // namespace detail

Plan make_plan(const Case& c) {
  validate_case(c);
  Plan plan;
  const VersionInfo& vi = info(c.version);
  const std::int64_t W = c.dcp;

  // 1. Workspace size S and allocated rows R (spec §1).
  if (c.workspace) {
    plan.workspace = *c.workspace;
  } else {
    plan.workspace =
        size_workspace(c.version, c.platform, *c.max_model_len, *c.max_num_seqs, c.block, W, c.interleave);
    plan.sized_from_engine = true;
    if (c.version == Version::v0_early && plan.workspace < *c.max_num_seqs * c.block)
      detail::add_assert(plan, "init", "chunked_prefill_workspace_size >= max_num_seqs * block_size",
                         "S=" + std::to_string(plan.workspace) + " mns*B=" +
                             std::to_string(*c.max_num_seqs * c.block));
  }
  plan.workspace_rows = W > 1 ? (Int(plan.workspace) + plan.workspace / W).get() : plan.workspace;
  if (W > 1 && plan.workspace % W != 0)
    detail::add_assert(plan, "init", "chunked_prefill_workspace_size % dcp_world_size == 0",
                       "S=" + std::to_string(plan.workspace) + " W=" + std::to_string(W) + " (S mod W = " +
                           std::to_string(plan.workspace % W) + ")");

  // 2. Batch split: vLLM reorders decodes first; a leading run of q <= 1 requests are decodes.
  std::size_t i = 0;
  while (i < c.q.size() && c.q[i] <= 1) ++i;
  plan.num_decodes = static_cast<int>(i);
  if (i > 0)
    plan.notes.push_back(std::to_string(i) + " leading request(s) with q <= 1 counted as decode(s), not planned");
  for (; i < c.q.size(); ++i) {
    plan.prefills.push_back(static_cast<int>(i));
    if (c.ctx[i] > 0) ++plan.num_with_context;
  }

  plan.packed = vi.packed;
  plan.gather = GatherKind::token_major;
  if (W > 1) plan.gather = GatherKind::cp_gather;
  else if (c.version == Version::v0_early || c.version == Version::v1_dcp) plan.gather = GatherKind::page_rounding;

  if (W > 1) {
    plan.local_ctx.assign(c.ctx.size(), {});
    for (int r : plan.prefills)
      for (std::int64_t rank = 0; rank < W; ++rank)
        plan.local_ctx[r].push_back(dcp_local_len(Int(c.ctx[r]), Int(W), Int(rank), Int(c.interleave)).get());
  }

  // 3. No chunked-context metadata at all when no prefill has context.
  if (plan.num_with_context == 0) {
    plan.built = true;
    plan.notes.push_back("no prefill has context: no chunked-context plan");
    return plan;
  }
  if (vi.packed) detail::plan_packed(c, plan);
  else detail::plan_old(c, plan);
  if (plan.built) detail::record_forward_asserts(c, plan);
  return plan;
}

}  // namespace cp

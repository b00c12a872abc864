// The local-shard family (vllm-pcp-and-sparse.md §3): vLLM's dense MLA context path under PCP x
// DCP (vllm/model_executor/layers/attention/mla_pcp.py, dispatched from mla_attention.py's
// _compute_dcp_prefill_context at vllm-project/vllm@b4a0027c). Its chunk metadata is the floor-divide
// planner's (build_mla_chunked_context_metadata at b4a0027c: M = round_down(S // n, B), starts c*PL,
// padded local lengths; plan_old runs it); with DCP = P each rank attends its own rows
// l = clamp(min(L, c*PL + PL) - c*PL, 0) of every prefill (build_pcp_chunked_context_metadata), the
// ranks' partials meet in one LSE combine (cp_lse_ag_out_ar); with DCP = TP*P the ordinary
// all-gather + reorg path runs with vLLM's forward asserts.
//
// Whose rows: pcp_rows unset ("replicated"), every DCP rank's builder sees the case's batch (what
// C-1 requires); pcp_rows=<a pcp-family version>, each rank's rows are that PCPManager's (the
// builder at b4a0027c reads the rank's own common_attn_metadata: rank-local), the plan's chunks
// are rank pcp_rank's and plan.pcp carries every rank's rows and what its plan does (C-1, C-2).
#include <algorithm>

#include "reference/planner/families/local_shard/family.h"
#include "reference/planner/families/pcp/family.h"
#include "reference/planner/families/vllm/movement.h"
#include "reference/planner/planner_internal.h"

namespace cp::detail::local_shard {
namespace {

// The local path's metadata on the old planner's chunks: each rank's real rows l (kept[rank]) and
// the global positions the ranks' rows stand for (the entry's span, C-4).
void localize(const Case& c, Plan& plan) {
  const Int W = plan.dcp, PL = plan.local_chunk;
  const auto& qsl = query_start_loc_scratch(c);
  const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];
  for (Chunk& ch : plan.chunks) {
    for (ChunkEntry& e : ch.entries) {
      const Int ctx = c.ctx[static_cast<std::size_t>(e.request)], s = e.local_start;
      for (std::int64_t r = 0; r < plan.dcp; ++r) {
        const Int L = plan.local_ctx[static_cast<std::size_t>(e.request)][static_cast<std::size_t>(r)];
        e.kept[static_cast<std::size_t>(r)] = steps::local_shard_rows(L, s, PL).get();
      }
      e.start = steps::local_shard_span_start(ctx, s, W).get();
      e.len = steps::local_shard_span_len(ctx, s, PL, W).get();
    }
    finish_chunk(ch, true, qsl, base);
  }
  plan.local_attention = true;
}

// One rank's context plan over `c`'s requests after `num_decodes` decodes: none when no prefill
// has context (build_mla_chunked_context_metadata returns None: the rank skips the context path),
// else the old planner, localized on the DCP = P path, vLLM's forward asserts on the other.
void plan_requests(const Case& c, Plan& plan, int num_decodes) {
  split_prefills(c, plan, num_decodes);
  if (plan.num_with_context == 0) {
    plan.built = true;
    add_note(plan, "no prefill has context: no chunked-context metadata, this rank skips the context path");
    return;
  }
  plan_old(c, plan);
  if (!plan.built) return;
  if (steps::local_shard_path(plan.dcp, *c.pcp) == LocalShardPath::local_shard)
    localize(c, plan);
  else
    record_forward_asserts(plan);
}

int leading_decodes(const Case& c) {
  int i = 0;
  while (i < static_cast<int>(c.q.size()) && c.q[static_cast<std::size_t>(i)] <= 1) ++i;
  return i;
}

// The requests one PCP rank's builder sees: its rows (ctx = start, q = len).
void rows_case(const Case& c, const PcpRank& rk, Case& rc) {
  rc = c;
  rc.pcp_rows.reset();
  rc.ctx.clear();
  rc.q.clear();
  for (const auto& w : rk.rows) {
    rc.ctx.push_back(w.start);
    rc.q.push_back(w.len);
  }
}

// What rank rk's plan makes it do: whether it enters the context path, and per chunk the padded
// local rows it gathers (seq_tot; on the gather_reorg path the all-gather's size).
void summarise(const Plan& p, PcpRank& rk) {
  rk.built = p.built;
  rk.num_decodes = p.num_decodes;
  rk.context_path = p.built && p.num_with_context > 0;
  rk.gathered.clear();
  for (const auto& ch : p.chunks) rk.gathered.push_back(ch.local_tokens());
  rk.tokens = 0;
  for (const auto& w : rk.rows) rk.tokens += w.len;
}

// Rank-local metadata: the PCPManager version's rows (its own model, make_plan of that version:
// every rank's rows and decode boundary), then this family's plan over each rank's rows.
void plan_rank_local(const Case& c, Plan& plan) {
  Case pc = c;
  pc.version = *c.pcp_rows;
  pc.pcp_rows.reset();
  pc.mla_pcp_path.reset();
  PcpLayout L = std::move(*make_plan(pc).pcp);
  thread_local Case rc;
  plan_other_pcp_ranks(L, plan, [&](PcpRank& rk, Plan& other) {
    rows_case(c, rk, rc);
    plan_requests(rc, other, rk.num_decodes);
    summarise(other, rk);
  });
  PcpRank& mine = L.ranks[static_cast<std::size_t>(L.rank)];
  rows_case(c, mine, rc);
  plan_requests(rc, plan, mine.num_decodes);
  summarise(plan, mine);
  L.batch_ctx = rc.ctx;
  L.batch_q = rc.q;
  add_note(plan, [&] {
    std::string s = "pcp_rows=" + std::string(name(*c.pcp_rows)) + ": rank-local metadata, rank " +
                    std::to_string(L.rank) + " of " + std::to_string(L.size) + " rows";
    for (const auto& w : mine.rows)
      s += " (" + std::to_string(w.request) + "," + std::to_string(w.start) + "," + std::to_string(w.len) + ")";
    return s + "; chunk requests are row indices; the universal checks see every DCP rank with these rows";
  });
  plan.pcp = std::move(L);
}

void plan_local_shard(const Case& c, Plan& plan) {
  const LocalShardPath path = steps::local_shard_path(c.dcp, *c.pcp);
  add_note(plan, [&] {
    return "dcp_tp_size = dcp / pcp = " + std::to_string(c.dcp / *c.pcp) + ": mla_pcp_path=" + std::string(name(path)) +
           (path == LocalShardPath::local_shard
                ? " (each rank attends its own rows, one LSE combine over the DCP group)"
                : " (gather -> all-gather -> reorg per chunk)");
  });
  if (c.pcp_rows) return plan_rank_local(c, plan);
  if (leading_decodes(c) > 0)
    add_note(plan, [&] {
      return std::to_string(leading_decodes(c)) + " leading request(s) with q <= 1 counted as decode(s), not planned";
    });
  plan_requests(c, plan, leading_decodes(c));
}

// Each rank attends the rows it gathered for each prefill: kept[rank] rows from its local start,
// packed request after request (the unpadded workspace of _unpad_dcp_local_kvcache).
ChunkMovement local_shard_movement(const Plan& p, const Chunk& ch) {
  if (!p.local_attention) return vllm_chunk_movement(p, ch);
  ChunkMovement m{.exchange = Exchange::local_attend, .dcp = true, .gather_per_rank = true};
  m.total_rows = ch.total_tokens();
  for (std::int64_t r = 0; r < p.dcp; ++r) {
    std::int64_t dst = 0;
    for (const ChunkEntry& e : ch.entries) {
      const std::int64_t n = e.kept[static_cast<std::size_t>(r)];
      if (n > 0)
        m.gather.push_back(
            {.request = e.request, .rank = static_cast<int>(r), .src = e.local_start, .dst = dst, .len = n});
      dst += n;
    }
    m.local_rows = std::max(m.local_rows, dst);
  }
  return m;
}

}  // namespace
}  // namespace cp::detail::local_shard

namespace cp {
const FamilyInfo local_shard_family{
    .name = "local-shard",
    .summary =
        "vLLM PCP x DCP dense context: the floor-divide planner's DCP metadata; with dcp = pcp each rank "
        "attends its own rows and the ranks' partials meet in one LSE combine, with dcp = tp*pcp the "
        "all-gather + reorg path",
    .models =
        "vLLM mla_pcp.py build_pcp_chunked_context_metadata / _compute_pcp_dcp_prefill_context, dispatched by "
        "_compute_dcp_prefill_context (b4a0027c; same rules at 0268d827)",
    .init = &detail::vllm_init,
    .plan = &detail::local_shard::plan_local_shard,
    .movement = &detail::local_shard::local_shard_movement,
    .interval_level = true,           // vLLM's movement, or local attention over packed runs (invariants/interval/)
    .partitions_global_batch = true,  // pcp_rows: the PCP manager's rows per rank (the batch split is its own)
};
}  // namespace cp

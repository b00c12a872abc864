// The PCP virtual-row family (vllm-pcp-and-sparse.md §1): the manager's rows per rank (§1.2, §1.3)
// and v6-current's packed planner over each rank's rows (§1.7): a row (j, start, len) is one v6
// request with context start and len query tokens, so a rank's two rows of one request gather
// overlapping contexts and a row's context holds other ranks' new tokens of the step (P-3). The
// plan's chunks are rank pcp_rank's v6 plan (the universal checks read it through batch_of);
// every rank's rows and collectives go to plan.pcp for the P- checks.
#include <algorithm>
#include <tuple>

#include "reference/dcp/ownership.h"
#include "reference/planner/families/pcp/family.h"
#include "reference/planner/families/pcp/reuse.h"
#include "reference/planner/planner_internal.h"

namespace cp::detail {
namespace {

bool is_prefilling(const Case& c, std::size_t j) {
  if (!c.prefilling.empty()) return c.prefilling[j] != 0;
  return !(c.q[j] <= 1 && c.ctx[j] > 0);  // §7's default: a q <= 1 request with context decodes
}

// §1.2: the rows of rank r in generation order (global request order; piece r, then piece C-1-r).
void generate_rows(const Case& c, const PcpRules& rules, Int P, Int r, std::vector<PcpRow>& rows) {
  const Int C = P * 2;
  const bool replicate = rules.replicate_short_under_dcp && c.dcp > 1;
  for (std::size_t j = 0; j < c.q.size(); ++j) {
    const Int N = c.ctx[j], q = c.q[j];
    const int req = static_cast<int>(j);
    if (!is_prefilling(c, j)) {  // decodes: one row on every rank (P-4)
      rows.push_back({req, N.get(), q.get(), false, true});
      continue;
    }
    if (replicate && steps::pcp_replicates(q, C)) {  // PCP-C under DCP: not split
      rows.push_back({req, N.get(), q.get(), true, true});
      continue;
    }
    for (const Int piece : {r, C - 1 - r}) {
      const Int len = steps::pcp_piece_len(rules.split, q, C, piece);
      if (len > 0)
        rows.push_back({req, (N + steps::pcp_piece_offset(rules.split, q, C, piece)).get(), len.get(), true});
    }
  }
}

// §1.3: the manager's order of a rank's rows, and the dummy row of an empty rank. One stable sort
// by the prover's key (steps::pcp_order_class, P-9), then request, then start: PCP-A's sort_key
// tuple; PCP-B/C's stable partitions keep the generation order, which is (request, start) already.
void order_rows(const Case& c, PcpOrder order, std::vector<PcpRow>& rows) {
  const auto key = [order](const PcpRow& w) {
    const Int pure = w.prefilling && w.start == 0 ? 1 : 0;
    return std::tuple(steps::pcp_order_class(order, Int(w.prefilling ? 1 : 0), pure).get(), w.request, w.start);
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const PcpRow& a, const PcpRow& b) { return key(a) < key(b); });
  // PCP-A/B emit (0, N_0, 0) on a rank with no rows; PCP-C is taken to keep it (its code was not found).
  if (rows.empty()) rows.push_back({0, c.ctx[0], 0, is_prefilling(c, 0)});
}

// split_decodes_and_prefills(..., treat_short_extends_as_decodes = not use_pcp): the first row
// with more than one token or is_prefilling ends the decodes (P-11: a 1-token prefill row stays a
// prefill; PB-2: a decode row after it goes down the prefill path).
int decode_boundary(const std::vector<PcpRow>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].len > 1 || rows[i].prefilling) return static_cast<int>(i);
  return static_cast<int>(rows.size());
}

// v6-current over one rank's rows, into `plan` (its geometry, workspace and init asserts set), or
// under ctx_reuse the merged plan (reuse.cpp) where its conditions hold; rc is the batch planned.
void plan_rank(const Case& c, PcpRank& rk, Plan& plan, Case& rc, std::vector<std::int64_t>& lead_ctx,
               std::vector<std::int64_t>& lead_q) {
  plan.num_decodes = rk.num_decodes;
  rk.reused = false;
  rk.merges.clear();
  lead_ctx.clear(), lead_q.clear();
  if (!reuse_refusal(c, rk, plan) && plan_reuse(c, rk, plan, rc, lead_ctx, lead_q)) return;
  rc = c;
  rc.ctx.clear();
  rc.q.clear();
  for (const auto& w : rk.rows) {
    rc.ctx.push_back(w.start);
    rc.q.push_back(w.len);
  }
  plan.prefills.clear();
  plan.num_with_context = 0;
  for (int i = rk.num_decodes; i < static_cast<int>(rk.rows.size()); ++i) {
    plan.prefills.push_back(i);
    if (rc.ctx[static_cast<std::size_t>(i)] > 0) ++plan.num_with_context;
  }
  plan.local_ctx.clear();
  if (plan.is_dcp()) {  // DCP local lengths from the local rows (§1.4)
    plan.local_ctx.resize(rk.rows.size());
    for (int i : plan.prefills) {
      // From the pool (planner.cpp): recycle() returns every row vector to it, so a vector
      // allocated here grew the pool by one on every plan (issue 25 item 3).
      auto& local = plan.local_ctx[static_cast<std::size_t>(i)];
      local = take_rows();
      for (std::int64_t d = 0; d < plan.dcp; ++d)
        local.push_back(
            dcp_local_len(Int(rc.ctx[static_cast<std::size_t>(i)]), Int(plan.dcp), Int(d), Int(plan.interleave)).get());
    }
  }
  if (plan.num_with_context == 0) {
    plan.built = true;
    return;
  }
  plan_packed(rc, plan);
  if (plan.built) record_forward_asserts(plan);
}

// What rank rk's plan makes every DCP rank do: whether it enters the context path, and per chunk
// the rows each DCP rank contributes to the all-gather (or gathers, without DCP).
void summarise(const Plan& p, PcpRank& rk) {
  rk.built = p.built;
  rk.context_path = p.built && p.num_with_context > 0;
  rk.gathered.clear();
  for (const auto& ch : p.chunks) rk.gathered.push_back(p.is_dcp() ? ch.local_tokens() : ch.total_tokens());
}

// §1.5/§1.6: the manager's gathered layout over every rank's rows, its request padding and its
// limits: Q4's ValueError when the CUDA-graph count is below a rank's tokens, the RuntimeErrors of
// partition_batch past the input buffers (rows: 2*mns, PCP-A 2*mns + P - 1 after padding).
void layout_ranks(const Case& c, const PcpRules& rules, PcpLayout& L, Plan& plan) {
  thread_local std::vector<std::vector<PcpRow>> rows;
  rows.resize(L.ranks.size());
  std::int64_t t_max = 0;
  for (std::size_t r = 0; r < L.ranks.size(); ++r) {
    PcpRank& rk = L.ranks[r];
    rows[r] = rk.rows;
    rk.tokens = 0;
    for (const auto& w : rk.rows) rk.tokens += w.len;
    t_max = std::max(t_max, rk.tokens);
    rk.padded_reqs =
        steps::pcp_padded_reqs(rules.gather, Int(static_cast<std::int64_t>(rk.rows.size())), Int(L.size)).get();
    if (L.max_num_seqs > 0 &&
        rk.padded_reqs > steps::pcp_max_local_reqs(rules.gather, Int(L.max_num_seqs), Int(L.size)).get()) {
      add_assert(plan, "plan", "RuntimeError: PCP local request count exceeds the MRV2 input buffer size", [&] {
        return "rank " + std::to_string(r) + ": " + std::to_string(rk.padded_reqs) + " rows > " +
               std::to_string(steps::pcp_max_local_reqs(rules.gather, Int(L.max_num_seqs), Int(L.size)).get());
      });
      plan.asserts.back().kind = FailureKind::crash;
    }
  }
  if (c.padded_num_tokens && *c.padded_num_tokens < t_max) {
    add_assert(plan, "plan", "ValueError: padded_num_tokens is smaller than the largest rank-local batch", [&] {
      return "padded_num_tokens=" + std::to_string(*c.padded_num_tokens) + " < max_r T_r=" + std::to_string(t_max);
    });
    plan.asserts.back().kind = FailureKind::crash;
  }
  L.gathered = pcp_gathered_layout(rows, c.ctx, c.q, rules.gather, c.padded_num_tokens);
}

// What ctx_reuse did on the selected rank: the pairs merged and the rows gathered, or why
// the v6 fallback ran.
std::string reuse_note(const Case& c, const PcpRank& rk, const Plan& plan) {
  if (!rk.reused) {
    const char* why = reuse_refusal(c, rk, plan);
    return std::string("ctx_reuse: no plan (") + (why ? why : "a range longer than S and no block fits S") +
           "): v6 plans the rows";
  }
  std::string s = "ctx_reuse: rows merged";
  for (const auto& m : rk.merges) {
    const auto& a = rk.rows[static_cast<std::size_t>(m.row_a)];
    const auto& b = rk.rows[static_cast<std::size_t>(m.row_b)];
    s += " (" + std::to_string(m.row_a) + "," + std::to_string(m.row_b) + ")->" + std::to_string(m.merged) + " tail [" +
         std::to_string(a.start + a.len) + ", " + std::to_string(b.start) + ") rows gathered " +
         std::to_string(steps::reuse_rows_gathered(Int(a.start), Int(a.len), Int(b.start)).get()) + " instead of " +
         std::to_string(a.start + b.start) + ";";
  }
  return s + " chunk requests are merged-row indices";
}

void plan_pcp(const Case& c, Plan& plan) {
  const PcpRules& rules = plan.version_info().pcp;
  const Int P = *c.pcp;
  PcpLayout& L = plan.pcp.emplace();
  L.size = P.get();
  L.rank = static_cast<int>(c.pcp_rank.value_or(0));
  L.tp = c.tp.value_or(1);
  L.ranks.resize(static_cast<std::size_t>(P.get()));
  for (Int r = 0; r < P; r = r + 1) {
    PcpRank& rk = L.ranks[static_cast<std::size_t>(r.get())];
    generate_rows(c, rules, P, r, rk.rows);
    order_rows(c, rules.order, rk.rows);
    rk.num_decodes = decode_boundary(rk.rows);
  }
  L.max_num_seqs = c.max_num_seqs.value_or(0);
  layout_ranks(c, rules, L, plan);
  plan.packed = true;  // each rank's plan is v6-current's (packed planner, empty-range merge)
  thread_local Case rc;
  thread_local std::vector<std::int64_t> lead_ctx, lead_q;
  plan_other_pcp_ranks(L, plan, [&](PcpRank& rk, Plan& other) {
    plan_rank(c, rk, other, rc, lead_ctx, lead_q);
    summarise(other, rk);
  });
  PcpRank& mine = L.ranks[static_cast<std::size_t>(L.rank)];
  plan_rank(c, mine, plan, rc, lead_ctx, lead_q);
  summarise(plan, mine);
  L.batch_ctx.assign(rc.ctx.begin(), rc.ctx.end());
  L.batch_q.assign(rc.q.begin(), rc.q.end());
  L.batch_lead_ctx.assign(lead_ctx.begin(), lead_ctx.end());
  L.batch_lead_q.assign(lead_q.begin(), lead_q.end());
  if (c.ctx_reuse) add_note(plan, [&] { return reuse_note(c, mine, plan); });
  add_note(plan, [&] {
    std::string s = "pcp rank " + std::to_string(L.rank) + " of " + std::to_string(L.size) + ": rows";
    for (const auto& w : mine.rows)
      s += " (" + std::to_string(w.request) + "," + std::to_string(w.start) + "," + std::to_string(w.len) +
           (w.prefilling ? "" : ",decode") + ")";
    return s + "; v6-current plans each row as a request (ctx = start, q = len); chunk requests are row indices";
  });
}

// vLLM's builder __init__ as v6's (R = S + S/W, the init assert); the PCP manager's own checks are
// case validation (exit 2: validate_case).
void pcp_init(const Case& c, Plan& plan) { vllm_init(c, plan); }

}  // namespace
}  // namespace cp::detail

#include "reference/planner/families/vllm/movement.h"

namespace cp {
void plan_other_pcp_ranks(PcpLayout& L, Plan& plan, const std::function<void(PcpRank&, Plan&)>& plan_one) {
  thread_local Plan other;
  for (int r = 0; r < static_cast<int>(L.ranks.size()); ++r) {
    if (r == L.rank) continue;
    other = Plan{};
    other.version = plan.version, other.platform = plan.platform, other.builder = plan.builder;
    other.block = plan.block, other.dcp = plan.dcp, other.interleave = plan.interleave;
    other.virtual_block = plan.virtual_block, other.merge = plan.merge, other.gather = plan.gather;
    other.workspace = plan.workspace, other.workspace_rows = plan.workspace_rows, other.packed = plan.packed;
    plan_one(L.ranks[static_cast<std::size_t>(r)], other);
    for (auto& a : other.asserts) {
      if (plan_text()) a.detail = "pcp rank " + std::to_string(r) + ": " + a.detail;
      plan.asserts.push_back(std::move(a));
    }
    for (auto& ch : other.chunks) detail::return_chunk(std::move(ch));
  }
}
}  // namespace cp

namespace cp {
const FamilyInfo pcp_family{
    .name = "pcp",
    .summary =
        "vLLM prefill context parallel: each prefill cut into 2P DualChunkSwap pieces, rank r keeps pieces r and "
        "2P-1-r as rows, decodes on every rank; every rank runs v6-current over its rows",
    .models = "vLLM v1/worker/gpu/pcp_manager.py PCPManager (#46570, #56157) feeding mla_attention.py's v6 planner",
    .init = &detail::pcp_init,
    .plan = &detail::plan_pcp,
    .movement = &vllm_chunk_movement,  // each rank's v6 movement over its rows
    .interval_level = true,
    .partitions_global_batch = true,
    .smt_encoded = true,  // invariants/smt/encode_pcp.cpp
};
}  // namespace cp

// The packed planner (v5-packed, v6-current; #50613, spec §2.3): requests are packed into the
// workspace in batch order; a request that does not fit is split at a multiple of the
// alignment and continues at the start of the next chunk; a request without context closes
// the open chunk (a chunk is a contiguous request slice with no empty context span). Every
// decision is a step of steps.h, the same templates the prover encodes.
#include <algorithm>

#include "reference/planner/families/packed/family.h"
#include "reference/planner/families/vllm/movement.h"
#include "reference/planner/planner_internal.h"

namespace cp::detail {
namespace {

// The greedy loop's state: the open chunk and the rows it uses.
struct Packer {
  const Case& c;
  Plan& plan;
  steps::PackedParams<Int> pp;
  Int I, W;
  bool dcp;
  Chunk cur;
  Int rows = 0;
  ~Packer() { return_chunk(std::move(cur)); }  // its storage serves the next plan

  void add(int r, Int start, Int len) {
    ChunkEntry e;
    e.request = r;
    e.start = start.get();
    e.len = len.get();
    if (dcp) {
      e.local_start = steps::packed_local_start(start, I, W).get();
      e.padded_local_len = steps::packed_need(start, len, I, W, dcp).get();
    }
    cur.entries.push_back(std::move(e));
  }
  // Closes the open chunk; false (and the assert recorded) when it is empty.
  bool close() {
    if (cur.entries.empty()) {
      add_assert(plan, "plan", "chunk is non-empty", "no request piece fits an empty chunk",
                 static_cast<int>(plan.chunks.size()));
      return false;
    }
    cur.is_continuation = cur.entries.front().start > 0;
    plan.chunks.push_back(std::move(cur));
    if (static_cast<std::int64_t>(plan.chunks.size()) > kMaxChunks)
      throw CaseError("ctx", "plan would have over " + std::to_string(kMaxChunks) +
                                 " chunks, over the simulation limit; raise workspace or shorten ctx");
    cur = take_chunk();
    rows = 0;
    return true;
  }
  // All pieces of request r; false when the planner asserted.
  bool pack(int r) {
    const Int ctx = c.ctx[static_cast<std::size_t>(r)];
    if (steps::packed_closes_chunk_without_context(ctx)) {
      if (!cur.entries.empty()) close();
      return true;
    }
    Int start = 0;
    while (start < ctx) {
      if (steps::packed_takes_all(pp, rows, start, ctx, I, W, dcp)) {
        rows = rows + steps::packed_need(start, ctx - start, I, W, dcp);
        add(r, start, ctx - start);
        break;
      }
      const Int split = steps::packed_split_search(pp, rows, start, ctx, I, W, dcp) * pp.align;
      if (split > 0) {
        add(r, start, split);
        start = start + split;
      }
      if (!close()) return false;
    }
    return true;
  }
};

// Context-free prefills get an explicit empty partial (neutralize_empty_context_partials): the
// builder's empty_token_slices list EVERY context-free prefill, in order, as its prefill query
// range (vLLM 903ecb17 build_mla_chunked_context_metadata; ctx=[64,0,64,0], q=4 each:
// [(4,8), (12,16)]), and the final merge runs over every prefill token.
void record_empty_ranges(const Case& c, Plan& plan, const std::vector<std::int64_t>& qsl, std::int64_t base) {
  for (int r : plan.prefills)
    if (c.ctx[r] == 0) plan.empty_token_ranges.emplace_back(qsl[r] - base, qsl[r + 1] - base);
}

}  // namespace

void plan_packed(const Case& c, Plan& plan) {
  const bool dcp = plan.is_dcp();
  const Int W = plan.dcp, I = plan.interleave;
  // 1. Alignment, row budget, Mmax.
  const auto pp = steps::packed_params(info(plan.version).packed, plan.platform, plan.builder, Int(plan.workspace),
                                       Int(plan.block), W, I, dcp);
  plan.align = pp.align.get();
  plan.row_budget = pp.row_budget.get();
  plan.chunk_width = pp.Mmax.get();
  if (pp.Mmax <= 0) {
    add_assert(plan, "plan", "max_context_chunk > 0 (workspace smaller than alignment)", [&] {
      return "Mmax = round_down(" + std::to_string(plan.workspace) + ", " + std::to_string(plan.align) + ") = 0";
    });
    return;
  }
  // 2. Greedy packing.
  Packer pk{c, plan, pp, I, W, dcp, take_chunk(), 0};
  for (int r : plan.prefills)
    if (!pk.pack(r)) return;
  if (!pk.cur.entries.empty()) pk.close();

  // 3. Slices, prefix sums and the DCP local plan: reorg keeps, per rank, the local rows the
  // rank really owns.
  const auto& qsl = query_start_loc_scratch(c);
  const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];
  for (auto& ch : plan.chunks) {
    for (auto& e : ch.entries)
      if (dcp) {
        e.kept = take_rows();
        for (std::int64_t rank = 0; rank < plan.dcp; ++rank)
          e.kept.push_back(
              arith::reorg_kept_rows(Int(plan.local_ctx[e.request][rank]), Int(e.local_start), Int(e.padded_local_len))
                  .get());
      }
    finish_chunk(ch, dcp, qsl, base);
    if (dcp && ch.local_tokens() > plan.row_budget)
      add_assert(
          plan, "plan", "num_local_context_tokens <= row_budget",
          [&] {
            return "toks=" + std::to_string(ch.local_tokens()) + " row_budget=" + std::to_string(plan.row_budget);
          },
          static_cast<int>(&ch - plan.chunks.data()));
  }
  // 4. Merge bookkeeping.
  record_empty_ranges(c, plan, qsl, base);
  plan.built = true;
}

}  // namespace cp::detail

namespace cp {
namespace {
// The family's plan, then the asserts vLLM's DCP forward runs on it.
void plan_packed_and_forward(const Case& c, Plan& plan) {
  detail::plan_packed(c, plan);
  if (plan.built) detail::record_forward_asserts(plan);
}
}  // namespace

const FamilyInfo packed_family{
    .name = "packed",
    .summary =
        "requests packed in order into workspace-sized chunks; a request that does not fit is split at an "
        "aligned point and continues in the next chunk",
    .models = "vLLM plan_mla_context_chunks / build_mla_chunked_context_metadata (#50613, 903ecb17)",
    .init = &detail::vllm_init,
    .plan = &plan_packed_and_forward,
    .movement = &vllm_chunk_movement,
    .interval_level = true,
    .smt_encoded = true,
};
}  // namespace cp

// The old planner (v0 .. v4, pr41229): every prefill gets an equal share M = S // n of the
// workspace, the longest context drives the chunk count (spec §2.2). Every chunk is the slice
// of all prefills (context-free ones with zero-length entries). The arithmetic is steps.h's.
#include <algorithm>

#include "reference/planner/families/floor_divide/family.h"
#include "reference/planner/families/vllm/movement.h"
#include "reference/planner/planner_internal.h"

namespace cp::detail {

void plan_old(const Case& c, Plan& plan) {
  const FloorDivideRules& fr = info(plan.version).floor_divide;
  const Int S = plan.workspace, n = plan.num_with_context, W = plan.dcp, I = plan.interleave, B = plan.block;
  const bool dcp = plan.is_dcp();

  // 1. Chunk width M = round_down(S // n, rounding).
  plan.align = steps::old_round_to(fr.rounding, plan.platform, plan.builder, B, W).get();
  const Int M = steps::old_chunk_width(fr, plan.platform, plan.builder, S, n, B, W);
  plan.chunk_width = M.get();
  if (M <= 0) {
    add_assert(plan, "plan", "max_context_chunk > 0", [&] {
      return "M = round_down(" + std::to_string(S.get()) + " // " + std::to_string(n.get()) + ", " +
             std::to_string(plan.align) + ") = " + std::to_string(M.get());
    });
    return;  // no plan can be built
  }
  // 2. The per-step DCP assert checks W, not the virtual block V = I*W (spec §3.6).
  if (dcp && fr.per_step_assert && !steps::old_per_step_assert_holds(M, W))
    add_assert(plan, "plan", "max_context_chunk % dcp_world_size == 0", [&] {
      return "M=" + std::to_string(M.get()) + " W=" + std::to_string(W.get()) +
             " (M mod W = " + std::to_string(floormod(M, W).get()) + ")";
    });

  // 3. K chunks, every prefill (including ctx == 0) in every chunk.
  std::int64_t max_ctx = 0;
  for (int r : plan.prefills) max_ctx = std::max(max_ctx, c.ctx[r]);
  const Int K = arith::old_num_chunks(Int(max_ctx), M);
  const auto P = static_cast<std::int64_t>(plan.prefills.size());
  if (K > kMaxChunks || K * P > kMaxEntries)
    throw CaseError("ctx", "plan would have " + std::to_string(K.get()) + " chunks x " + std::to_string(P) +
                               " prefills, over the simulation limit; raise workspace or shorten ctx");

  if (dcp) plan.local_chunk = steps::old_local_chunk(fr, M, I, W).get();
  const Int PL = plan.local_chunk;
  const auto& qsl = query_start_loc_scratch(c);
  const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];

  for (Int ci = 0; ci < K; ci = ci + 1) {
    Chunk ch = take_chunk();
    for (int r : plan.prefills) {
      const Int ctx = c.ctx[r];
      const auto g = steps::old_entry(fr, ctx, ci, M, PL, I, W);
      ChunkEntry e;
      e.request = r;
      e.start = g.start.get();
      e.len = g.len.get();
      if (dcp) {
        e.local_start = g.local_start.get();
        e.padded_local_len = g.padded_local_len.get();
        e.kept = take_rows();
        for (Int rank = 0; rank < W; rank = rank + 1)
          e.kept.push_back(steps::old_kept_rows(fr, ctx, ci, M, W, rank,
                                                Int(plan.local_ctx[r][static_cast<std::size_t>(rank.get())]), g)
                               .get());
      }
      ch.entries.push_back(std::move(e));
    }
    finish_chunk(ch, dcp, qsl, base);
    if (ch.max_seq_len() > plan.workspace)
      add_assert(
          plan, "plan", "max(max_seq_lens) <= chunked_prefill_workspace_size",
          [&] { return "max_seq_len=" + std::to_string(ch.max_seq_len()); }, static_cast<int>(ci.get()));
    plan.chunks.push_back(std::move(ch));
  }

  // 4. Merge bookkeeping: S4/S5 pass prefill_tokens_with_context = qsl[n] (spec §2.2, I-13).
  if (fr.passes_prefill_tokens_with_context)
    plan.prefill_tokens_with_context = qsl[static_cast<std::size_t>(plan.num_decodes + plan.num_with_context)] - base;
  plan.built = true;
}

}  // namespace cp::detail

namespace cp {
namespace {
// The family's plan, then the asserts vLLM's DCP forward runs on it.
void plan_floor_divide_and_forward(const Case& c, Plan& plan) {
  detail::plan_old(c, plan);
  if (plan.built) detail::record_forward_asserts(plan);
}
}  // namespace

const FamilyInfo floor_divide_family{
    .name = "floor-divide",
    .summary = "every prefill gets M = round_down(S // n, rounding); the longest context drives the chunk count",
    .models = "vLLM MLACommonMetadataBuilder.build (S1-S5): max_context_chunk = workspace // num_prefills_with_context",
    .init = &detail::vllm_init,
    .plan = &plan_floor_divide_and_forward,
    .movement = &vllm_chunk_movement,
    .interval_level = true,
    .smt_encoded = true,
};
}  // namespace cp

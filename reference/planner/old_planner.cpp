// The old planner (v0 .. v4, pr41229): every prefill gets an equal share M = S // n of the
// workspace, the longest context drives the chunk count (spec §2.2).
#include <algorithm>
#include <numeric>

#include "reference/planner/arith.h"
#include "reference/planner/planner_internal.h"

namespace cp::detail {

namespace {

// What M is rounded down to (1 = not rounded), per version and platform (spec §2.4).
Int rounding_of(const Case& c) {
  const VersionBehaviour b = behaviour(c.version, c.platform);
  const Int B = c.block, W = c.dcp;
  if (c.version == Version::pr41229)  // #41229: lcm(B, W) with aot_schedule, else W
    return c.platform == Platform::cuda ? lcm(B, W) : W;
  return b.round_chunk ? B : Int(1);
}

}  // namespace

void plan_old(const Case& c, Plan& plan) {
  const VersionBehaviour beh = behaviour(c.version, c.platform);
  const Int S = plan.workspace, n = plan.num_with_context, W = c.dcp, I = c.interleave;
  const bool dcp = c.dcp > 1;

  // 1. Chunk width M = round_down(S // n, rounding).
  plan.align = rounding_of(c).get();
  const Int M = arith::old_chunk_width(S, n, Int(plan.align));
  plan.chunk_width = M.get();
  if (M <= 0) {
    add_assert(plan, "plan", "max_context_chunk > 0",
               "M = round_down(" + std::to_string(S.get()) + " // " + std::to_string(n.get()) + ", " +
                   std::to_string(plan.align) + ") = " + std::to_string(M.get()));
    return;  // no plan can be built
  }
  // 2. The per-step DCP assert checks W, not the virtual block V = I*W (spec §3.6).
  if (dcp && beh.per_step_assert && floormod(M, W) != 0)
    add_assert(plan, "plan", "max_context_chunk % dcp_world_size == 0",
               "M=" + std::to_string(M.get()) + " W=" + std::to_string(W.get()) + " (M mod W = " +
                   std::to_string(floormod(M, W).get()) + ")");

  // 3. K chunks, every prefill (including ctx == 0) in every chunk.
  std::int64_t max_ctx = 0;
  for (int r : plan.prefills) max_ctx = std::max(max_ctx, c.ctx[r]);
  const Int K = arith::old_num_chunks(Int(max_ctx), M);
  const auto P = static_cast<std::int64_t>(plan.prefills.size());
  if (K > kMaxChunks || K * P > kMaxEntries)
    throw CaseError("ctx", "plan would have " + std::to_string(K.get()) + " chunks x " + std::to_string(P) +
                               " prefills, over the simulation limit; raise workspace or shorten ctx");

  const bool v1 = c.version == Version::v1_dcp;
  if (dcp) plan.local_chunk = v1 ? floordiv(M, W).get() : arith::old_local_chunk(M, I, W).get();
  const Int PL = plan.local_chunk;

  for (Int ci = 0; ci < K; ci = ci + 1) {
    Chunk ch;
    for (int r : plan.prefills) {
      const Int ctx = c.ctx[r];
      ChunkEntry e;
      e.request = r;
      e.start = (ci * M).get();
      e.len = arith::old_span_len(ctx, ci, M).get();
      if (dcp) {
        if (v1) {
          e.local_start = (ci * floordiv(M, W)).get();
          e.padded_local_len = arith::v1_local_len(ctx, ci, M, W).get();
          for (Int rank = 0; rank < W; rank = rank + 1)
            e.kept.push_back(arith::v1_reorg_kept_rows(ctx, ci, M, W, rank, Int(e.padded_local_len)).get());
        } else {
          e.local_start = (ci * PL).get();
          e.padded_local_len = arith::old_local_len(ctx, ci, PL, I, W).get();
          for (std::int64_t rank = 0; rank < c.dcp; ++rank)
            e.kept.push_back(
                arith::reorg_kept_rows(Int(plan.local_ctx[r][rank]), Int(e.local_start), Int(e.padded_local_len))
                    .get());
        }
      }
      ch.entries.push_back(std::move(e));
    }
    finish_chunk(ch, dcp);
    if (ch.max_seq_len() > plan.workspace)
      add_assert(plan, "plan", "max(max_seq_lens) <= chunked_prefill_workspace_size",
                 "max_seq_len=" + std::to_string(ch.max_seq_len()), static_cast<int>(ci.get()));
    plan.chunks.push_back(std::move(ch));
  }

  // 4. Merge bookkeeping: S4/S5 pass prefill_tokens_with_context = qsl[n] (spec §2.2, I-13).
  if (info(c.version).masks_context_free_tokens) {
    const auto qsl = query_start_loc(c);
    const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];
    plan.prefill_tokens_with_context =
        qsl[static_cast<std::size_t>(plan.num_decodes + plan.num_with_context)] - base;
  }
  plan.built = true;
}

}  // namespace cp::detail

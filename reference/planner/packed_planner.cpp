// The packed planner (v5-packed, v6-current; #50613, spec §2.3): requests are packed into
// the workspace in batch order; a request that does not fit is split at a multiple of the
// alignment and continues at the start of the next chunk.
#include <algorithm>

#include "reference/planner/arith.h"
#include "reference/planner/planner_internal.h"

namespace cp::detail {

void plan_packed(const Case& c, Plan& plan) {
  const VersionBehaviour beh = behaviour(c.version, c.platform);
  const bool dcp = c.dcp > 1;
  const Int S = plan.workspace, W = c.dcp, I = c.interleave, B = c.block;

  // 1. Alignment and budgets.
  Int align = beh.align_chunk_to_block ? B : Int(1);
  if (dcp) align = lcm(align, I * W);
  plan.align = align.get();
  plan.row_budget = dcp ? floordiv(S, W).get() : S.get();
  const Int row_budget = plan.row_budget;
  const Int Mmax = round_down(S, align);
  plan.chunk_width = Mmax.get();
  if (Mmax <= 0) {
    add_assert(plan, "plan", "max_context_chunk > 0 (workspace smaller than alignment)",
               "Mmax = round_down(" + std::to_string(S.get()) + ", " + std::to_string(align.get()) + ") = 0");
    return;
  }
  auto need = [&](Int start, Int len) { return arith::packed_rows_needed(start, len, I, W, dcp); };

  // 2. Greedy packing.
  Chunk cur;
  Int rows = 0;
  auto close = [&]() -> bool {
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
    cur = Chunk{};
    rows = 0;
    return true;
  };
  auto add = [&](int r, Int start, Int len) {
    ChunkEntry e;
    e.request = r;
    e.start = start.get();
    e.len = len.get();
    if (dcp) {
      e.local_start = padded_local_rows(start, I, W).get();
      e.padded_local_len = (padded_local_rows(start + len, I, W) - Int(e.local_start)).get();
    }
    cur.entries.push_back(std::move(e));
  };

  for (int r : plan.prefills) {
    const Int ctx = c.ctx[r];
    Int start = 0;
    while (start < ctx) {
      const Int remaining = ctx - start;
      const Int full = need(start, remaining);
      if (rows + full <= row_budget) {
        add(r, start, remaining);
        rows = rows + full;
        break;
      }
      // Largest multiple of align <= cap whose rows fit what is left: binary search over
      // the multiple, as vLLM does (the rows needed are monotone in the length).
      const Int cap = arith::packed_split_cap(remaining, align, Mmax);
      Int lo = 0, hi = floordiv(max(cap, Int(0)), align);
      while (lo < hi) {
        const Int mid = floordiv(lo + hi + 1, Int(2));
        if (rows + need(start, mid * align) <= row_budget) lo = mid;
        else hi = mid - 1;
      }
      const Int split = lo * align;
      if (split > 0) {
        add(r, start, split);
        start = start + split;
      }
      if (!close()) return;
    }
  }
  if (!cur.entries.empty()) close();

  // 3. DCP local plan: reorg keeps, per rank, the local rows the rank really owns.
  for (auto& ch : plan.chunks) {
    for (auto& e : ch.entries)
      if (dcp)
        for (std::int64_t rank = 0; rank < c.dcp; ++rank)
          e.kept.push_back(arith::reorg_kept_rows(Int(plan.local_ctx[e.request][rank]), Int(e.local_start),
                                                  Int(e.padded_local_len))
                               .get());
    finish_chunk(ch, dcp);
    if (dcp && ch.local_tokens() > plan.row_budget)
      add_assert(plan, "plan", "num_local_context_tokens <= row_budget",
                 "toks=" + std::to_string(ch.local_tokens()) + " row_budget=" + std::to_string(plan.row_budget),
                 static_cast<int>(&ch - plan.chunks.data()));
  }

  // 4. Context-free prefills get an explicit empty partial (init_mla_context_partial). S7
  // (v5) lists every context-free prefill; the later version S8 (v6) passes
  // prefill_tokens_with_context = end of the last request with context and lists only the
  // context-free prefills before it (ctx=[64,0,64,0], q=4 each: 12 and [(4,8)]).
  const auto qsl = query_start_loc(c);
  const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];
  std::int64_t end_with_context = 0;
  for (int r : plan.prefills)
    if (c.ctx[r] > 0) end_with_context = qsl[r + 1] - base;
  if (c.version == Version::v6_current) plan.prefill_tokens_with_context = end_with_context;
  for (int r : plan.prefills)
    if (c.ctx[r] == 0 && (c.version != Version::v6_current || qsl[r + 1] - base <= end_with_context))
      plan.empty_token_ranges.emplace_back(qsl[r] - base, qsl[r + 1] - base);
  plan.built = true;
}

}  // namespace cp::detail

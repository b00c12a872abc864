// The ATOM planner (ROCm/ATOM atom/model_ops/attentions/aiter_mla.py; other-engines.md §1.1-§1.4).
// Which planner runs: under DCP (W > 1) the DCP planner, always; without DCP the packing planner
// when the cached tokens exceed the chunk size S (#1938), else a single pass over all of them.
// Every chunk holds every prefill of the step, with a zero-length entry where a request has
// nothing in it. The movement is vLLM's shape row for row: each rank gathers the same local
// window of every request, the all-gather is rank-major, and ag_row_indices (#2113; before it
// reorg_kvcache) keeps real[i][r] rows of rank r's block of request i.
#include <algorithm>

#include "reference/planner/families/atom/family.h"
#include "reference/planner/families/vllm/movement.h"
#include "reference/planner/planner_internal.h"

namespace cp::detail {
namespace {

void refuse_if_too_large(Int chunks, std::size_t prefills) {
  if (chunks > kMaxChunks || chunks * static_cast<std::int64_t>(prefills) > kMaxEntries)
    throw CaseError("ctx", "plan would have " + std::to_string(chunks.get()) + " chunks x " + std::to_string(prefills) +
                               " prefills, over the simulation limit; raise workspace or shorten ctx");
}

// _build_mla_chunk_meta (A1/A2 l.1221-1308): chunk c is [c*S, (c+1)*S) of the concatenated
// contexts; a request can be split at any token. Without it (sum <= S) one pass over everything.
void plan_atom_packed(const Case& c, Plan& plan, const std::vector<std::int64_t>& qsl, std::int64_t base) {
  const Int total = sum_of_contexts(c, plan), S = plan.workspace;
  const bool chunked = S > 0 && total > S;
  const Int width = chunked ? S : total;
  plan.chunk_width = width.get();
  if (!chunked) add_note(plan, "sum of cached tokens <= S: single pass, no chunk metadata");
  const Int K = cdiv(total, width);
  refuse_if_too_large(K, plan.prefills.size());
  for (Int ci = 0; ci < K; ci = ci + 1) {
    const Int g0 = ci * width, g1 = min(g0 + width, total);
    Chunk ch = take_chunk();
    Int off = 0;
    for (int r : plan.prefills) {
      const Int ctx = c.ctx[static_cast<std::size_t>(r)];
      const Int lo = max(off, g0), hi = min(off + ctx, g1);
      ChunkEntry e;
      e.request = r;
      e.len = max(hi - lo, Int(0)).get();
      e.start = e.len > 0 ? (lo - off).get() : 0;
      ch.entries.push_back(std::move(e));
      off = off + ctx;
    }
    finish_chunk(ch, false, qsl, base);
    plan.chunks.push_back(std::move(ch));
  }
}

// One chunk of the window [lo, lo + ch) over the prefills [first, last) of plan.prefills.
Chunk atom_window_chunk(const Case& c, const Plan& plan, std::size_t first, std::size_t last, Int lo, Int ch) {
  const Int B = plan.block, W = plan.dcp;
  Chunk chunk = take_chunk();
  for (std::size_t k = first; k < last; ++k) {
    const int r = plan.prefills[k];
    const auto ri = static_cast<std::size_t>(r);
    const Int pl = steps::atom_padded_local(Int(c.ctx[ri]), B, W);
    ChunkEntry e;
    e.request = r;
    e.local_start = lo.get();
    e.padded_local_len = steps::atom_window_rows(pl, lo, ch).get();
    e.kept = take_rows();
    Int glen = 0;
    for (std::size_t rank = 0; rank < static_cast<std::size_t>(plan.dcp); ++rank) {
      const Int real = steps::atom_window_rows(Int(plan.local_ctx[ri][rank]), lo, ch);
      e.kept.push_back(real.get());
      glen = glen + real;
    }
    e.len = glen.get();
    e.start = e.len > 0 ? (lo * W).get() : 0;
    chunk.entries.push_back(std::move(e));
  }
  return chunk;
}

// The windows of one group of prefills [first, last): nch = max(1, cdiv(max pl_i, ch)) chunks.
void plan_atom_group(const Case& c, Plan& plan, std::size_t first, std::size_t last, Int ch) {
  const auto& qsl = query_start_loc_scratch(c);
  const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];
  Int longest = 0;
  for (std::size_t k = first; k < last; ++k)
    longest = max(longest, steps::atom_padded_local(Int(c.ctx[static_cast<std::size_t>(plan.prefills[k])]),
                                                    Int(plan.block), Int(plan.dcp)));
  const Int K = max(Int(1), cdiv(longest, ch));
  refuse_if_too_large(K + static_cast<std::int64_t>(plan.chunks.size()), plan.prefills.size());
  for (Int ci = 0; ci < K; ci = ci + 1) {
    Chunk chunk = atom_window_chunk(c, plan, first, last, ci * ch, ch);
    finish_chunk(chunk, true, qsl, base);
    if (chunk.total_tokens() > plan.workspace)
      add_note(plan, [&] {
        return "chunk " + std::to_string(plan.chunks.size()) + ": " + std::to_string(chunk.total_tokens()) +
               " rows > S=" + std::to_string(plan.workspace) + " (window " + std::to_string(ch.get()) +
               " = B: S < n*W*B); post-#2113 _dcp_context_kv_buffers " +
               "allocates fresh k/v for it, pre-#2113 kv_b_proj does: guarded, the memory bound is what breaks";
      });
    plan.chunks.push_back(std::move(chunk));
  }
}

// _build_mla_chunk_meta_dcp (A1; A2 l.1310-1445): the window [lo, lo + ch) of local rows on every
// rank is the global span [lo*W, (lo + ch)*W) when I | B; every prefill in every chunk.
// The fix (AtomWindow::grouped_interleave): groups of at most g prefills with context, each with
// its own run of windows of a multiple of I rows (a group's chunks hold only its prefills).
void plan_atom_dcp(const Case& c, Plan& plan) {
  const Int B = plan.block, W = plan.dcp, I = plan.interleave, S = plan.workspace;
  plan.align = plan.block;
  if (plan.version_info().atom.window == AtomWindow::block) {
    const Int ch = steps::atom_window(S, Int(plan.num_with_context), B, W);
    plan.chunk_width = plan.local_chunk = ch.get();
    plan_atom_group(c, plan, 0, plan.prefills.size(), ch);
    return;
  }
  plan.align = plan.interleave;
  const Int g = min(steps::atom_fixed_group(S, W, I), Int(plan.num_with_context));
  const Int ch = steps::atom_fixed_window(S, g, W, I);
  plan.chunk_width = plan.local_chunk = ch.get();
  std::size_t first = 0;
  while (first < plan.prefills.size()) {
    std::size_t last = first;
    Int with_context = 0;
    while (last < plan.prefills.size()) {
      const bool has = c.ctx[static_cast<std::size_t>(plan.prefills[last])] > 0;
      if (has && with_context == g) break;
      with_context = with_context + (has ? 1 : 0);
      ++last;
    }
    plan_atom_group(c, plan, first, last, ch);
    first = last;
  }
}

void plan_atom(const Case& c, Plan& plan) {
  const auto& qsl = query_start_loc_scratch(c);
  const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];
  if (plan.is_dcp())
    plan_atom_dcp(c, plan);
  else
    plan_atom_packed(c, plan, qsl, base);
  plan.built = true;
}

// The engine's config asserts (A2 atom/config.py l.1669-1687, A-1) and its workspace: k_ws and
// v_ws of S rows each, shared by every layer and chunk.
void atom_init(const Case& c, Plan& plan) {
  plan.workspace_rows = plan.workspace;
  if (plan.version_info().atom.window == AtomWindow::grouped_interleave) {
    // The fix's startup checks (docs/findings/atom.md): A-1's config rules and one virtual block
    // per rank in S; the fixed row refuses a config that fails them before serving, as an input
    // error (exit 2), where ATOM's own rows record its config asserts.
    if (c.interleave > 1 && c.dcp == 1)
      throw CaseError("interleave", "atom-fixed: cp_kv_cache_interleave_size > 1 requires decode context parallelism");
    if (c.dcp > 1 && plan.workspace < c.dcp * c.interleave)
      throw CaseError("workspace",
                      "atom-fixed needs attn_prefill_chunk_size >= dcp_world_size * cp_kv_cache_interleave_size: S=" +
                          std::to_string(plan.workspace) + " < W*I=" + std::to_string(c.dcp * c.interleave));
  }
  if (c.interleave > c.block || c.block % c.interleave != 0)
    add_assert(plan, "init", "1 <= cp_kv_cache_interleave_size <= block_size, block_size % interleave == 0",
               [&] { return "I=" + std::to_string(c.interleave) + " B=" + std::to_string(c.block); });
  if (c.interleave > 1 && c.dcp == 1)
    add_assert(plan, "init", "cp_kv_cache_interleave_size > 1 requires decode context parallelism",
               [&] { return "I=" + std::to_string(c.interleave) + " W=1"; });
}

}  // namespace
}  // namespace cp::detail

namespace cp {
const FamilyInfo atom_family{
    .name = "atom",
    .summary =
        "without DCP the contexts packed into chunks of S rows; under DCP one local window of "
        "max(B, round_down(S // (n*W), B)) rows per rank for every request",
    .models = "ROCm/ATOM aiter_mla.py _build_mla_chunk_meta / _build_mla_chunk_meta_dcp (other-engines.md §1)",
    .init = &detail::atom_init,
    .plan = &detail::plan_atom,
    .movement = &vllm_chunk_movement,  // ag_row_indices is vLLM's reorg row for row (§1.3, §1.4)
    .interval_level = true,            // vLLM's movement: I-9's closed form (invariants/interval/) is its exact walk
    .send_buffers_per_chunk = true,    // index_select and all_gather allocate (A4 step 2-3)
    .smt_encoded = true,               // invariants/smt/encode_atom.cpp
};
}  // namespace cp

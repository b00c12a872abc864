// The TokenSpeed planner (python/tokenspeed/runtime/layers/attention/chunk.py; other-engines.md
// §3.1): C = chunked_prefill_size * mla_chunk_multiplier rows (T3), chunk_len = C // bs, every
// prefill in every chunk. Under DCP (I = 1, owner p mod W) the compact plan: each rank reads only
// its own rows of each request's span, the all-gather is rank-major over P rows per rank, and the
// reconstruction index restores position order. The rows a rank reads start at the first owned
// position the index-building Triton kernel computes (the version's KernelModulo): with Triton's
// truncating `%` that is one stride early for ranks r < s mod W (T-B1), while the host's counts
// and the reconstruction assume the floor value.
#include <algorithm>

#include "reference/planner/families/rectangular_plan.h"
#include "reference/planner/families/tokenspeed/family.h"
#include "reference/planner/families/vllm/movement.h"

namespace cp::detail {
namespace {

// Per entry: kept[r] = count[r][i]; padded_local_len = cdiv(L, W), the count of the rank with
// (r - s) mod W = 0 — every entry of a chunk has the same s, so that rank has the most rows of
// every request and P = max_r sum_i count[r][i] is the sum of these (the plan's local rows).
void ts_dcp_rows(ChunkEntry& e, Int W) {
  e.local_start = floordiv(Int(e.start), W).get();  // position group of s; each rank's first row: the movement
  e.padded_local_len = cdiv(Int(e.len), W).get();
  e.kept = take_rows();
  for (Int r = 0; r < W; r = r + 1) e.kept.push_back(steps::owned_in_span(r, Int(e.start), Int(e.len), W).get());
}

void plan_tokenspeed(const Case& c, Plan& plan) {
  const Int chunk_len = rect_chunk_len_or_crash(plan);
  if (chunk_len == 0) return;
  plan_rectangular(c, plan, chunk_len, ts_dcp_rows);
  plan.local_chunk = plan.chunk_width;
  plan.built = true;
}

void tokenspeed_init(const Case&, Plan& plan) { plan.workspace_rows = plan.workspace; }

}  // namespace

// Rank r, request i: a gather of count[r][i] local rows from the kernel's first owned position
// (local row first // W), packed request after request into the rank's send rows; the
// reconstruction keeps them W apart from row cu[i] + (host first owned - s).
ChunkMovement tokenspeed_chunk_movement(const Plan& p, const Chunk& ch) {
  if (!p.is_dcp()) return vllm_chunk_movement(p, ch);  // one gather per request (T3)
  const KernelModulo km = p.version_info().tokenspeed.first_owned;
  const Int W = p.dcp;
  ChunkMovement m{.exchange = Exchange::all_gather, .dcp = true, .gather_per_rank = true};
  m.total_rows = ch.total_tokens();
  m.local_rows = ch.local_tokens();
  m.gathered_rows = (Int(m.local_rows) * W).get();
  for (Int r = 0; r < W; r = r + 1) {
    std::int64_t off = 0;
    for (std::size_t b = 0; b < ch.entries.size(); ++b) {
      const auto& e = ch.entries[b];
      const std::int64_t n = e.kept[static_cast<std::size_t>(r.get())];
      if (n == 0) continue;
      const Int s = e.start;
      const int rank = static_cast<int>(r.get());
      m.gather.push_back({.request = e.request,
                          .rank = rank,
                          .src = floordiv(steps::ts_first_owned_kernel(r, s, W, km), W).get(),
                          .dst = off,
                          .len = n});
      m.reorg.push_back({.request = e.request,
                         .rank = rank,
                         .src = (r * m.local_rows + off).get(),
                         .dst = (Int(ch.cu_seq_lens[b]) + steps::ts_first_owned_host(r, s, W) - s).get(),
                         .len = n,
                         .dst_stride = W.get()});
      off += n;
    }
  }
  m.reorg_rows = m.total_rows;
  return m;
}

}  // namespace cp::detail

namespace cp {
const FamilyInfo tokenspeed_family{
    .name = "tokenspeed",
    .summary =
        "rectangular chunks of C // bs per request; under DCP each rank sends only its own rows "
        "(compact, rank-major), reconstructed W apart",
    .models = "TokenSpeed chunk.py build_dcp_compact_reconstruction_plan and its index kernel (other-engines.md §3)",
    .init = &detail::tokenspeed_init,
    .plan = &detail::plan_tokenspeed,
    .movement = &detail::tokenspeed_chunk_movement,
    .plans_every_request = true,     // chunk_len = capacity // len(prefix_lens_cpu), every extend (get_chunks_paged)
    .send_buffers_per_chunk = true,  // torch.zeros(padded_local_tokens) and the all-gather per chunk (T1)
    .smt_encoded = true,             // invariants/smt/encode_tokenspeed.cpp
};
}  // namespace cp

// The SGLang planner (DeepSeek MHA with chunked prefix cache; other-engines.md §2.1-§2.3):
// chunk_len = C // bs over every request of the extend batch, every request in every chunk.
// Under DCP (I = 1, the widened page keeps loc = p mod W) the chunked path reads each rank's own
// rows (owner mask), pads every request to padded = (L + m + W - 1) // W rows, all-gathers,
// transposes (row t*W + r) and slices [cu_pad*W + m, +L) per request (G6). The one-shot path
// (sglang-oneshot-dcp, G3) attends the whole prefix in one pass when sum(prefix) <= C, and
// reads every W-th element of the concatenated prefix indices from r (G-10): correct only when
// every request whose prefix is not a multiple of W starts at an offset that is; otherwise a
// rank holds another number of rows than the layout's get_dcp_lens and the split raises.
#include <algorithm>

#include "reference/planner/families/rectangular_plan.h"
#include "reference/planner/families/sglang/family.h"
#include "reference/planner/families/vllm/movement.h"

namespace cp::detail {
namespace {

// Per entry: the padded send rows (every rank) from local row (s - m) / W, and each rank's real
// rows get_dcp_lens(L, W, r, s) (kept: they add up to L).
void sglang_dcp_rows(ChunkEntry& e, Int W) {
  const Int s = e.start, L = e.len;
  e.local_start = floordiv(s - floormod(s, W), W).get();
  e.padded_local_len = steps::sglang_padded(s, L, W).get();
  e.kept = take_rows();
  for (Int r = 0; r < W; r = r + 1) e.kept.push_back(steps::owned_in_span(r, s, L, W).get());
}

bool one_shot(const Plan& p) {
  return p.version_info().sglang.read == SGLangPrefixRead::strided_concat && p.chunks.size() == 1;
}

// The one-shot pass: one chunk, every prefill's whole prefix.
void plan_one_shot(const Case& c, Plan& plan) {
  const auto& qsl = query_start_loc_scratch(c);
  const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];
  Chunk ch = take_chunk();
  for (int r : plan.prefills) {
    ChunkEntry e;
    e.request = r;
    e.len = c.ctx[static_cast<std::size_t>(r)];
    if (plan.is_dcp()) sglang_dcp_rows(e, Int(plan.dcp));
    ch.entries.push_back(std::move(e));
  }
  finish_chunk(ch, plan.is_dcp(), qsl, base);
  plan.chunk_width = ch.total_tokens();
  plan.chunks.push_back(std::move(ch));
}

// G-10: rank r's strided read yields total // W + [r < total mod W] rows; the layout splits them
// by get_dcp_lens(prefix_i, W, r, 0). The first rank where they differ raises (shape mismatch).
void check_strided_read(const Case& c, Plan& plan) {
  const Int W = plan.dcp;
  Int total = 0;
  for (int r : plan.prefills) total = total + c.ctx[static_cast<std::size_t>(r)];
  for (Int rank = 0; rank < W; rank = rank + 1) {
    Int want = 0;
    for (int r : plan.prefills)
      want = want + steps::owned_in_span(rank, Int(0), Int(c.ctx[static_cast<std::size_t>(r)]), W);
    const Int have = steps::sglang_strided_rows(rank, total, W);
    if (have == want) continue;
    add_assert(
        plan, "forward",
        "RuntimeError (shape mismatch) in all_gather_kv_cache_for_dcp: local prefix rows == sum_i get_dcp_lens",
        [&] {
          return "rank " + std::to_string(rank.get()) + " reads " + std::to_string(have.get()) +
                 " rows (every W-th of the " + std::to_string(total.get()) +
                 " concatenated prefix indices), the layout expects " + std::to_string(want.get()) +
                 " (a request with prefix mod W != 0 starts at an offset that is not a multiple of W: G-10)";
        },
        0);
    plan.asserts.back().kind = FailureKind::crash;
    return;
  }
}

void plan_sglang(const Case& c, Plan& plan) {
  const VersionInfo& vi = plan.version_info();
  Int total = 0;
  for (int r : plan.prefills) total = total + c.ctx[static_cast<std::size_t>(r)];
  if (vi.sglang.read == SGLangPrefixRead::strided_concat && total <= plan.workspace) {
    add_note(plan,
             "one-shot MHA (sum of prefixes <= C); the dispatch's lower threshold "
             "(SGLANG_CHUNKED_PREFIX_CACHE_THRESHOLD = 8192) is not modelled: the dispatch code was not read");
    plan_one_shot(c, plan);
    if (plan.is_dcp()) check_strided_read(c, plan);
  } else {
    if (vi.sglang.read == SGLangPrefixRead::strided_concat)
      add_note(plan, "sum of prefixes > C: the chunked path (G7's dispatch comments)");
    const Int chunk_len = rect_chunk_len_or_crash(plan);
    if (chunk_len == 0) return;
    plan_rectangular(c, plan, chunk_len, sglang_dcp_rows);
  }
  plan.local_chunk = plan.chunk_width;
  plan.built = true;
}

void sglang_init(const Case&, Plan& plan) { plan.workspace_rows = plan.workspace; }

// One-shot path: rank r's rows are the concatenated prefix indices at offsets r, r + W, ...: in
// request i's segment [off_i, off_i + L_i) they collapse to local rows 0, 1, ... of request i
// (positions r, r + W, ... on rank r), and the layout cuts the rank's stream into blocks of
// get_dcp_lens(L_j, W, r, 0) rows at send row cu_pad[j] — the segment and the block of one row
// differ exactly when the premise fails.
void strided_gathers(const Plan& p, const Chunk& ch, ChunkMovement& m) {
  const Int W = p.dcp;
  m.gather_per_rank = true;
  for (Int r = 0; r < W; r = r + 1) {
    const int rank = static_cast<int>(r.get());
    std::size_t blk = 0;
    std::int64_t blk_used = 0;
    Int off = 0;
    for (const auto& seg : ch.entries) {
      const Int L = seg.len;
      Int n = steps::owned_in_span(r, off, L, W);  // offsets k = r (mod W) in [off, off + L)
      // The first is position p0 = (r - off) mod W < W of the segment: its slot collapses to local
      // row p0 // W = 0, which on rank r holds position r (p0 itself only when W | off).
      Int row = 0;
      while (n > 0 && blk < ch.entries.size()) {
        const std::int64_t want = ch.entries[blk].kept[static_cast<std::size_t>(rank)];
        if (blk_used == want) {
          ++blk;
          blk_used = 0;
          continue;
        }
        const Int len = min(n, Int(want - blk_used));
        m.gather.push_back({.request = seg.request,
                            .rank = rank,
                            .src = row.get(),
                            .dst = ch.padded_local_cu[blk] + blk_used,
                            .len = len.get()});
        blk_used += len.get();
        row = row + len;
        n = n - len;
      }
      off = off + L;
    }
  }
}

}  // namespace

ChunkMovement sglang_chunk_movement(const Plan& p, const Chunk& ch) {
  if (!p.is_dcp()) return vllm_chunk_movement(p, ch);
  const Int W = p.dcp;
  ChunkMovement m{.exchange = Exchange::all_gather, .dcp = true, .layout = GatherLayout::row_interleaved};
  m.total_rows = ch.total_tokens();
  m.local_rows = ch.local_tokens();
  m.gathered_rows = (Int(m.local_rows) * W).get();
  if (one_shot(p)) {
    strided_gathers(p, ch, m);
  } else {
    for (std::size_t b = 0; b < ch.entries.size(); ++b) {
      const auto& e = ch.entries[b];
      if (e.padded_local_len > 0)
        m.gather.push_back(
            {.request = e.request, .src = e.local_start, .dst = ch.padded_local_cu[b], .len = e.padded_local_len});
    }
  }
  for (std::size_t b = 0; b < ch.entries.size(); ++b) {
    const auto& e = ch.entries[b];
    if (e.len > 0)
      m.reorg.push_back({.request = e.request,
                         .src = (Int(ch.padded_local_cu[b]) * W + floormod(Int(e.start), W)).get(),
                         .dst = ch.cu_seq_lens[b],
                         .len = e.len});
  }
  m.reorg_rows = m.total_rows;
  return m;
}

}  // namespace cp::detail

namespace cp {
const FamilyInfo sglang_family{
    .name = "sglang",
    .summary =
        "rectangular chunks of C // bs per request; under DCP an owner-mask read, a padded send, the "
        "all-gather transposed and sliced per request",
    .models = "SGLang forward_batch_info.py / forward_batch_deepseek_mha_mixin.py, layers/dcp/ (other-engines.md §2)",
    .init = &detail::sglang_init,
    .plan = &detail::plan_sglang,
    .movement = &detail::sglang_chunk_movement,
    .plans_every_request = true,     // chunk_len = C // self.batch_size over the extend batch (G2)
    .send_buffers_per_chunk = true,  // all_gather_kv_cache_for_dcp pads and gathers into new tensors (G6)
    .smt_encoded = true,             // invariants/smt/encode_sglang.cpp
};
}  // namespace cp

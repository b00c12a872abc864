// The movement vocabulary of the plan value (reference/planner/movement.h) carries every
// engine's context data movement of other-engines.md, executed by the one token-level
// simulation: SGLang's slice of the transposed all-gather (§2.3), TokenSpeed's compact send and
// strided reconstruction (§3.1) — with its truncating-modulo bug T-B1 (§3.3) showing as the
// duplicated and missing keys the spec computed — and local attention (vLLM's PCP x DCP shard).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "reference/dcp/simulate.h"

namespace cp {
namespace {

// Python's floor modulo and division (the host code's semantics).
std::int64_t floormod(std::int64_t a, std::int64_t b) { return ((a % b) + b) % b; }
std::int64_t floordiv(std::int64_t a, std::int64_t b) { return (a - floormod(a, b)) / b; }

Plan geometry(std::int64_t W) {
  Plan p;
  p.dcp = W;
  p.interleave = 1;
  p.virtual_block = W;
  return p;
}

std::vector<std::int64_t> positions(const std::vector<RowSource>& rows) {
  std::vector<std::int64_t> out;
  for (const auto& r : rows) out.push_back(r.kind == RowKind::context ? r.position : -1);
  return out;
}

std::vector<std::int64_t> iota(std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> v;
  for (std::int64_t x = lo; x < hi; ++x) v.push_back(x);
  return v;
}

// SGLang all_gather_kv_cache_for_dcp: every rank sends padded = (L + m + W - 1) / W rows from
// local row (s - m) / W (m = s mod W); the output is the all-gather transposed (row t*W + r is
// rank r's send row t) sliced at [m, m + L).
TEST(MovementVocabulary, SGLangTransposedSliceIsPositionOrder) {
  const std::int64_t W = 4, s = 10, L = 50, m = s % W, padded = (L + m + W - 1) / W;
  const std::vector<std::int64_t> ctx{100}, q{1};
  ChunkMovement mv{.exchange = Exchange::all_gather, .dcp = true, .layout = GatherLayout::row_interleaved};
  mv.total_rows = L;
  mv.local_rows = padded;
  mv.gathered_rows = W * padded;
  mv.gather.push_back({.request = 0, .src = (s - m) / W, .dst = 0, .len = padded});
  mv.reorg.push_back({.request = 0, .src = m, .dst = 0, .len = L});
  EXPECT_EQ(positions(simulate_chunk(Batch(ctx, q), geometry(W), mv)), iota(s, s + L));
}

// TokenSpeed build_dcp_compact_reconstruction_plan, one request of chunk c >= 1: rank r sends
// count[r] rows from its first owned position, P = max count rows per rank (rank-major), and
// the reconstruction puts rank o's rows W apart from row first_o - s. `truncating` computes the
// first owned position as the Triton kernel does, with a truncating remainder (spec T-B1).
ChunkMovement tokenspeed_chunk(std::int64_t W, std::int64_t s, std::int64_t L, bool truncating) {
  ChunkMovement mv{.exchange = Exchange::all_gather, .dcp = true, .gather_per_rank = true};
  std::vector<std::int64_t> count(static_cast<std::size_t>(W));
  for (std::int64_t r = 0; r < W; ++r) {
    const std::int64_t delta = floormod(r - s, W);
    count[static_cast<std::size_t>(r)] = delta >= L ? 0 : 1 + floordiv(L - 1 - delta, W);
  }
  const std::int64_t P = *std::max_element(count.begin(), count.end());
  mv.total_rows = L;
  mv.local_rows = P;
  mv.gathered_rows = W * P;
  for (std::int64_t r = 0; r < W; ++r) {
    const std::int64_t host_first = s + floormod(r - s, W);
    const std::int64_t kernel_first = s + (truncating ? (r - s % W) % W : floormod(r - s % W, W));
    const std::int64_t n = count[static_cast<std::size_t>(r)];
    mv.gather.push_back({.request = 0, .rank = static_cast<int>(r), .src = kernel_first / W, .dst = 0, .len = n});
    mv.reorg.push_back(
        {.request = 0, .rank = static_cast<int>(r), .src = r * P, .dst = host_first - s, .len = n, .dst_stride = W});
  }
  return mv;
}

TEST(MovementVocabulary, TokenSpeedReconstructionIsPositionOrder) {
  const std::vector<std::int64_t> ctx{20000}, q{1};
  const auto rows = simulate_chunk(Batch(ctx, q), geometry(4), tokenspeed_chunk(4, 10922, 9078, false));
  EXPECT_EQ(positions(rows), iota(10922, 20000));
}

// Bug pinned: TokenSpeed T-B1 (other-engines.md §3.3), C=32768, prefixes [20000, 100, 100],
// W=4: chunk 1 of request 0 attends keys 10920 and 10921 (already in chunk 0) and never 19996,
// 19997.
TEST(MovementVocabulary, TokenSpeedTruncatingModuloDuplicatesAndDrops) {
  const std::vector<std::int64_t> ctx{20000}, q{1};
  const auto got = positions(simulate_chunk(Batch(ctx, q), geometry(4), tokenspeed_chunk(4, 10922, 9078, true)));
  auto has = [&](std::int64_t p) { return std::find(got.begin(), got.end(), p) != got.end(); };
  EXPECT_TRUE(has(10920));
  EXPECT_TRUE(has(10921));
  EXPECT_FALSE(has(19996));
  EXPECT_FALSE(has(19997));
  EXPECT_EQ(got.size(), 9078u);  // the right count of rows: silent
}

// Local attention: each rank attends the rows of its own shard; nothing is exchanged, and the
// ranks' rows together are every position once.
TEST(MovementVocabulary, LocalAttentionCoversEveryPositionOnce) {
  const std::int64_t W = 2;
  const std::vector<std::int64_t> ctx{8}, q{1};
  ChunkMovement mv{.exchange = Exchange::local_attend, .dcp = true};
  mv.local_rows = 4;
  mv.gather.push_back({.request = 0, .src = 0, .dst = 0, .len = 4});
  auto got = positions(simulate_chunk(Batch(ctx, q), geometry(W), mv));
  EXPECT_EQ(got, (std::vector<std::int64_t>{0, 2, 4, 6, 1, 3, 5, 7}));  // rank-major
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, iota(0, 8));
}

}  // namespace
}  // namespace cp

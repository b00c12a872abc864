// PCP context reuse through the numerics (issue 25 item 5; vllm-pcp-and-sparse.md §2, vLLM #57668):
// a rank's merged row attends the shared chunk [0, ctx_a) with all its tokens, the tail chunk
// [t_s, ctx_b) (t_s = ctx_a + q_a, not block-aligned) with b's tokens only, and a's new tokens
// through its causal part; every row token is compared bit for bit with the unchunked reference
// of its global request. Each test fails if the tail served a's tokens too, if b's tokens missed
// a's keys in the causal part, or if the tail's start were off by one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "reference/dcp/movement.h"
#include "reference/mla/check.h"
#include "reference/planner/families/pcp/family.h"

namespace cp::mla {
namespace {

constexpr const char* kSmall = " heads=2 kv_lora_rank=8 rope_dim=4 nope_dim=4 v_dim=4";

// Merged pairs over every rank, and whether one of them has a negative tail (a row a after row b:
// PCP-A/B's fresh piece 0 moved last, the CR-1 hazard).
struct Merges {
  int pairs = 0;
  bool reversed = false;
};
Merges merges_of(const Case& c) {
  Merges m;
  const Plan p = make_plan(c);
  for (std::int64_t r = 0; r < p.pcp->size; ++r) {
    Case k = c;
    k.pcp_rank = r;
    const Plan pr = make_plan(k);
    for (const PcpMerge& mg : pr.pcp->ranks[static_cast<std::size_t>(r)].merges) {
      ++m.pairs;
      m.reversed = m.reversed || mg.tail_len < 0;
    }
  }
  return m;
}

TEST(ReuseNumerics, RandomReuseCasesBitIdenticalToTheGlobalReference) {
  int merged = 0, hazards = 0;
  for (Version v : {Version::pcp_a, Version::pcp_b, Version::pcp_c})
    for (std::uint64_t i = 0; i < 24; ++i) {
      const Case c = random_reuse_case(v, i % 2 ? Platform::rocm : Platform::cuda, 1, i);
      const Merges m = merges_of(c);
      const CheckResult r = run_check(c, {});
      SCOPED_TRACE(print_case(c) + "\n  " + r.one_line());
      if (r.assert_fired) continue;
      if (m.reversed) {  // the causal part lets piece 0 attend later positions: a finding
        EXPECT_EQ(r.exit_code(), 1);
        ++hazards;
        continue;
      }
      EXPECT_EQ(r.exit_code(), 0);
      EXPECT_TRUE(r.exact.identical());
      EXPECT_TRUE(r.vllm.ok());
      merged += m.pairs;
    }
  EXPECT_GT(merged, 20);  // merged rows ran, not only the v6 fallback
  EXPECT_GT(hazards, 0);  // pcp-a/pcp-b's fresh prefills: the reversed pair shows in the numbers
}

// vLLM's first unit test of #57668 as a PCP layout (P = 2, N = 64, q = 64, cs = 16): rank 0's
// rows (64, 16) and (112, 16) merge, shared [0, 64), tail [80, 112) for the last 16 tokens;
// rank 1's rows (80, 16), (96, 16) merge with tail [112, 96): empty (r = P - 1).
TEST(ReuseNumerics, SharedAndTailBitIdentical) {
  const Case c =
      parse_case(std::string("version=pcp-c workspace=128 block=16 pcp=2 ctx=64 q=64 ctx_reuse=on") + kSmall);
  const CheckResult r = run_check(c, {});
  EXPECT_EQ(r.exit_code(), 0) << r.one_line();
  EXPECT_TRUE(r.exact.identical()) << r.one_line();
  EXPECT_EQ(r.prefill_tokens, 64);
  EXPECT_EQ(r.exact.elements, 64 * 2 * 4);
  EXPECT_EQ(merges_of(c).pairs, 2);
}

// The unaligned tail start (vLLM's second test: tail at 78): N = 70, q = 32, cs = 8: rank 0's rows
// (70, 8) and (94, 8), tail [78, 94), block 16.
TEST(ReuseNumerics, UnalignedTailStartBitIdentical) {
  const Case c = parse_case(std::string("version=pcp-c workspace=64 block=16 pcp=2 ctx=70 q=32 ctx_reuse=on") + kSmall);
  const Plan p = make_plan(c);
  ASSERT_EQ(p.chunks.size(), 3u);  // shared [0, 64), [64, 70), tail [78, 94)
  EXPECT_EQ(p.chunks.back().entries[0].start, 78);
  const CheckResult r = run_check(c, {});
  EXPECT_TRUE(r.exact.identical()) << r.one_line();
  EXPECT_TRUE(r.vllm.ok()) << r.one_line();
}

// R-5 in bf16: the reuse plan and the v6 fallback (ctx_reuse=off) give the same bits on the exact
// path (its sums do not depend on the partition; the causal part reads a's K/V, the values the
// fallback reads back from the cache).
TEST(ReuseNumerics, ReuseAndFallbackSameExactBits) {
  const std::string base = std::string("version=pcp-b workspace=96 block=16 pcp=2 ctx=100,37 q=48,20") + kSmall;
  CheckOptions o;
  o.keep_outputs = true;
  const CheckResult on = run_check(parse_case(base + " ctx_reuse=on"), o);
  const CheckResult off = run_check(parse_case(base), o);
  ASSERT_TRUE(on.exact.identical()) << on.one_line();
  ASSERT_TRUE(off.exact.identical()) << off.one_line();
  ASSERT_EQ(on.chunked_out.size(), off.chunked_out.size());
  for (std::size_t i = 0; i < on.chunked_out.size(); ++i)
    ASSERT_EQ(bits_of(on.chunked_out[i]), bits_of(off.chunked_out[i])) << "element " << i;
  EXPECT_LT(on.attended_rows, off.attended_rows);  // the merged rows gather less
}

// A tail chunk whose start is off by `shift` (its length kept): the data path reads one position
// twice and misses another, and the comparison names it.
template <int shift>
ChunkMovement shifted_tail(const Plan& p, const Chunk& ch) {
  if (!ch.is_continuation || ch.token_start == 0) return chunk_movement(p, ch);
  Chunk wrong = ch;
  wrong.entries[0].start += shift;
  return chunk_movement(p, wrong);
}

TEST(ReuseNumerics, AWrongTailStartIsABitDifference) {
  const Case c = parse_case(std::string("version=pcp-c workspace=64 block=16 pcp=2 ctx=70 q=32 ctx_reuse=on") + kSmall);
  for (auto* mv : {&shifted_tail<-1>, &shifted_tail<1>}) {
    CheckOptions o;
    o.movement = mv;
    const CheckResult r = run_check(c, o);
    EXPECT_GT(r.exact.differing, 0) << r.one_line();
    EXPECT_EQ(r.exit_code(), 1);
    bool named = false;  // the routing names a position read twice or never
    for (const RequestRouting& rt : r.exact.routing) named = named || rt.n_twice > 0 || rt.n_missing > 0;
    EXPECT_TRUE(named);
  }
  EXPECT_EQ(run_check(c, {}).exit_code(), 0);  // and the right start is not
}

// tests/gpu/reuse-random.cases (the random reuse cases `check --device gpu --cases` runs on the
// H200, scripts/h200-run.sh) is random_reuse_case's output, seed 1: 100 per pcp version, platforms
// alternating. CHUNKPROOF_WRITE_REUSE_CASES=1 rewrites it.
TEST(ReuseNumerics, GpuCasesFileIsTheGenerators) {
  std::string want = "# random_reuse_case(v, i % 2 ? rocm : cuda, seed 1, i), i < 100, v = pcp-a, pcp-b, pcp-c\n";
  for (Version v : {Version::pcp_a, Version::pcp_b, Version::pcp_c})
    for (std::uint64_t i = 0; i < 100; ++i)
      want += print_case(random_reuse_case(v, i % 2 ? Platform::rocm : Platform::cuda, 1, i)) + "\n";
  const std::filesystem::path path =
      std::filesystem::path(CHUNKPROOF_SOURCE_DIR) / "tests" / "gpu" / "reuse-random.cases";
  if (std::getenv("CHUNKPROOF_WRITE_REUSE_CASES") != nullptr) std::ofstream(path) << want;
  std::ifstream in(path);
  const std::string have((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(have, want) << "regenerate: CHUNKPROOF_WRITE_REUSE_CASES=1 "
                        << ::testing::UnitTest::GetInstance()->current_test_info()->name();
}

}  // namespace
}  // namespace cp::mla

// Regression (issue 22): v6-current sized the workspace without DCP as S0, unaligned, because a
// test of the pre-merge branch of #50613 (27ff206f) expected B=11000 => 65536. The code that
// shipped (vLLM 903ecb17, vllm/model_executor/layers/attention/mla_attention.py) rounds on
// every path:
//
//   def align_mla_chunked_context_workspace_size(vllm_config, workspace_size):
//       alignment = block_size
//       if dcp > 1: alignment = lcm(alignment, dcp * cp_kv_cache_interleave_size)
//       return round_up(max(workspace_size, alignment), alignment)
//
// vllm_align_size below is that function transcribed on plain integers (its own code, not
// chunkproof's templates), so each expectation is computed the way vLLM computes it.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "invariants/catalogue.h"
#include "reference/planner/plan.h"

namespace cp {
namespace {

std::int64_t vllm_determine_size(std::int64_t mml, std::int64_t mns, std::int64_t B) {
  return std::min<std::int64_t>(std::max<std::int64_t>(8 * mml, 4 * mns * B), 64 * 1024);
}
std::int64_t vllm_align_size(std::int64_t ws, std::int64_t B, std::int64_t W, std::int64_t I) {
  std::int64_t a = B;
  if (W > 1) a = std::lcm(a, W * I);
  const std::int64_t x = std::max(ws, a);
  return (x + a - 1) / a * a;
}
std::int64_t vllm_size(std::int64_t mml, std::int64_t mns, std::int64_t B, std::int64_t W, std::int64_t I) {
  return vllm_align_size(vllm_determine_size(mml, mns, B), B, W, I);
}

struct SizingCase {
  std::int64_t mml, mns, B, W, I;
  std::int64_t expected;  // written out by hand from the function above
};

class ShippedV6Sizing : public ::testing::TestWithParam<SizingCase> {};

TEST_P(ShippedV6Sizing, MatchesVllm903ecb17) {
  const SizingCase& t = GetParam();
  ASSERT_EQ(vllm_size(t.mml, t.mns, t.B, t.W, t.I), t.expected) << "the transcription itself";
  for (Platform p : {Platform::cuda, Platform::rocm})
    EXPECT_EQ(size_workspace(Version::v6_current, p, t.mml, t.mns, t.B, t.W, t.I), t.expected)
        << "mml=" << t.mml << " mns=" << t.mns << " B=" << t.B << " W=" << t.W << " I=" << t.I;
}

INSTANTIATE_TEST_SUITE_P(EdgeCases, ShippedV6Sizing,
                         ::testing::Values(
                             // The three cases: S0 = 32760 rounds to 32768; B = 11000 rounds 65536 to 66000.
                             SizingCase{4095, 1, 16, 1, 1, 32768}, SizingCase{1024, 1024, 11000, 1, 1, 66000},
                             SizingCase{163840, 256, 11000, 1, 1, 66000},
                             // B > S0: the 64K cap leaves S0 = 65536 < B, and the size is B itself.
                             SizingCase{163840, 1, 131072, 1, 1, 131072},
                             // B = 1: nothing to round.
                             SizingCase{1000, 3, 1, 1, 1, 8000},
                             // B not a power of two: round_up(8000, 48) = 8016.
                             SizingCase{1000, 1, 48, 1, 1, 8016},
                             // DCP on: A = lcm(B, I*W): lcm(64, 8) = 64 keeps 65536; lcm(64, 3) = 192 gives 65664;
                             // lcm(64, 2*64) = 128 keeps 65536; lcm(48, 4) = 48 gives 8016.
                             SizingCase{163840, 256, 64, 8, 1, 65536}, SizingCase{163840, 256, 64, 3, 1, 65664},
                             SizingCase{163840, 256, 64, 2, 64, 65536}, SizingCase{1000, 1, 48, 4, 1, 8016},
                             // DCP off with the same B: the block alone (the pre-merge rule kept 65536 for B = 192).
                             SizingCase{163840, 256, 192, 1, 1, 65664}));

std::int64_t first_chunk_rows(const Plan& p) {
  std::int64_t rows = 0;
  for (const auto& e : p.chunks.front().entries) rows += e.len;
  return rows;
}

// The three batches of the issue, as vLLM plans them with the shipped size.
TEST(ShippedV6Sizing, Mml4095FirstChunkIs32768Rows) {
  const Evaluation ev =
      evaluate(parse_case("version=v6-current platform=cuda max_model_len=4095 max_num_seqs=1 block=16 dcp=1 "
                          "interleave=1 ctx=112140 q=21"));
  EXPECT_EQ(ev.plan.workspace, 32768);
  EXPECT_EQ(first_chunk_rows(ev.plan), 32768);  // was 32752 with S = 32760
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

TEST(ShippedV6Sizing, Block11000NoContextSizes66000) {
  const Evaluation ev = evaluate(parse_case(
      "version=v6-current platform=cuda max_model_len=1024 max_num_seqs=1024 block=11000 dcp=1 interleave=1 ctx=0 "
      "q=48"));
  EXPECT_EQ(ev.plan.workspace, 66000);
  EXPECT_TRUE(ev.plan.chunks.empty());
}

TEST(ShippedV6Sizing, Block11000PlansSixChunksNotSeven) {
  const Evaluation ev = evaluate(parse_case(
      "version=v6-current platform=cuda max_model_len=163840 max_num_seqs=256 block=11000 dcp=1 interleave=1 "
      "ctx=362049,26 q=15,22"));
  EXPECT_EQ(ev.plan.workspace, 66000);
  EXPECT_EQ(ev.plan.chunk_width, 66000);  // Mmax = round_down(66000, 11000)
  ASSERT_EQ(ev.plan.chunks.size(), 6u);   // 5 x 66000 + (32049 + 26); 65536 gave 6 x 55000 + 1
  EXPECT_EQ(ev.plan.chunks.back().entries.size(), 2u);
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

// The pre-merge rule made S0 < B possible (I-2/I-3 held only for B <= 65536); the shipped one
// gives S >= A >= B: a block above the cap still plans.
TEST(ShippedV6Sizing, BlockAboveTheCapStillPlans) {
  const Evaluation ev = evaluate(
      parse_case("version=v6-current platform=cuda max_model_len=163840 max_num_seqs=1 block=131072 dcp=1 interleave=1 "
                 "ctx=300000 q=4"));
  EXPECT_EQ(ev.plan.workspace, 131072);
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

}  // namespace
}  // namespace cp

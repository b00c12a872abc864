// The chunk-corruption detector (reference/io/chunk_detector.h): ratios in units of the set's
// own noise, the threshold's edge, non-finite outputs, the noise floors, per-request naming.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference/io/chunk_detector.h"

namespace cp::io {
namespace {

// 2 requests x 2 tokens, 1 head, 2 dims: request 0 is tokens 0-1, request 1 tokens 2-3.
const std::vector<TokenOwner> kOwners{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
constexpr int kHeads = 1, kDim = 2;

struct Fixture {
  std::vector<float> out{1.0f, 0.5f, -1.0f, 0.25f, 0.5f, 1.0f, 1.0f, -0.5f};
  std::vector<float> lse{4.0f, 4.5f, 5.0f, 5.5f};
};

Detection run(const Fixture& c, const Fixture& u, const Fixture& x) {
  return detect_chunk_corruption({c.out, c.lse}, {u.out, u.lse}, {x.out, x.lse}, kOwners, kHeads, kDim);
}

TEST(ChunkDetector, RatioIsTheShiftInUnitsOfTheSetsOwnNoise) {
  const Fixture x;
  Fixture u = x;
  u.out[0] += 0x1p-10f;  // the set's noise: 2^-10 of a row whose largest |out| is 1
  for (float k : {7.0f, 9.0f}) {
    Fixture c = u;
    c.out[5] += k * 0x1p-10f;  // request 1 moves k times the noise
    const auto d = run(c, u, x);
    EXPECT_DOUBLE_EQ(d.noise_out, 0x1p-10);
    EXPECT_DOUBLE_EQ(d.ratio_out, k);
    EXPECT_EQ(d.flagged(), k > kDetectorThreshold);
    ASSERT_EQ(d.requests.size(), 2u);
    EXPECT_DOUBLE_EQ(d.requests[0].ratio(), 0.0);
    EXPECT_DOUBLE_EQ(d.requests[1].ratio_out, k);
    EXPECT_EQ(d.flagged_requests(), k > kDetectorThreshold ? std::vector<int>{1} : std::vector<int>{});
  }
}

TEST(ChunkDetector, AnLseShiftAloneIsFlaggedWhenOutStaysWithinNoise) {
  const Fixture x;
  Fixture u = x;
  for (auto& v : u.out) v += 0x1p-9f;  // bf16-sized noise in out
  u.lse[1] += 0x1p-21f;                // an fp32 ulp or so in the LSE
  Fixture c = u;
  c.out[1] -= 0x1p-9f;  // re-rounded: still within the noise
  c.lse[0] -= 1e-4f;    // request 0 lost a row's weight
  const auto d = run(c, u, x);
  EXPECT_LE(d.ratio_out, 1.0);
  EXPECT_GT(d.ratio_lse, 100.0);
  EXPECT_TRUE(d.flagged());
  EXPECT_EQ(d.flagged_requests(), std::vector<int>{0});
}

TEST(ChunkDetector, ExactUnchunkedRunUsesTheUlpFloors) {
  const Fixture x;
  const auto d = run(x, x, x);
  EXPECT_DOUBLE_EQ(d.noise_out, 0x1p-23);
  EXPECT_DOUBLE_EQ(d.noise_lse, 0x1p-23 * 5.5);  // 2^-23 of the largest |lse|
  EXPECT_DOUBLE_EQ(d.ratio(), 0.0);
  EXPECT_FALSE(d.flagged());
}

TEST(ChunkDetector, NonFiniteChunkedOutputsAreInfinite) {
  const Fixture x;
  Fixture c = x;
  c.out[6] = std::numeric_limits<float>::quiet_NaN();  // request 1 (the empty + empty merge)
  const auto d = run(c, x, x);
  EXPECT_EQ(d.nonfinite, 1);
  EXPECT_TRUE(std::isinf(d.ratio()));
  EXPECT_TRUE(d.flagged(1e30));
  EXPECT_EQ(d.flagged_requests(), std::vector<int>{1});
}

TEST(ChunkDetector, LseMinusInfOnBothSidesAgreesOtherInfinitiesDoNot) {
  Fixture x;
  const float inf = std::numeric_limits<float>::infinity();
  x.lse[3] = -inf;  // a token with no keys at all
  EXPECT_FALSE(run(x, x, x).flagged());
  Fixture plus = x;
  plus.lse[3] = inf;
  EXPECT_EQ(run(plus, x, x).nonfinite, 1);
  Fixture empty = x;
  empty.lse[2] = -inf;  // an empty chunked state against a finite unchunked one
  EXPECT_EQ(run(empty, x, x).flagged_requests(), std::vector<int>{1});
}

TEST(ChunkDetector, NaNInTheUnchunkedRunIsNotAChunkingShift) {
  const Fixture x;
  Fixture u = x;
  u.out[2] = std::numeric_limits<float>::quiet_NaN();  // the set is broken unchunked too: the bound says so
  Fixture c = u;
  c.out[2] = 0.0f;
  EXPECT_EQ(run(c, u, x).nonfinite, 0);
}

TEST(ChunkDetector, RejectsOutputsOfTheWrongSize) {
  const Fixture x;
  Fixture short_lse;
  short_lse.lse.resize(3);
  EXPECT_THROW(run(short_lse, x, x), IoError);
  Fixture long_out;
  long_out.out.resize(9);
  EXPECT_THROW(run(x, long_out, x), IoError);
}

}  // namespace
}  // namespace cp::io

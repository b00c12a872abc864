// Issue 18: targeted tests for the exact accumulator's carries/borrows (add AND merge, at every
// binary scale a float can have, so some term lands on each limb boundary) and for each +-inf
// rule of the merge kernels (each test fails if its rule is removed).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "reference/mla/math/all.h"

namespace cp::mla {
namespace {

// (2^24 - 1) * 2^(k-23): a full 24-bit mantissa whose top bit has weight 2^k.
// Exact range of the accumulator: multiples of 2^-96 below 2^63 (limb boundaries at 2^-32 and
// 2^32), so k - 23 >= -96 and 3 * 2^(k+1) < 2^63.
constexpr int kLowK = -73, kHighK = 60;
float full_mantissa(int k) { return std::ldexp(static_cast<float>((1u << 24) - 1u), k - 23); }

TEST(ExactAccCarry, AddCarriesAcrossEveryLimbBoundary) {
  for (int k = kLowK; k <= kHighK; ++k) {
    const float x = full_mantissa(k);
    ExactAcc a;
    a.clear();
    a.add(x);
    a.add(x);
    EXPECT_EQ(to_double(a), 2.0 * static_cast<double>(x)) << k;
    a.add(x);  // three terms: carries into the next limb for some k
    EXPECT_EQ(to_double(a), 3.0 * static_cast<double>(x)) << k;
    EXPECT_TRUE(a.ok()) << k;
  }
}

TEST(ExactAccCarry, SubtractBorrowsAcrossEveryLimbBoundary) {
  for (int k = kLowK; k <= kHighK; ++k) {
    const float x = full_mantissa(k);
    const float tiny = std::ldexp(1.0f, -96);
    ExactAcc a;
    a.clear();
    a.add(x);
    a.add(-tiny);  // 2^-96, the LSB: borrows through every limb below x
    EXPECT_EQ(to_double(a), static_cast<double>(x) - static_cast<double>(tiny)) << k;
    a.add(-x);
    EXPECT_EQ(to_double(a), -static_cast<double>(tiny)) << k;
    a.add(tiny);
    EXPECT_TRUE(a.is_zero()) << k;
    ExactAcc b;
    b.clear();
    b.add(-x);  // negative value: to_double negates through zero limbs
    b.add(-x);
    EXPECT_EQ(to_double(b), -2.0 * static_cast<double>(x)) << k;
  }
}

TEST(ExactAccCarry, MergeCarriesAndBorrowsAcrossEveryLimbBoundary) {
  for (int k = kLowK; k <= kHighK; ++k) {
    const float x = full_mantissa(k);
    const float tiny = std::ldexp(1.0f, -96);
    ExactAcc a, b;
    a.clear();
    b.clear();
    a.add(x);
    b.add(x);
    a.merge(b);
    EXPECT_EQ(to_double(a), 2.0 * static_cast<double>(x)) << k;
    ExactAcc c, d;
    c.clear();
    d.clear();
    c.add(x);
    d.add(-tiny);
    c.merge(d);  // merge of a negative accumulator: two's complement add with carries
    EXPECT_EQ(to_double(c), static_cast<double>(x) - static_cast<double>(tiny)) << k;
    ExactAcc e, f;
    e.clear();
    f.clear();
    e.add(tiny);
    f.add(-x);
    e.merge(f);
    EXPECT_EQ(to_double(e), static_cast<double>(tiny) - static_cast<double>(x)) << k;
    EXPECT_TRUE(e.ok()) << k;
  }
}

struct One {
  float o[2]{}, lse = 0.0f;
};

One merge1(MergeFlavour f, float pl, float sl) {
  static float p[2] = {3.0f, 4.0f}, s[2] = {1.0f, 2.0f};
  One r;
  MergeTensors m{r.o, &r.lse, 2, 2, p, &pl, 2, 2, s, &sl, 2, 2, 1, 1, 2};
  merge_attn_states(f, m);
  return r;
}

// Triton maps +inf (FA2's "empty") to -inf on each side: the other side passes through exactly.
TEST(MergeInfRules, TritonPrefixPlusInfIsEmpty) {
  const One r = merge1(MergeFlavour::triton, INFINITY, 0.5f);
  EXPECT_EQ(r.o[0], 1.0f);
  EXPECT_EQ(r.o[1], 2.0f);
  EXPECT_FLOAT_EQ(r.lse, 0.5f);
}
TEST(MergeInfRules, TritonSuffixPlusInfIsEmpty) {
  const One r = merge1(MergeFlavour::triton, 0.5f, INFINITY);
  EXPECT_EQ(r.o[0], 3.0f);
  EXPECT_EQ(r.o[1], 4.0f);
  EXPECT_FLOAT_EQ(r.lse, 0.5f);
}
TEST(MergeInfRules, TritonMinusInfSideContributesNothing) {
  const One r = merge1(MergeFlavour::triton, -INFINITY, 0.5f);
  EXPECT_EQ(r.o[0], 1.0f);
  EXPECT_FLOAT_EQ(r.lse, 0.5f);
  const One q = merge1(MergeFlavour::triton, 0.5f, -INFINITY);
  EXPECT_EQ(q.o[0], 3.0f);
  EXPECT_FLOAT_EQ(q.lse, 0.5f);
}
TEST(MergeInfRules, CudaMapsEitherInfToEmpty) {
  for (float inf : {INFINITY, -INFINITY}) {
    const One r = merge1(MergeFlavour::cuda, inf, 0.5f);
    EXPECT_EQ(r.o[0], 1.0f) << inf;
    EXPECT_EQ(r.o[1], 2.0f) << inf;
    EXPECT_FLOAT_EQ(r.lse, 0.5f) << inf;
    const One q = merge1(MergeFlavour::cuda, 0.5f, inf);
    EXPECT_EQ(q.o[0], 3.0f) << inf;
    EXPECT_FLOAT_EQ(q.lse, 0.5f) << inf;
  }
}
// Both empty: CUDA copies the PREFIX output and writes -inf; Triton gives NaN (-inf - -inf),
// for every spelling of empty (each +inf must be mapped or the max is +inf).
TEST(MergeInfRules, BothEmpty) {
  for (float pl : {INFINITY, -INFINITY})
    for (float sl : {INFINITY, -INFINITY}) {
      const One c = merge1(MergeFlavour::cuda, pl, sl);
      EXPECT_EQ(c.o[0], 3.0f);
      EXPECT_EQ(c.o[1], 4.0f);
      EXPECT_EQ(c.lse, -INFINITY);
      const One t = merge1(MergeFlavour::triton, pl, sl);
      EXPECT_TRUE(std::isnan(t.o[0])) << pl << " " << sl;
      EXPECT_TRUE(std::isnan(t.lse)) << pl << " " << sl;
    }
}
// Finite sides: the weights are exp(l - max) normalised.
TEST(MergeInfRules, EqualLseAverages) {
  for (MergeFlavour f : {MergeFlavour::triton, MergeFlavour::cuda}) {
    const One r = merge1(f, 0.0f, 0.0f);
    EXPECT_FLOAT_EQ(r.o[0], 2.0f);
    EXPECT_FLOAT_EQ(r.o[1], 3.0f);
    EXPECT_NEAR(r.lse, std::log(2.0f), 1e-6f);
  }
}

}  // namespace
}  // namespace cp::mla

namespace cp::mla {
namespace {

// Issue 22: vLLM 903ecb17 neutralises a context-free prefill's tokens with an empty range, a
// (0, -inf) context partial merged against the suffix; the pre-merge branch (and S4/S5's
// prefill_tokens_with_context) sent them down the suffix-only path instead. The merge must see
// the same thing either way: merge((0, -inf), suffix) == suffix, bit for bit, on both kernels,
// for every suffix value and LSE a token can have (the LSE comes back unchanged too). The one
// difference is the sign of a zero: 0 + (-0) = +0, equal as a number.
TEST(MergeInfRules, EmptyRangeEqualsSuffixOnlyPath) {
  const float suffix_values[] = {0.0f, -0.0f, 1.0f, -3.5f, 1e-30f, 6.0e4f, 0.123456789f};
  const float suffix_lses[] = {0.0f, -80.0f, 12.5f, 88.0f, -1e-3f};
  for (MergeFlavour f : {MergeFlavour::triton, MergeFlavour::cuda})
    for (float v : suffix_values)
      for (float sl : suffix_lses) {
        float p[2] = {0.0f, 0.0f}, s[2] = {v, -v}, o[2] = {7.0f, 7.0f};
        float pl = -INFINITY, lse = 7.0f;
        MergeTensors m{o, &lse, 2, 2, p, &pl, 2, 2, s, &sl, 2, 2, 1, 1, 2};
        merge_attn_states(f, m);
        for (int d = 0; d < 2; ++d) {
          EXPECT_EQ(o[d], s[d]) << v << " " << sl;
          if (v != 0.0f) {
            EXPECT_EQ(std::bit_cast<std::uint32_t>(o[d]), std::bit_cast<std::uint32_t>(s[d])) << v;
          }
        }
        EXPECT_EQ(lse, sl) << v;
      }
}

}  // namespace
}  // namespace cp::mla

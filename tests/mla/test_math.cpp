// The per-element math shared by the CPU reference and the GPU kernels (reference/mla/math).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "reference/mla/math/all.h"
#include "reference/mla/math/exact_bins.h"

namespace cp::mla {
namespace {

TEST(MlaBf16, RoundToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  // 1 + 2^-8 is exactly halfway between two bf16 values: ties to even (down).
  EXPECT_EQ(float_to_bf16(1.00390625f), 0x3f80);
  // 1 + 3*2^-8 is halfway between 0x3f81 and 0x3f82: ties to even (up).
  EXPECT_EQ(float_to_bf16(1.01171875f), 0x3f82);
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_bf16(INFINITY), 0x7f80);
  EXPECT_EQ(float_to_bf16(3.4e38f), 0x7f80);  // rounds past the largest bf16: inf, as IEEE does
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
  EXPECT_EQ(bf16_ulp_distance(0x3f80, 0x3f82), 2);
  EXPECT_EQ(bf16_ulp_distance(0x8000, 0x0000), 0);
  EXPECT_EQ(bf16_ulp_distance(0x8001, 0x0001), 2);
  EXPECT_EQ(bf16_ulp_distance(0x7fc0, 0x0001), -1);
}

RC_GTEST_PROP(MlaBf16, RoundTripIsIdentityOnBf16Values, (std::uint16_t h)) {
  RC_PRE((h & 0x7fff) <= 0x7f80);  // not NaN
  RC_ASSERT(float_to_bf16(bf16_to_float(h)) == h);
}

TEST(MlaDot, FixedOrderNoFma) {
  // (a*b) rounded then added: with an FMA the result would keep the low bits of a*b.
  const float a[2] = {1.0f + 0x1p-12f, -1.0f};
  const float b[2] = {1.0f + 0x1p-12f, 1.0f + 0x1p-11f};
  const float expect = (a[0] * b[0]) + (a[1] * b[1]);  // chunkproof::options: -ffp-contract=off
  EXPECT_EQ(dot(a, b, 2), expect);
  EXPECT_EQ(dot(a, b, 2), 0.0f);  // 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11; an FMA would give 2^-24
  float acc[2] = {0.0f, 0.0f};
  const float B[4] = {b[0], 7.0f, b[1], 3.0f};  // column 0 is b
  axpy_rows(acc, a, B, 2, 2);
  EXPECT_EQ(acc[0], dot(a, b, 2));
  EXPECT_EQ(dot_strided(a, 1, B, 2, 2), acc[0]);
}

TEST(MlaExp, CloseToLibmAndEdgeCases) {
  double worst = 0;
  for (float x = -87.0f; x <= 88.0f; x += 0.0137f) {
    const double ref = std::exp(static_cast<double>(x));
    const double got = exp_cp(x);
    worst = std::max(worst, std::abs(got - ref) / ref);
  }
  EXPECT_LT(worst, 3e-7) << "exp_cp relative error";  // about 2.5 ulp of fp32
  EXPECT_EQ(exp_cp(0.0f), 1.0f);
  EXPECT_EQ(exp_cp(-INFINITY), 0.0f);
  EXPECT_EQ(exp_cp(-100.0f), 0.0f);
  EXPECT_EQ(exp_cp(89.0f), INFINITY);
  EXPECT_TRUE(std::isnan(exp_cp(NAN)));
}

TEST(MlaLog, CloseToLibmAndEdgeCases) {
  double worst = 0;
  for (float x = 1e-30f; x < 1e30f; x *= 1.0173f) {
    const double ref = std::log(static_cast<double>(x));
    worst = std::max(worst, std::abs(log_cp(x) - ref) / std::max(1.0, std::abs(ref)));
  }
  EXPECT_LT(worst, 3e-7);
  EXPECT_EQ(log_cp(1.0f), 0.0f);
  EXPECT_EQ(log_cp(0.0f), -INFINITY);
  EXPECT_EQ(log_cp(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(log_cp(-1.0f)));
  EXPECT_NEAR(log_cp(0x1p-149f), std::log(0x1p-149), 1e-5);  // smallest subnormal
}

ExactAcc zero_acc() {
  ExactAcc a;
  a.clear();
  return a;
}

TEST(MlaExactAcc, SmallIntegersAndProductsAreExact) {
  ExactAcc a = zero_acc();
  a.add(1.0f);
  a.add(-0.25f);
  a.add_product(3.0f, 0.5f);
  EXPECT_EQ(to_double(a), 2.25);
  // A product that fp32 would round: (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46, kept exactly.
  ExactAcc b = zero_acc();
  b.add_product(1.0f + 0x1p-23f, 1.0f + 0x1p-23f);
  b.add(-1.0f);
  EXPECT_EQ(to_double(b), 0x1p-22 + 0x1p-46);
  EXPECT_TRUE(b.ok());
}

RC_GTEST_PROP(MlaExactAcc, OrderAndPartitionIndependent, ()) {
  const auto n = *rc::gen::inRange(1, 300);
  std::vector<float> xs, ys;
  for (int i = 0; i < n; ++i) {
    const int e = *rc::gen::inRange(-60, 20);
    const float m = static_cast<float>(*rc::gen::inRange(-(1 << 24), 1 << 24)) * 0x1p-24f;
    xs.push_back(std::ldexp(m, e));
    ys.push_back(static_cast<float>(*rc::gen::inRange(-1000, 1000)) / 997.0f);
  }
  ExactAcc ref = zero_acc();
  for (int i = 0; i < n; ++i) ref.add_product(xs[i], ys[i]);
  // Shuffle, then split into random partials merged in reverse order.
  std::vector<int> idx(n);
  for (int i = 0; i < n; ++i) idx[i] = i;
  std::mt19937 rng(*rc::gen::arbitrary<unsigned>());
  std::shuffle(idx.begin(), idx.end(), rng);
  std::vector<ExactAcc> parts(static_cast<std::size_t>(*rc::gen::inRange(1, 8)), zero_acc());
  for (int i : idx) parts[rng() % parts.size()].add_product(xs[i], ys[i]);
  ExactAcc got = zero_acc();
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) got.merge(*it);
  RC_ASSERT(got.limb[0] == ref.limb[0]);
  RC_ASSERT(got.limb[1] == ref.limb[1]);
  RC_ASSERT(got.limb[2] == ref.limb[2]);
  RC_ASSERT(got.count == ref.count);
  RC_ASSERT(got.ok());
  // The value agrees with a float64 sum where that one is exact enough to compare.
  long double s = 0;
  for (int i = 0; i < n; ++i) s += static_cast<long double>(xs[i]) * ys[i];
  RC_ASSERT(std::abs(static_cast<long double>(to_double(got)) - s) <= 1e-12L * (1 + std::abs(s)) + 1e-25L);
}

TEST(MlaExactAcc, OverflowIsDetectedNotWrapped) {
  ExactAcc a = zero_acc();
  a.add(0x1p62f);
  EXPECT_TRUE(a.ok());
  a.add(0x1p63f);  // a single term at the range limit
  EXPECT_TRUE(a.overflowed());
  ExactAcc b = zero_acc();
  b.add(1e30f);
  EXPECT_TRUE(b.overflowed());
  ExactAcc c = zero_acc();
  c.add_product(INFINITY, 1.0f);
  EXPECT_EQ(c.flags & ExactAcc::kNonFinite, ExactAcc::kNonFinite);
  EXPECT_TRUE(std::isnan(normalize(c, a)));
  // Two accumulators near the top of the signed range: their merge carries into the sign bit.
  ExactAcc d = zero_acc();
  d.limb[2] = 0x7000000000000000u;
  ExactAcc e = d;
  d.merge(e);
  EXPECT_TRUE(d.overflowed());
  // The term counter: past 2^31 terms the range argument no longer holds.
  ExactAcc f = zero_acc();
  f.count = ExactAcc::kMaxTerms - 1u;
  f.add(1.0f);
  EXPECT_TRUE(f.overflowed());
}

TEST(MlaExactAcc, TinyTermsRoundToNearestEvenAtTheLastBit) {
  ExactAcc a = zero_acc();
  a.add(0x1p-97f);  // exactly half of 2^-96: ties to even => 0
  EXPECT_TRUE(a.is_zero());
  a.add(0x1.8p-96f);  // 1.5 * 2^-96 => 2 * 2^-96
  EXPECT_EQ(to_double(a), 0x1p-95);
  a.add(-0x1.8p-96f);
  EXPECT_TRUE(a.is_zero());
}

TEST(MlaExactAcc, NormalizeIsTheRoundedQuotient) {
  ExactAcc num = zero_acc(), den = zero_acc();
  num.add(1.0f);
  den.add(3.0f);
  EXPECT_EQ(normalize(num, den), static_cast<float>(1.0 / 3.0));
  ExactAcc neg = zero_acc();
  neg.add(-5.5f);
  EXPECT_EQ(to_double(neg), -5.5);
}

TEST(MlaMerge, TritonEmptyEmptyIsNaNCudaIsNot) {
  // Both sides empty in FA3's spelling (-inf, -inf): Triton computes -inf - -inf = NaN; the CUDA
  // kernel copies the prefix and writes -inf. (The +inf mapping is not involved here: its own
  // tests follow.)
  float p[2] = {0.0f, 0.0f}, s[2] = {0.0f, 0.0f}, o[2], lse;
  const float pl = -INFINITY, sl = -INFINITY;
  MergeTensors m{o, &lse, 2, 2, p, &pl, 2, 2, s, &sl, 2, 2, 1, 1, 2};
  merge_attn_states(MergeFlavour::triton, m);
  EXPECT_TRUE(std::isnan(o[0]));
  EXPECT_TRUE(std::isnan(lse));
  merge_attn_states(MergeFlavour::cuda, m);
  EXPECT_EQ(o[0], 0.0f);
  EXPECT_EQ(lse, -INFINITY);
}

// FA2 spells an empty partial +inf. Both flavours must read it as empty: without the mapping the
// max is +inf and the other side's weight exp(x - inf) * ... turns into NaN (inf - inf).
TEST(MlaMerge, PlusInfIsEmptyInBothFlavours) {
  float empty_side[2] = {3.0f, 7.0f}, full_side[2] = {1.0f, 2.0f}, o[2], lse;
  const float plus_inf = INFINITY, fin = 0.5f;
  for (MergeFlavour f : {MergeFlavour::triton, MergeFlavour::cuda}) {
    const bool cuda = f == MergeFlavour::cuda;
    MergeTensors pre{o, &lse, 2, 2, empty_side, &plus_inf, 2, 2, full_side, &fin, 2, 2, 1, 1, 2};
    merge_attn_states(f, pre);  // empty prefix: the suffix, exactly
    EXPECT_EQ(o[0], 1.0f) << cuda;
    EXPECT_EQ(o[1], 2.0f) << cuda;
    EXPECT_EQ(lse, 0.5f) << cuda;
    MergeTensors suf{o, &lse, 2, 2, full_side, &fin, 2, 2, empty_side, &plus_inf, 2, 2, 1, 1, 2};
    merge_attn_states(f, suf);  // empty suffix: the prefix, exactly
    EXPECT_EQ(o[0], 1.0f) << cuda;
    EXPECT_EQ(o[1], 2.0f) << cuda;
    EXPECT_EQ(lse, 0.5f) << cuda;
  }
  // Both empty, one side +inf: Triton maps it and then fails as for (-inf, -inf); CUDA returns
  // the empty result only because +inf became -inf (else the max is +inf, not "both empty").
  float zeros[2] = {0.0f, 0.0f};
  const float minus_inf = -INFINITY;
  MergeTensors both{o, &lse, 2, 2, zeros, &minus_inf, 2, 2, zeros, &plus_inf, 2, 2, 1, 1, 2};
  merge_attn_states(MergeFlavour::cuda, both);
  EXPECT_EQ(o[0], 0.0f);
  EXPECT_EQ(lse, -INFINITY);
}

TEST(MlaMerge, TritonNaNPrefixSurvivesAndWeightZeroGuard) {
  float o[2], lse;
  // A NaN prefix survives the next Triton merge (exp(NaN) != 0 defeats the weight-0 guard).
  const float nan_l = NAN, fin = 0.5f;
  float pn[2] = {NAN, NAN}, s2[2] = {1.0f, 2.0f};
  MergeTensors m2{o, &lse, 2, 2, pn, &nan_l, 2, 2, s2, &fin, 2, 2, 1, 1, 2};
  merge_attn_states(MergeFlavour::triton, m2);
  EXPECT_TRUE(std::isnan(o[1]));
  // One empty side: both flavours return the other side exactly.
  const float emp = -INFINITY;
  float garbage[2] = {NAN, 5.0f};
  MergeTensors m3{o, &lse, 2, 2, garbage, &emp, 2, 2, s2, &fin, 2, 2, 1, 1, 2};
  merge_attn_states(MergeFlavour::triton, m3);  // weight-0 guard zeroes the NaN garbage
  EXPECT_EQ(o[0], 1.0f);
  EXPECT_EQ(o[1], 2.0f);
  EXPECT_EQ(lse, 0.5f);
  merge_attn_states(MergeFlavour::cuda, m3);  // no guard: 0 * NaN = NaN
  EXPECT_TRUE(std::isnan(o[0]));
}

TEST(MlaMerge, TritonReadsSuffixWithPrefixStrides) {
  // Prefix [1 token][2 heads][2] contiguous (head stride 2); suffix padded (head stride 4).
  float p[4] = {1, 1, 1, 1}, s[8] = {3, 3, 9, 9, 5, 5, 9, 9}, o[4], lse[2];
  const float pl[2] = {0, 0}, sl[2] = {0, 0};
  MergeTensors m{o, lse, 4, 2, p, pl, 4, 2, s, sl, 8, 4, 1, 2, 2};
  merge_attn_states(MergeFlavour::cuda, m);
  EXPECT_EQ(o[2], 3.0f);  // head 1 reads s[4] = 5
  merge_attn_states(MergeFlavour::triton, m);
  EXPECT_EQ(o[2], 5.0f);  // head 1 reads s[2] = 9 (wrong stride)
}

RC_GTEST_PROP(MlaMerge, BothFlavoursAgreeWithFloat64OnFiniteInputs, ()) {
  const int D = 8;
  float p[D], s[D], o[D], lse;
  double pd[D], sd[D], od[D], lsed;
  for (int d = 0; d < D; ++d) {
    p[d] = static_cast<float>(*rc::gen::inRange(-1000, 1000)) / 256.0f;
    s[d] = static_cast<float>(*rc::gen::inRange(-1000, 1000)) / 256.0f;
    pd[d] = p[d];
    sd[d] = s[d];
  }
  const float pl = static_cast<float>(*rc::gen::inRange(-2000, 2000)) / 100.0f;
  const float sl = static_cast<float>(*rc::gen::inRange(-2000, 2000)) / 100.0f;
  merge_oracle_f64(pd, pl, sd, sl, D, od, &lsed);
  for (auto f : {MergeFlavour::triton, MergeFlavour::cuda}) {
    MergeTensors m{o, &lse, D, D, p, &pl, D, D, s, &sl, D, D, 1, 1, D};
    merge_attn_states(f, m);
    for (int d = 0; d < D; ++d) RC_ASSERT(std::abs(o[d] - od[d]) <= 4e-6 * 4.0 + 1e-7);
    RC_ASSERT(std::abs(lse - lsed) <= 4e-6 * (1 + std::abs(lsed)));
  }
}

}  // namespace
}  // namespace cp::mla

// ExactBins (the GPU's cheaper accumulator form) gives ExactAcc's integer, count and flags for the
// same terms: random products over the whole exponent range (subnormal, tiny enough to round at
// 2^-96, large enough to break the range rule), signs, zeros, infinities and NaN.
TEST(MlaExactBins, SameAccumulatorAsExactAcc) {
  std::mt19937_64 rng(15);
  auto any_float = [&](int emin, int emax) {
    const std::uint64_t r = rng();
    const int e = emin + static_cast<int>(r % static_cast<std::uint64_t>(emax - emin + 1));
    const float m = 1.0f + static_cast<float>((r >> 20) & 0x7fffff) * 0x1p-23f;
    float x = std::ldexp(m, e);
    if ((r >> 50) & 1u) x = -x;
    switch ((r >> 51) % 64) {
      case 0: return 0.0f;
      case 1: return -0.0f;
      case 2: return std::numeric_limits<float>::infinity();
      case 3: return std::numeric_limits<float>::quiet_NaN();
      case 4: return std::numeric_limits<float>::denorm_min() * static_cast<float>(r % 1000);
      default: return x;
    }
  };
  for (int run = 0; run < 20000; ++run) {
    cp::mla::ExactAcc a;
    cp::mla::ExactBins b;
    a.clear();
    b.clear();
    const int n = 1 + static_cast<int>(rng() % 600);
    const int range = static_cast<int>(rng() % 4);
    const int lo = range == 0 ? -149 : range == 1 ? -80 : range == 2 ? -30 : -10;
    const int hi = range == 0 ? 40 : range == 1 ? 10 : range == 2 ? 5 : 33;
    for (int i = 0; i < n; ++i) {
      const float x = any_float(lo, hi), y = any_float(lo, hi);
      if (rng() % 8 == 0) {
        a.add(x);
        b.add(x);
      } else {
        a.add_product(x, y);
        b.add_product(x, y);
      }
    }
    const cp::mla::ExactAcc c = b.to_acc();
    ASSERT_EQ(c.limb[0], a.limb[0]) << "run " << run;
    ASSERT_EQ(c.limb[1], a.limb[1]) << "run " << run;
    ASSERT_EQ(c.limb[2], a.limb[2]) << "run " << run;
    ASSERT_EQ(c.count, a.count) << "run " << run;
    ASSERT_EQ(c.flags, a.flags) << "run " << run;
  }
}

// ExactWin (the GPU numerator kernel's accumulator): the same integer, count and flags as
// ExactAcc term by term, for short terms in and around both windows (every sign, zero
// mantissas, the window edges), long terms, rounded and out-of-range terms, non-finite terms,
// up to ExactWin::kMaxTerms terms.
TEST(MlaExactWin, SameAccumulatorAsExactAcc) {
  using cp::mla::ExactWin;
  std::mt19937_64 rng(1515);
  for (int run = 0; run < 20000; ++run) {
    cp::mla::ExactAcc a;
    ExactWin w;
    a.clear();
    w.clear();
    const int n = 1 + static_cast<int>(rng() % ExactWin::kMaxTerms);
    const int spread = static_cast<int>(rng() % 3);  // around the windows, wide, at the edges
    for (int i = 0; i < n; ++i) {
      const std::uint64_t r = rng();
      const bool neg = (r & 1u) != 0u;
      int e2 = 0;
      if (spread == 0)
        e2 = ExactWin::kU0 - 30 + static_cast<int>((r >> 1) % 60);
      else if (spread == 1)
        e2 = -140 + static_cast<int>((r >> 1) % 200);
      else
        e2 = ExactWin::kU0 + static_cast<int>((r >> 1) % 3) - 1 +
             ((r >> 8) & 1u ? ExactWin::kWinBits - 1 : -ExactWin::kWinBits);
      const std::uint64_t kind = (r >> 16) % 16;
      if (kind == 0) {
        a.add(std::numeric_limits<float>::quiet_NaN());
        w.add_nonfinite();
      } else if (kind == 1) {
        const std::uint64_t m = (r >> 20) & ((std::uint64_t{1} << 48) - 1u);
        a.add_scaled(neg, m, e2);
        w.add_scaled(neg, m, e2);
      } else {
        std::uint32_t m = static_cast<std::uint32_t>(r >> 24);
        if (kind == 2) m = 0u;
        if (kind == 3) m = 0xffffffffu;
        if (kind >= 8)  // 24 x 8 bits, as m_p * (m_v >> 16) in the GPU kernel
          m = ((m & 0xffffffu) | 0x800000u) * ((static_cast<std::uint32_t>(r >> 56) & 0x7fu) | 0x80u);
        a.add_scaled(neg, m, e2);
        w.add_short(neg, m, e2);
      }
    }
    const cp::mla::ExactAcc c = w.to_acc();
    ASSERT_EQ(c.limb[0], a.limb[0]) << "run " << run;
    ASSERT_EQ(c.limb[1], a.limb[1]) << "run " << run;
    ASSERT_EQ(c.limb[2], a.limb[2]) << "run " << run;
    ASSERT_EQ(c.count, a.count) << "run " << run;
    ASSERT_EQ(c.flags, a.flags) << "run " << run;
  }
}

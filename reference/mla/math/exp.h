// exp and log on basic IEEE fp32 operations (no libm, no vendor transcendental), so the CPU
// and every GPU produce the same bits (DESIGN §6).
//
//   float exp_cp(float x)   e^x. Cody-Waite range reduction x = k*ln2 + r (ln2 split into a
//                           16-bit head and a tail, so k*ln2_hi is exact for |k| <= 128),
//                           degree-7 Taylor polynomial for e^r on |r| <= 0.347 in Horner form
//                           with separate mul/add, then scaling by 2^k built from exponent bits.
//                           Max error about 2 ulp against the correctly rounded e^x.
//                           x > 88.7228 -> +inf; x < -87.3365 (result below FLT_MIN) -> +0
//                           (flushed on purpose: below 2^-126 nothing we accumulate matters and
//                           subnormal handling is where devices differ); NaN -> NaN; -inf -> 0.
//   float log_cp(float x)   natural log: x = 2^e * m, m in [sqrt(1/2), sqrt(2)), f = m - 1,
//                           s = f / (2 + f), log(1+f) = 2s + 2s^3/3 + ... + 2s^11/11.
//                           x < 0 or NaN -> NaN; +0/-0 -> -inf; +inf -> +inf; subnormals exact.
#pragma once

#include "reference/mla/math/hd.h"

namespace cp::mla {

namespace exp_detail {
inline constexpr float kLog2e = 1.44269502162933349609375f;
inline constexpr float kLn2Hi = 0.693145751953125f;         // 0x3f317200: 16 significant bits
inline constexpr float kLn2Lo = 1.428606765330187045e-06f;  // ln2 - kLn2Hi
inline constexpr float kExpHi = 88.72283172607421875f;      // largest x with finite e^x
inline constexpr float kExpLo = -87.33654022216796875f;     // ~ ln(FLT_MIN)
}  // namespace exp_detail

CP_HD inline float exp_cp(float x) {
  using namespace exp_detail;
  if (is_nan(x)) return x;
  if (x > kExpHi) return pos_inf();
  if (x < kExpLo) return 0.0f;
  // k = round-half-away(x * log2(e)), via truncating conversion (an IEEE basic operation).
  const float t = mul_rn(x, kLog2e);
  const int k = t >= 0.0f ? static_cast<int>(add_rn(t, 0.5f)) : static_cast<int>(sub_rn(t, 0.5f));
  const float kf = static_cast<float>(k);
  const float r_hi = sub_rn(x, mul_rn(kf, kLn2Hi));
  const float r = sub_rn(r_hi, mul_rn(kf, kLn2Lo));
  // e^r = 1 + r + r^2/2! + ... + r^7/7!, Horner, one rounding per step.
  float p = 1.98412698412698412698e-4f;                  // 1/7!
  p = add_rn(mul_rn(p, r), 1.38888888888888888889e-3f);  // 1/6!
  p = add_rn(mul_rn(p, r), 8.33333333333333333333e-3f);  // 1/5!
  p = add_rn(mul_rn(p, r), 4.16666666666666666667e-2f);  // 1/4!
  p = add_rn(mul_rn(p, r), 1.66666666666666666667e-1f);  // 1/3!
  p = add_rn(mul_rn(p, r), 0.5f);
  p = add_rn(mul_rn(p, r), 1.0f);
  p = add_rn(mul_rn(p, r), 1.0f);
  // Scale by 2^k in two exact steps so 2^k itself is always a normal number.
  int k1 = k / 2;
  int k2 = k - k1;
  const float s1 = float_of(static_cast<std::uint32_t>(k1 + 127) << 23);
  const float s2 = float_of(static_cast<std::uint32_t>(k2 + 127) << 23);
  const float y = mul_rn(mul_rn(p, s1), s2);
  // The flush above keeps x >= ln(FLT_MIN); the last multiply may still round to a subnormal
  // for x just above it: flush those too so no device's FTZ mode can change the answer.
  if ((bits_of(y) & 0x7f800000u) == 0u) return 0.0f;
  return y;
}

CP_HD inline float log_cp(float x) {
  using namespace exp_detail;
  std::uint32_t u = bits_of(x);
  if (is_nan(x) || (u >> 31) != 0u) return (u & 0x7fffffffu) == 0u ? neg_inf() : quiet_nan();
  if (u == 0u) return neg_inf();
  if (u == 0x7f800000u) return pos_inf();
  int e = 0;
  if ((u & 0x7f800000u) == 0u) {  // subnormal: scale by 2^25 exactly
    x = mul_rn(x, 33554432.0f);
    u = bits_of(x);
    e = -25;
  }
  e += static_cast<int>((u >> 23) & 0xffu) - 127;
  float m = float_of((u & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  if (m > 1.41421353816986083984375f) {
    m = mul_rn(m, 0.5f);
    e += 1;
  }
  const float f = sub_rn(m, 1.0f);
  const float s = div_rn(f, add_rn(2.0f, f));
  const float z = mul_rn(s, s);
  float p = 0.18181818181818181818f;                  // 2/11
  p = add_rn(mul_rn(p, z), 0.22222222222222222222f);  // 2/9
  p = add_rn(mul_rn(p, z), 0.28571428571428571429f);  // 2/7
  p = add_rn(mul_rn(p, z), 0.4f);                     // 2/5
  p = add_rn(mul_rn(p, z), 0.66666666666666666667f);  // 2/3
  p = add_rn(mul_rn(p, z), 2.0f);
  const float log1pf = mul_rn(s, p);
  const float ef = static_cast<float>(e);
  return add_rn(mul_rn(ef, kLn2Hi), add_rn(mul_rn(ef, kLn2Lo), log1pf));
}

}  // namespace cp::mla

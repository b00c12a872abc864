// The exact accumulator (DESIGN §6): sums of fp32 terms (and of exact products of two fp32
// values) as fixed-point integers, so any partition of the terms into chunks, ranks or tiles,
// in any order, gives the same integer — integer addition is associative.
//
//   ExactAcc a;  a.clear();
//   a.add(x)                 adds the float x, converted to fixed point
//   a.add_product(x, y)      adds x*y computed EXACTLY (48-bit mantissa product, no fp rounding)
//   a.merge(b)               adds another accumulator (partial sums of other chunks/ranks/tiles)
//   a.flags                  sticky: kOverflow (a term or the sum left the range), kNonFinite
//                            (an inf/NaN term). Both are reported by the caller, never wrapped.
//   to_double(a)             the value, correctly rounded to double (deterministic)
//   normalize(num, den)      one deterministic division: float(double(num) / double(den))
//
// Representation: a signed two's-complement integer of 3 x 64-bit limbs (limb[0] lowest),
// value = integer * 2^-kFracBits with kFracBits = 96. The conversion of each term is a
// deterministic per-term function: exact when the term is a multiple of 2^-96, otherwise
// rounded to nearest even at 2^-96 (terms below 2^-97 become 0). Range rule: every term must
// satisfy |term| < 2^kMaxTermLog2 (= 2^63) and an accumulator holds at most kMaxTerms (2^31)
// terms; then |sum| < 2^(63+31+96) = 2^190 fits the 191 magnitude bits and no partial sum can
// overflow in any order. Breaking either rule sets kOverflow (checked per term and on the count,
// so the flag does not depend on the order either); merge() also checks the signed carry out.
#pragma once

#include "reference/mla/math/hd.h"

namespace cp::mla {

CP_HD inline int clz64(std::uint64_t x) {  // x != 0
#if CP_DEVICE_PASS
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}

struct ExactAcc {
  static constexpr int kFracBits = 96;
  static constexpr int kMaxTermLog2 = 63;
  static constexpr std::uint32_t kMaxTerms = 0x80000000u;
  static constexpr std::uint32_t kOverflow = 1u;
  static constexpr std::uint32_t kNonFinite = 2u;

  std::uint64_t limb[3];
  std::uint32_t count;  // terms added (saturates at kMaxTerms, which sets kOverflow)
  std::uint32_t flags;

  CP_HD void clear() {
    limb[0] = limb[1] = limb[2] = 0;
    count = 0;
    flags = 0;
  }
  CP_HD bool overflowed() const { return (flags & kOverflow) != 0u; }
  CP_HD bool ok() const { return flags == 0u; }
  CP_HD bool negative() const { return (limb[2] >> 63) != 0u; }
  CP_HD bool is_zero() const { return (limb[0] | limb[1] | limb[2]) == 0u; }

  // Adds (or subtracts) mant * 2^e2 (mant < 2^49).
  CP_HD void add_scaled(bool neg, std::uint64_t mant, int e2) {
    bump_count();
    if (mant == 0u) return;
    const int top = 63 - clz64(mant) + e2;  // floor(log2(|term|))
    if (top >= kMaxTermLog2) {
      flags |= kOverflow;
      return;
    }
    std::uint64_t a0 = 0, a1 = 0, a2 = 0;
    const int shift = e2 + kFracBits;
    if (shift >= 0) {  // top < 63 keeps the term inside limbs 0..2
      const int bo = shift & 63;
      const std::uint64_t lo = mant << bo;
      const std::uint64_t hi = bo != 0 ? mant >> (64 - bo) : 0u;
      switch (shift >> 6) {
        case 0: a0 = lo, a1 = hi; break;
        case 1: a1 = lo, a2 = hi; break;
        default: a2 = lo; break;
      }
    } else {
      const int rs = -shift;
      if (rs > 50) return;  // mant < 2^49 <= half an ulp: rounds to 0
      const std::uint64_t q = mant >> rs;
      const std::uint64_t rem = mant & ((std::uint64_t{1} << rs) - 1u);
      const std::uint64_t half = std::uint64_t{1} << (rs - 1);
      a0 = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
      if (a0 == 0u) return;
    }
    const bool was_neg = negative();
    if (!neg) {
      const std::uint64_t s0 = limb[0] + a0;
      const std::uint64_t c0 = s0 < a0 ? 1u : 0u;
      const std::uint64_t t1 = limb[1] + a1;
      const std::uint64_t c1 = t1 < a1 ? 1u : 0u;
      const std::uint64_t s1 = t1 + c0;
      const std::uint64_t c1b = s1 < c0 ? 1u : 0u;
      limb[0] = s0;
      limb[1] = s1;
      limb[2] = limb[2] + a2 + (c1 | c1b);
      if (!was_neg && negative()) flags |= kOverflow;  // positive + positive went negative
    } else {
      const std::uint64_t b0 = limb[0] < a0 ? 1u : 0u;
      const std::uint64_t d0 = limb[0] - a0;
      const std::uint64_t t1 = limb[1] - a1;
      const std::uint64_t b1 = limb[1] < a1 ? 1u : 0u;
      const std::uint64_t b1b = t1 < b0 ? 1u : 0u;
      limb[0] = d0;
      limb[1] = t1 - b0;
      limb[2] = limb[2] - a2 - (b1 | b1b);
      if (was_neg && !negative()) flags |= kOverflow;  // negative - positive went positive
    }
  }

  CP_HD void add(float x) {
    bool neg = false;
    std::uint64_t m = 0;
    int e = 0;
    if (!decompose(x, neg, m, e)) {
      bump_count();
      flags |= kNonFinite;
      return;
    }
    add_scaled(neg, m, e);
  }

  CP_HD void add_product(float x, float y) {
    bool na = false, nb = false;
    std::uint64_t ma = 0, mb = 0;
    int ea = 0, eb = 0;
    if (!decompose(x, na, ma, ea) || !decompose(y, nb, mb, eb)) {
      bump_count();
      flags |= kNonFinite;
      return;
    }
    add_scaled(na != nb, ma * mb, ea + eb);
  }

  CP_HD void merge(const ExactAcc& o) {
    flags |= o.flags;
    const std::uint64_t c = static_cast<std::uint64_t>(count) + o.count;
    count = c >= kMaxTerms ? kMaxTerms : static_cast<std::uint32_t>(c);
    if (c >= kMaxTerms) flags |= kOverflow;
    std::uint64_t v[3] = {o.limb[0], o.limb[1], o.limb[2]};
    add_raw(v, false);
  }

  // |x| = m * 2^e with m < 2^24; false for inf/NaN.
  CP_HD static bool decompose(float x, bool& neg, std::uint64_t& m, int& e) {
    const std::uint32_t u = bits_of(x);
    neg = (u >> 31) != 0u;
    const std::uint32_t ex = (u >> 23) & 0xffu;
    const std::uint32_t fr = u & 0x7fffffu;
    if (ex == 0xffu) return false;
    if (ex == 0u) {
      m = fr;
      e = -149;
    } else {
      m = fr | 0x800000u;
      e = static_cast<int>(ex) - 150;
    }
    return true;
  }

 private:
  CP_HD void bump_count() {
    if (count >= kMaxTerms - 1u) flags |= kOverflow;
    if (count < kMaxTerms) ++count;
  }
  // limb += v (+1 when `plus_one`, completing a two's complement negation); flags a signed
  // overflow (both operands of one sign, result of the other).
  CP_HD void add_raw(const std::uint64_t* v, bool plus_one) {
    const bool sa = negative(), sb = (v[2] >> 63) != 0u;
    std::uint64_t carry = plus_one ? 1u : 0u;
    for (int i = 0; i < 3; ++i) {
      const std::uint64_t s1 = limb[i] + v[i];
      const std::uint64_t c1 = s1 < v[i] ? 1u : 0u;
      const std::uint64_t s2 = s1 + carry;
      const std::uint64_t c2 = s2 < carry ? 1u : 0u;
      limb[i] = s2;
      carry = c1 | c2;
    }
    // With plus_one the addend's sign is that of -mag (negative, since mag != 0).
    const bool sb_eff = plus_one ? true : sb;
    if (sa == sb_eff && negative() != sa) flags |= kOverflow;
  }
};

// 2^k as a double, k in [-1022, 1023].
CP_HD inline double pow2_double(int k) { return double_of(static_cast<std::uint64_t>(k + 1023) << 52); }

// The accumulator's value rounded to nearest double (deterministic, correctly rounded: the top
// 63 bits plus a sticky bit carry everything RNE needs into the int64 -> double conversion).
CP_HD inline double to_double(const ExactAcc& a) {
  std::uint64_t m[3] = {a.limb[0], a.limb[1], a.limb[2]};
  const bool neg = a.negative();
  if (neg) {  // magnitude = ~x + 1
    std::uint64_t carry = 1;
    for (int i = 0; i < 3; ++i) {
      m[i] = ~m[i] + carry;
      carry = (carry != 0u && m[i] == 0u) ? 1u : 0u;
    }
  }
  int hi = 2;
  while (hi >= 0 && m[hi] == 0u) --hi;
  if (hi < 0) return 0.0;
  const int P = hi * 64 + (63 - clz64(m[hi]));  // index of the top set bit
  std::uint64_t t;
  int shift = 0;
  if (P <= 62) {
    t = m[0];
  } else {
    shift = P - 62;  // keep bits [shift, shift + 62]
    const int li = shift / 64, bo = shift % 64;
    t = m[li] >> bo;
    if (bo != 0 && li + 1 < 3) t |= m[li + 1] << (64 - bo);
    t &= (std::uint64_t{1} << 63) - 1u;
    bool sticky = (m[li] & ((std::uint64_t{1} << bo) - 1u)) != 0u;
    for (int i = 0; i < li; ++i) sticky = sticky || m[i] != 0u;
    if (sticky) t |= 1u;  // bit 0 is 10 bits below double's last kept bit: acts as sticky
  }
  const double d = static_cast<double>(static_cast<std::int64_t>(t));  // RNE conversion
  const double r = d * pow2_double(shift - ExactAcc::kFracBits);       // exact power-of-two scaling
  return neg ? -r : r;
}

// The one normalization per output: float(double(num) / double(den)). NaN when either
// accumulator is flagged or den is zero — the caller reports the flag.
CP_HD inline float normalize(const ExactAcc& num, const ExactAcc& den) {
  if (!num.ok() || !den.ok() || den.is_zero()) return quiet_nan();
  return static_cast<float>(to_double(num) / to_double(den));
}

}  // namespace cp::mla

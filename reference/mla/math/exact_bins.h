// A cheaper form of ExactAcc for short runs of terms (issue 15 part 3): the same integer, the
// same count and flags, without a 192-bit carry chain per term.
//
//   ExactBins b;  b.clear();
//   b.add(x); b.add_product(x, y);   // exactly ExactAcc's per-term functions (same rounding,
//                                    // same range rule, same count, same flags)
//   ExactAcc a = b.to_acc();         // the ExactAcc those terms give, bit for bit
//
// Representation: three signed 128-bit bins (two 64-bit words each); a term whose fixed-point
// position is `shift` (= e2 + kFracBits) goes to bin shift / 64, shifted by shift % 64, so each
// term is one 128-bit add or subtract (no carry into a third word, no range checks beyond the
// term's own). A term is < 2^(63 + 49) = 2^112, so a bin cannot overflow before 2^15 terms:
// at most kMaxBinTerms terms per ExactBins, then to_acc() and ExactAcc::merge. to_acc() adds
// the bins, sign-extended, at their weights modulo 2^192; the true sum fits (ExactAcc's range
// rule), so the result is that sum's two's complement — the integer ExactAcc holds after the
// same terms in any order. ExactAcc's per-term "the sum changed sign" check cannot fire under
// that rule (|sum| < 2^190), so the flags are the per-term ones here too. Tested against
// ExactAcc on random, tiny, huge and non-finite terms (tests/mla/test_math.cpp).
#pragma once

#include "reference/mla/math/exact_accumulator.h"

namespace cp::mla {

struct ExactBins {
  static constexpr int kMaxBinTerms = 1 << 14;

  std::uint64_t lo[3], hi[3];  // bin q: signed 128-bit hi:lo, weight 2^(64 q - kFracBits)
  std::uint32_t count;
  std::uint32_t flags;

  CP_HD void clear() {
    for (int q = 0; q < 3; ++q) lo[q] = hi[q] = 0;
    count = 0;
    flags = 0;
  }

  // ExactAcc::add_scaled's term (mant < 2^49), into its bin.
  CP_HD void add_scaled(bool neg, std::uint64_t mant, int e2) {
    if (count >= ExactAcc::kMaxTerms - 1u) flags |= ExactAcc::kOverflow;
    if (count < ExactAcc::kMaxTerms) ++count;
    if (mant == 0u) return;
    if (e2 + 48 >= ExactAcc::kMaxTermLog2 && 63 - clz64(mant) + e2 >= ExactAcc::kMaxTermLog2) {
      flags |= ExactAcc::kOverflow;
      return;
    }
    const int shift = e2 + ExactAcc::kFracBits;
    std::uint64_t tl = 0, th = 0;
    int q = 0;
    if (shift >= 0) {
      q = shift >> 6;
      const int bo = shift & 63;
      tl = mant << bo;
      th = bo != 0 ? mant >> (64 - bo) : 0u;
    } else {  // ExactAcc's rounding at 2^-kFracBits, into bin 0
      const int rs = -shift;
      if (rs > 50) return;
      const std::uint64_t qq = mant >> rs;
      const std::uint64_t rem = mant & ((std::uint64_t{1} << rs) - 1u);
      const std::uint64_t half = std::uint64_t{1} << (rs - 1);
      tl = qq + ((rem > half || (rem == half && (qq & 1u))) ? 1u : 0u);
      if (tl == 0u) return;
    }
    if (q == 0)
      add128(lo[0], hi[0], neg, tl, th);
    else if (q == 1)
      add128(lo[1], hi[1], neg, tl, th);
    else
      add128(lo[2], hi[2], neg, tl, th);
  }

  // A term with an inf/NaN factor: counted and flagged, nothing added (as ExactAcc).
  CP_HD void add_nonfinite() {
    if (count >= ExactAcc::kMaxTerms - 1u) flags |= ExactAcc::kOverflow;
    if (count < ExactAcc::kMaxTerms) ++count;
    flags |= ExactAcc::kNonFinite;
  }

  CP_HD void add(float x) {
    bool neg = false;
    std::uint64_t m = 0;
    int e = 0;
    if (!ExactAcc::decompose(x, neg, m, e)) return add_nonfinite();
    add_scaled(neg, m, e);
  }

  // The parts may come from ExactAcc::decompose done once per factor (the GPU kernel decomposes
  // each weight once per key and token, each v element once per key).
  CP_HD void add_product(float x, float y) {
    bool na = false, nb = false;
    std::uint64_t ma = 0, mb = 0;
    int ea = 0, eb = 0;
    if (!ExactAcc::decompose(x, na, ma, ea) || !ExactAcc::decompose(y, nb, mb, eb)) return add_nonfinite();
    add_scaled(na != nb, ma * mb, ea + eb);
  }

  // The ExactAcc of the same terms: sum of the sign-extended bins at their weights, mod 2^192.
  CP_HD ExactAcc to_acc() const {
    ExactAcc a;
    const std::uint64_t s0 = (hi[0] >> 63) != 0u ? ~std::uint64_t{0} : 0u;
    std::uint64_t r0 = lo[0], r1 = hi[0], r2 = s0;
    // + bin 1 << 64: (0, lo1, hi1)
    std::uint64_t t = r1 + lo[1];
    const std::uint64_t c1 = t < r1 ? 1u : 0u;
    r1 = t;
    r2 = r2 + hi[1] + c1;
    // + bin 2 << 128: (0, 0, lo2)
    r2 = r2 + lo[2];
    a.limb[0] = r0;
    a.limb[1] = r1;
    a.limb[2] = r2;
    a.count = count;
    a.flags = flags;
    return a;
  }

 private:
  CP_HD static void add128(std::uint64_t& l, std::uint64_t& h, bool neg, std::uint64_t tl, std::uint64_t th) {
    if (!neg) {
      const std::uint64_t s = l + tl;
      h = h + th + (s < tl ? 1u : 0u);
      l = s;
    } else {
      const std::uint64_t b = l < tl ? 1u : 0u;
      l = l - tl;
      h = h - th - b;
    }
  }
};

// ExactWin: ExactBins plus two 64-bit windows for short terms (issue 15: the GPU numerator
// kernel's common case), the same integer, count and flags as ExactAcc term by term.
//
//   ExactWin w;  w.clear();
//   w.add_short(neg, mant32, e2);  // the term ExactBins::add_scaled(neg, mant32, e2) adds
//   w.add_scaled(neg, mant, e2);   // any term (ExactBins)
//   ExactAcc a = w.to_acc();
//
// A term mant * 2^e2 with mant < 2^32 and e2 in [kU0 - kWinBits, kU0 + kWinBits - 1] is added
// to window 0 (e2 >= kU0: mant << (e2 - kU0), unit 2^kU0) or window 1 (unit 2^(kU0 - kWinBits))
// as one 64-bit two's-complement add; every other term goes to the bins. A window term is below
// 2^(32 + 22) and a window holds at most kMaxTerms of them, so |window| < 2^63: the integer of
// a window is exact. Both units are multiples of 2^-kFracBits (kU0 - kWinBits + 96 >= 0) and
// every window term is below 2^5 (no rounding, no range flag: ExactAcc's per-term function is
// the plain integer there). to_acc() adds the windows, sign-extended, at their units to the
// bins' ExactAcc modulo 2^192: the true sum fits, so that is the sum's two's complement.
// Where the windows sit changes only the speed: a product p * v with p <= 1 and a bf16 v of
// |v| < 16 (its mantissa's low 16 bits stripped: 8 bits) has e2 <= -27, the top of window 0.
struct ExactWin {
  static constexpr int kWinBits = 23;
  static constexpr int kU0 = -27 - (kWinBits - 1);
  static constexpr int kMaxTerms = 512;  // (2^32 - 1) * 2^22 * 512 < 2^63
  static_assert(kU0 - kWinBits + ExactAcc::kFracBits >= 0, "window units must be integers");
  static_assert(kMaxTerms <= ExactBins::kMaxBinTerms, "the bins must hold every term too");

  std::uint64_t w0, w1;  // signed, two's complement
  std::uint32_t wcount;
  ExactBins bins;

  CP_HD void clear() {
    w0 = w1 = 0;
    wcount = 0;
    bins.clear();
  }

  CP_HD void add_short(bool neg, std::uint32_t mant, int e2) {
    const int d = e2 - kU0;
    if (static_cast<unsigned>(d + kWinBits) < static_cast<unsigned>(2 * kWinBits)) {
      const bool top = d >= 0;
      const std::uint64_t x = static_cast<std::uint64_t>(mant) << (top ? d : d + kWinBits);
      const std::uint64_t sx = neg ? std::uint64_t{0} - x : x;
      if (top)
        w0 += sx;
      else
        w1 += sx;
      ++wcount;
    } else {
      bins.add_scaled(neg, mant, e2);
    }
  }
  CP_HD void add_scaled(bool neg, std::uint64_t mant, int e2) { bins.add_scaled(neg, mant, e2); }
  CP_HD void add_nonfinite() { bins.add_nonfinite(); }

  CP_HD ExactAcc to_acc() const {
    ExactAcc a = bins.to_acc();
    add_window(a, w0, kU0 + ExactAcc::kFracBits);
    add_window(a, w1, kU0 - kWinBits + ExactAcc::kFracBits);
    a.count += wcount;  // at most 2^14 + 512 terms in all: far below ExactAcc::kMaxTerms
    return a;
  }

 private:
  // a += w * 2^s modulo 2^192 (w signed, 0 < s < 64).
  CP_HD static void add_window(ExactAcc& a, std::uint64_t w, int s) {
    const std::uint64_t sign = (w >> 63) != 0u ? ~std::uint64_t{0} : 0u;
    const std::uint64_t v0 = w << s;
    const std::uint64_t v1 = (w >> (64 - s)) | (sign << s);
    const std::uint64_t s0 = a.limb[0] + v0;
    const std::uint64_t c0 = s0 < v0 ? 1u : 0u;
    const std::uint64_t t1 = a.limb[1] + v1;
    const std::uint64_t c1 = t1 < v1 ? 1u : 0u;
    const std::uint64_t s1 = t1 + c0;
    const std::uint64_t c1b = s1 < c0 ? 1u : 0u;
    a.limb[0] = s0;
    a.limb[1] = s1;
    a.limb[2] = a.limb[2] + sign + (c1 | c1b);
  }
};

}  // namespace cp::mla

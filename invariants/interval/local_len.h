// dcp_local_len on plain 64-bit integers where the operands exclude overflow: the hot path of
// the interval-level checks (I-8, I-9, I-10 call it a few times per chunk entry and rank).
//
// The formula is not re-derived: it is reference/dcp/ownership.h's template, instantiated on a
// third number type, `Plain` (unchecked int64, Python floor division), beside cp::Int (checked:
// execution) and z3::expr (proofs). `local_len()` takes the plain instantiation only when every
// operand is in [0, 2^31) (W, I >= 1): then every intermediate of the formula is in int64
// (base * W <= seq, r * I < 2^62), so the checked and the plain results are equal by
// construction; any other operand goes through cp::Int as before (its errors included).
// The fuzzers' domain (contexts <= 2^24 + 2^10 new tokens, W <= 64, I <= 16384) always
// takes the plain path.
#pragma once

#include <cstdint>

#include "reference/arith/ops.h"
#include "reference/dcp/ownership.h"

namespace cp {
namespace interval_detail {

// Unchecked int64 in the arithmetic vocabulary (ops.h). Internal to this header's users.
struct Plain {
  std::int64_t v = 0;
  constexpr Plain() = default;
  constexpr Plain(std::int64_t x) : v(x) {}  // NOLINT: implicit, as cp::Int
  friend constexpr Plain operator+(Plain a, Plain b) { return a.v + b.v; }
  friend constexpr Plain operator-(Plain a, Plain b) { return a.v - b.v; }
  friend constexpr Plain operator*(Plain a, Plain b) { return a.v * b.v; }
  friend constexpr bool operator==(Plain a, Plain b) { return a.v == b.v; }
  friend constexpr auto operator<=>(Plain a, Plain b) { return a.v <=> b.v; }
};

}  // namespace interval_detail

template <>
struct NumOps<interval_detail::Plain> {
  using P = interval_detail::Plain;
  using Bool = bool;
  static constexpr P lit(const P&, std::int64_t v) { return v; }
  static constexpr P floordiv(P a, P b) {  // b != 0 (local_len's precondition)
    std::int64_t q = a.v / b.v;
    if ((a.v % b.v != 0) && ((a.v < 0) != (b.v < 0))) --q;
    return q;
  }
  static constexpr P select(bool c, P a, P b) { return c ? a : b; }
};

namespace interval_detail {

// dcp_local_len(seq, W, r, I): how many of the first `seq` positions rank r owns.
// Inlined with the formula (flatten): it runs a few times per entry and rank, and the
// sanitized fuzz build would otherwise keep three calls per use.
[[gnu::always_inline, gnu::flatten]] inline std::int64_t local_len(std::int64_t seq, std::int64_t W, std::int64_t r,
                                                                   std::int64_t I) {
  // One rank owns every position: base = (seq / I) * I, rem = seq - base in [0, I), so the
  // formula is base + min(max(rem, 0), I) = seq. No division (most fuzz cases have no DCP).
  if (W == 1 && r == 0 && seq >= 0 && I >= 1) return seq;
  constexpr std::int64_t kLim = std::int64_t{1} << 31;
  if (seq >= 0 && seq < kLim && r >= 0 && r < kLim && W >= 1 && W < kLim && I >= 1 && I < kLim) [[likely]]
    return dcp_local_len(Plain(seq), Plain(W), Plain(r), Plain(I)).v;
  return dcp_local_len(Int(seq), Int(W), Int(r), Int(I)).get();
}

}  // namespace interval_detail
}  // namespace cp

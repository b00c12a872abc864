// The vocabulary of the single-source planner arithmetic (DESIGN §3).
//
// Planner templates are written over a number type N and use only these names — never raw
// `/`, `%` or `?:` — so the same template runs on cp::Int (execution) and on z3::expr
// (proofs: invariants/smt/z3_ops.h specialises NumOps<z3::expr>). Comparisons use the
// type's own operators (bool for Int, a Bool term for z3). Division and modulo are
// Python's floor semantics, which is what vLLM's planner computes; planner quantities are
// non-negative, where floor and truncation agree, but the Int helpers are exact for
// negatives too.
#pragma once

#include <cstdint>
#include <numeric>

#include "reference/arith/checked_int.h"

namespace cp {

template <class N>
struct NumOps;  // specialised per number type

// Equivalent spellings of the rounding formulas below. The planner's number type always uses
// the defaults; the prover's can be switched (a test hook, NumOps<z3::expr>::spelling()), so a
// test shows that no proof reads back the terms a template built (tests/smt, "rewrite").
struct Spelling {
  bool cdiv_from_predecessor = false;     // cdiv(a, b) = (a - 1) // b + 1, not (a + b - 1) // b
  bool round_down_as_difference = false;  // round_down(x, m) = x - x mod m, not (x // m)*m
};
template <class N>
Spelling spelling_of() {
  if constexpr (requires { NumOps<N>::spelling(); })
    return NumOps<N>::spelling();
  else
    return {};
}

template <>
struct NumOps<Int> {
  using Bool = bool;
  static Int lit(const Int&, std::int64_t v) { return v; }
  static Int floordiv(Int a, Int b) {
    if (b.get() == 0) throw ArithmeticError("division by zero");
    if (a.get() == INT64_MIN && b.get() == -1) throw ArithmeticError("integer overflow in division");
    std::int64_t q = a.get() / b.get();
    if ((a.get() % b.get() != 0) && ((a.get() < 0) != (b.get() < 0))) --q;
    return q;
  }
  static Int select(bool c, Int a, Int b) { return c ? a : b; }
  // Concrete lcm; the z3 specialisation accepts numerals only — the prover splits the finite
  // parameters (block, dcp, interleave) into concrete cases before the planner needs lcm.
  static Int lcm(Int a, Int b) {
    if (a.get() <= 0 || b.get() <= 0) throw ArithmeticError("lcm of a non-positive value");
    return floordiv(a, std::gcd(a.get(), b.get())) * b;
  }
};

template <class N>
N lit(const N& like, std::int64_t v) {
  return NumOps<N>::lit(like, v);
}
template <class N>
N floordiv(const N& a, const N& b) {
  return NumOps<N>::floordiv(a, b);
}
template <class N>
N floormod(const N& a, const N& b) {
  return a - floordiv(a, b) * b;
}
template <class N, class C>
N select(const C& cond, const N& a, const N& b) {
  return NumOps<N>::select(cond, a, b);
}
template <class N>
N max(const N& a, const N& b) {
  return select(a < b, b, a);
}
template <class N>
N min(const N& a, const N& b) {
  return select(b < a, b, a);
}
template <class N>
N lcm(const N& a, const N& b) {
  return NumOps<N>::lcm(a, b);
}
// The rounding formulas with their named quantities, so a proof about them obtains the
// quantities from the formula's own decomposition instead of reading the terms back:
//   cdiv(a, b) = value, built from the one floor division `floor` (whose witness definition a
//   proof lists); round_down / round_up(x, m) = value = q*m, q built from `floor`.
template <class N>
struct CdivParts {
  N floor, value;
};
template <class N>
CdivParts<N> cdiv_parts(const N& a, const N& b) {
  if (spelling_of<N>().cdiv_from_predecessor) {
    N f = floordiv(a - lit(a, 1), b);
    return {f, f + lit(a, 1)};
  }
  N f = floordiv(a + b - lit(a, 1), b);
  return {f, f};
}
template <class N>
N cdiv(const N& a, const N& b) {
  return cdiv_parts(a, b).value;
}
template <class N>
struct RoundParts {
  N floor, q, value;  // value = q*m
};
template <class N>
RoundParts<N> round_down_parts(const N& x, const N& m) {
  N q = floordiv(x, m);
  return {q, q, spelling_of<N>().round_down_as_difference ? x - floormod(x, m) : q * m};
}
template <class N>
RoundParts<N> round_up_parts(const N& x, const N& m) {
  CdivParts<N> c = cdiv_parts(x, m);
  return {c.floor, c.value, c.value * m};
}
template <class N>
N round_down(const N& x, const N& m) {
  return round_down_parts(x, m).value;
}
template <class N>
N round_up(const N& x, const N& m) {
  return round_up_parts(x, m).value;
}
// The remainder of C, CUDA and Triton's signed `%` (truncating: the sign of the dividend), for a
// positive divisor: what a kernel computes where the host's Python `%` is floormod
// (other-engines.md §0; Triton emits `srem`). truncmod(-2, 4) = -2, floormod(-2, 4) = 2.
template <class N>
N truncmod(const N& a, const N& b) {
  const N f = floormod(a, b);
  return select(a < lit(a, 0) && f != lit(a, 0), f - b, f);
}

}  // namespace cp

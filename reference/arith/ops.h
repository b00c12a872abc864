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
template <class N>
N cdiv(const N& a, const N& b) {
  return floordiv(a + b - lit(a, 1), b);
}
template <class N>
N round_down(const N& x, const N& m) {
  return floordiv(x, m) * m;
}
template <class N>
N round_up(const N& x, const N& m) {
  return cdiv(x, m) * m;
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

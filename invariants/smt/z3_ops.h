// The z3::expr instantiation of the single-source planner arithmetic (DESIGN §3).
//
// Only TUs in invariants/smt/ include this header (STYLE: one SMT room). It specialises
// cp::NumOps<z3::expr> so every template of reference/planner/arith.h and
// reference/dcp/ownership.h runs on solver terms: the proof is about the code that executes.
//
// Division. Python's // is floor division. Z3's div/mod are Euclidean; for a POSITIVE divisor
// Euclidean and floor division coincide for every numerator (also negative ones), so:
//   * divisor a positive numeral  -> Z3's own `div` (linear arithmetic, decided quickly);
//   * divisor symbolic            -> fresh witnesses q, r with  d > 0 => a = d*q + r, 0 <= r < d
//                                    (exactly floor semantics), memoised per (a, d) so equal
//                                    terms share a witness; `d > 0` is recorded as an
//                                    OBLIGATION that every query must prove, never assumed.
//   * divisor a numeral <= 0      -> std::logic_error (the planner never divides by it).
// All planner quantities are non-negative (sizes, lengths, positions); the encoding does not
// rely on it, because both forms above are exact floor division for a positive divisor.
//
// lcm. Numerals are computed exactly (after simplification); lcm(1, x) = x. A symbolic lcm is
// abstracted, only inside a Z3Scope that allows it, by its defining property: a fresh L >= 1
// with L = a*x = b*y (x, y >= 1) and L <= a*b. Every least common multiple satisfies this, so
// a property proved for every such L holds for lcm (sound for proofs). A model may pick a
// non-least multiple: the prover refines (adds L = lcm for the model's a, b) and re-solves,
// and replays every counterexample through the concrete planner before printing it.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reference/arith/ops.h"

namespace cp::smt {

// Collects what the arithmetic introduces while a query is being built: witness definitions
// (facts), obligations (divisor > 0), and lcm abstractions. One active scope per thread.
class Z3Scope {
 public:
  struct LcmAbstraction {
    z3::expr a, b, l, x, y;  // l = a*x = b*y
  };
  explicit Z3Scope(z3::context& ctx, bool allow_lcm_abstraction = false)
      : ctx_(ctx), allow_lcm_(allow_lcm_abstraction), prev_(current_ref()) {
    current_ref() = this;
  }
  ~Z3Scope() { current_ref() = prev_; }
  Z3Scope(const Z3Scope&) = delete;
  Z3Scope& operator=(const Z3Scope&) = delete;

  static Z3Scope* current() { return current_ref(); }
  z3::context& ctx() { return ctx_; }
  const std::vector<z3::expr>& defs() const { return defs_; }
  // The symbols each definition defines (parallel to defs()): the prover slices every query
  // to the definitions its goal depends on (cone of influence).
  const std::vector<std::vector<z3::expr>>& defined() const { return defined_; }
  const std::vector<z3::expr>& obligations() const { return obligations_; }
  const std::vector<LcmAbstraction>& lcms() const { return lcms_; }
  bool allow_lcm_abstraction() const { return allow_lcm_; }

  z3::expr fresh(const std::string& base) { return ctx_.int_const((base + "!" + std::to_string(counter_++)).c_str()); }

  z3::expr floordiv_witness(const z3::expr& a, const z3::expr& d) {
    const auto key = std::make_pair(a.id(), d.id());
    if (auto it = divs_.find(key); it != divs_.end()) return it->second;
    z3::expr q = fresh("q");
    z3::expr r = fresh("r");
    // Floor division by a positive divisor; the divisor's sign is an obligation, not a fact.
    defs_.push_back(z3::implies(d > 0, a == d * q + r && r >= 0 && r < d));
    defined_.push_back({q, r});
    obligations_.push_back(d > 0);
    divs_.emplace(key, q);
    return q;
  }

  z3::expr lcm_abstraction(const z3::expr& a, const z3::expr& b) {
    const auto key = std::make_pair(a.id(), b.id());
    if (auto it = lcm_memo_.find(key); it != lcm_memo_.end()) return it->second;
    z3::expr l = fresh("lcm");
    z3::expr x = fresh("lcm_x");
    z3::expr y = fresh("lcm_y");
    defs_.push_back(l >= 1 && x >= 1 && y >= 1 && l == a * x && l == b * y && l <= a * b);
    defined_.push_back({l, x, y});
    obligations_.push_back(a > 0 && b > 0);
    lcms_.push_back({a, b, l, x, y});
    lcm_memo_.emplace(key, l);
    return l;
  }

  void add_def(const z3::expr& e, std::vector<z3::expr> defines) {
    defs_.push_back(e);
    defined_.push_back(std::move(defines));
  }

 private:
  static Z3Scope*& current_ref() {
    thread_local Z3Scope* s = nullptr;
    return s;
  }
  z3::context& ctx_;
  bool allow_lcm_;
  Z3Scope* prev_;
  int counter_ = 0;
  std::vector<z3::expr> defs_;
  std::vector<std::vector<z3::expr>> defined_;
  std::vector<z3::expr> obligations_;
  std::vector<LcmAbstraction> lcms_;
  std::map<std::pair<unsigned, unsigned>, z3::expr> divs_;
  std::map<std::pair<unsigned, unsigned>, z3::expr> lcm_memo_;
};

inline bool numeral_of(const z3::expr& e, std::int64_t& v) {
  if (e.is_numeral_i64(v)) return true;
  return e.simplify().is_numeral_i64(v);
}

}  // namespace cp::smt

namespace cp {

template <>
struct NumOps<z3::expr> {
  using Bool = z3::expr;
  // The spelling of the rounding formulas on solver terms (reference/arith/ops.h): the
  // planner's, unless a test rewrites one (smt::use_spelling; forked workers inherit it).
  static Spelling& spelling() {
    static Spelling s;
    return s;
  }
  static z3::expr lit(const z3::expr& like, std::int64_t v) { return like.ctx().int_val(v); }
  static z3::expr floordiv(const z3::expr& a, const z3::expr& b) {
    std::int64_t d = 0;
    if (smt::numeral_of(b, d)) {
      if (d <= 0) throw std::logic_error("floordiv by a non-positive numeral " + std::to_string(d));
      std::int64_t n = 0;
      if (smt::numeral_of(a, n)) {  // both constant: fold exactly (floor)
        std::int64_t q = n / d;
        if (n % d != 0 && n < 0) --q;
        return a.ctx().int_val(q);
      }
      return a / a.ctx().int_val(d);  // Euclidean == floor for a positive divisor
    }
    smt::Z3Scope* s = smt::Z3Scope::current();
    if (!s) throw std::logic_error("floordiv by a symbolic divisor outside a Z3Scope");
    return s->floordiv_witness(a, b);
  }
  static z3::expr select(const z3::expr& c, const z3::expr& a, const z3::expr& b) {
    const z3::expr cs = c.is_app() && c.num_args() == 0 ? c : c.simplify();
    if (cs.is_true()) return a;
    if (cs.is_false()) return b;
    return z3::ite(c, a, b);
  }
  static z3::expr lcm(const z3::expr& a, const z3::expr& b) {
    std::int64_t x = 0, y = 0;
    const bool nx = smt::numeral_of(a, x), ny = smt::numeral_of(b, y);
    if (nx && ny) {
      if (x <= 0 || y <= 0) throw std::logic_error("lcm of a non-positive numeral");
      return a.ctx().int_val(std::lcm(x, y));
    }
    if (nx && x == 1) return b;
    if (ny && y == 1) return a;
    smt::Z3Scope* s = smt::Z3Scope::current();
    if (!s || !s->allow_lcm_abstraction())
      throw std::logic_error("lcm of symbolic terms: split B, W, I into concrete cases first");
    return s->lcm_abstraction(a, b);
  }
};

}  // namespace cp

// A closed lemma chain under construction (encode.h's Step): each step is its own query over
// exactly the hypotheses it lists (domain facts, witness definitions, earlier steps). Nonlinear
// facts enter only as instances of one generic, separately proved monotonicity lemma, and the
// sizing's select(W == 1, ...) terms are rewritten by congruence, so every query is linear over
// named monomials. The prover checks the hypotheses, instances and rewrites (task.cpp).
#pragma once

#include <z3++.h>

#include <string>
#include <vector>

#include "invariants/smt/encode.h"

namespace cp::smt {

class LemmaChain {
 public:
  LemmaChain(z3::context& ctx, Z3Scope& sc, Encoding& enc);

  // The witness definition (z3_ops.h) that defines `sym`.
  z3::expr def_of(const z3::expr& sym) const;
  // The domain facts about `sym`, without / only its upper bounds (a step using one is bounded).
  std::vector<z3::expr> dom(const z3::expr& sym) const;
  std::vector<z3::expr> bounds_of(const z3::expr& sym) const;
  static std::vector<z3::expr> cat(std::vector<z3::expr> a, const std::vector<z3::expr>& b);

  // Adds the closed step `hyps => goal`; returns goal (what later steps may list).
  z3::expr closed(std::string name, std::string comment, const z3::expr& goal, std::vector<z3::expr> hyps,
                  bool direct = false);
  // The last step is linear over its products: the prover abstracts them.
  void abstract_last_products();
  // An instance of lemma-monotone (added, with the generic lemma, on first use):
  //   d >= 1 => (e >= 1 => d*e >= d) and (e <= -1 => d*e <= -d) and d*e has the sign of e.
  z3::expr mono(const z3::expr& d, const z3::expr& e);
  // Congruence: from the proved `from == to` (step `eq`) and the fact f, f[from := to].
  z3::expr rewrite(const z3::expr& f, const z3::expr& from, const z3::expr& to, const z3::expr& eq);

  Encoding& enc() { return enc_; }

 private:
  z3::context& ctx_;
  Z3Scope& sc_;
  Encoding& enc_;
  z3::expr md_, me_;
  int mono_idx_ = -1;
};

}  // namespace cp::smt

#include "invariants/smt/lemma_chain.h"

#include <stdexcept>

namespace cp::smt {

LemmaChain::LemmaChain(z3::context& ctx, Z3Scope& sc, Encoding& enc)
    : ctx_(ctx), sc_(sc), enc_(enc), md_(ctx.int_const("lemma_d")), me_(ctx.int_const("lemma_e")) {}

z3::expr LemmaChain::def_of(const z3::expr& sym) const {
  for (std::size_t i = 0; i < sc_.defined().size(); ++i)
    for (const auto& x : sc_.defined()[i])
      if (z3::eq(x, sym)) return sc_.defs()[i];
  throw std::logic_error("no definition of " + sym.to_string());
}

std::vector<z3::expr> LemmaChain::dom(const z3::expr& sym) const {
  std::vector<z3::expr> out;
  for (std::size_t i = 0; i < enc_.domain.size(); ++i)
    for (const auto& x : enc_.domain_defines[i])
      if (z3::eq(x, sym) && !enc_.bound_ids.count(enc_.domain[i].id())) out.push_back(enc_.domain[i]);
  return out;
}

std::vector<z3::expr> LemmaChain::bounds_of(const z3::expr& sym) const {
  std::vector<z3::expr> out;
  for (std::size_t i = 0; i < enc_.domain.size(); ++i)
    for (const auto& x : enc_.domain_defines[i])
      if (z3::eq(x, sym) && enc_.bound_ids.count(enc_.domain[i].id())) out.push_back(enc_.domain[i]);
  return out;
}

std::vector<z3::expr> LemmaChain::cat(std::vector<z3::expr> a, const std::vector<z3::expr>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

z3::expr LemmaChain::closed(std::string name, std::string comment, const z3::expr& goal, std::vector<z3::expr> hyps,
                            bool direct) {
  for (const auto& h : hyps)
    if (enc_.bound_ids.count(h.id())) enc_.unbounded = false;  // uses an upper bound of the domain
  Step s{std::move(name), std::move(comment), goal, std::nullopt, direct};
  s.hyps = std::move(hyps);
  enc_.steps.push_back(std::move(s));
  return goal;
}

void LemmaChain::abstract_last_products() { enc_.steps.back().abstract_products = true; }

z3::expr LemmaChain::mono(const z3::expr& d, const z3::expr& e) {
  if (mono_idx_ < 0) {
    closed("lemma-monotone",
           "generic: d >= 1 implies (e >= 1 => d*e >= d), (e <= -1 => d*e <= -d), d*e has the sign of e",
           z3::implies(md_ >= 1, z3::implies(me_ >= 1, md_ * me_ >= md_) && z3::implies(me_ <= -1, md_ * me_ <= -md_) &&
                                     z3::implies(me_ >= 0, md_ * me_ >= 0) && z3::implies(me_ <= 0, md_ * me_ <= 0)),
           {});
    mono_idx_ = static_cast<int>(enc_.steps.size()) - 1;
  }
  z3::expr_vector from(ctx_), to(ctx_);
  from.push_back(md_), from.push_back(me_), to.push_back(d), to.push_back(e);
  const z3::expr inst = enc_.steps[static_cast<std::size_t>(mono_idx_)].goal.substitute(from, to);
  Step s{"monotone-instance", "instance of lemma-monotone: d := " + d.to_string() + ", e := " + e.to_string(), inst,
         std::nullopt, false};
  s.instance_of = mono_idx_;
  s.inst_from = {md_, me_};
  s.inst_to = {d, e};
  enc_.steps.push_back(std::move(s));
  return inst;
}

z3::expr LemmaChain::rewrite(const z3::expr& f, const z3::expr& from, const z3::expr& to, const z3::expr& eq) {
  z3::expr_vector fv(ctx_), tv(ctx_);
  fv.push_back(from), tv.push_back(to);
  Step s{"case-rewrite", "the fact with W == 1 replaced by its value in this case", z3::expr(f).substitute(fv, tv),
         std::nullopt, false};
  s.hyps = std::vector<z3::expr>{f, eq};
  s.instance_of = -2;
  s.inst_from = {from};
  s.inst_to = {to};
  enc_.steps.push_back(s);
  return s.goal;
}

}  // namespace cp::smt

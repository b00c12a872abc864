// What one step's query is (invariants/smt/prover_internal.h): the cone-of-influence slice,
// the product abstraction, the solver with rlimit and seed, and the canonical SMT-LIB2 export.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "invariants/smt/prover_internal.h"

namespace cp::smt::detail {

// The export in a canonical form, so it is a function of the query alone (tests/smt/golden):
// Z3 names let-bound terms after AST ids (?x276, $x280), which depend on what the context built
// before; they are renamed ?t1, $t2, ... in order of first appearance. The declarations are sorted.
std::string canonical_smt2(const std::string& body) {
  std::vector<std::string> decls;
  std::string out, rest;  // out: the lines before the first declaration
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("(declare-fun ", 0) == 0)
      decls.push_back(line);
    else
      (decls.empty() ? out : rest) += line + "\n";
  }
  std::sort(decls.begin(), decls.end());
  for (const auto& d : decls) out += d + "\n";
  std::map<std::string, std::string> names;
  for (std::size_t i = 0; i < rest.size();) {
    const char ch = rest[i];
    if ((ch == '?' || ch == '$') && i + 1 < rest.size() && rest[i + 1] == 'x') {
      std::size_t j = i + 2;
      while (j < rest.size() && rest[j] >= '0' && rest[j] <= '9') ++j;
      if (j > i + 2) {
        const std::string tok = rest.substr(i, j - i);
        auto it = names.find(tok);
        if (it == names.end())
          it = names.emplace(tok, std::string(1, ch) + "t" + std::to_string(names.size() + 1)).first;
        out += it->second;
        i = j;
        continue;
      }
    }
    out += ch;
    ++i;
  }
  return out;
}

void write_smt2(const std::string& dir, const TaskKey& key, int idx, const Step& st, const Encoding& enc,
                const std::string& domain, const std::string& body, const Domain& dom) {
  std::filesystem::create_directories(dir);
  std::string file = std::string(name(key.version)) + "." + std::string(name(key.platform)) + "." +
                     std::string(info(key.invariant).tag) + "." +
                     split_label(key.version, key.invariant, key.split, dom) + "." + std::to_string(idx) + "-" +
                     st.name + ".smt2";
  for (char& ch : file)
    if (ch == '/' || ch == ' ' || ch == '>' || ch == '<' || ch == '=' || ch == ',') ch = ch == '=' ? '_' : '-';
  std::ofstream o(std::filesystem::path(dir) / file);
  o << "; chunkproof prove: " << name(key.version) << " / " << name(key.platform) << " / " << info(key.invariant).tag
    << " (" << info(key.invariant).summary << ")\n"
    << "; split: " << split_label(key.version, key.invariant, key.split, dom) << "; method: " << enc.method << "\n"
    << "; step " << idx << " '" << st.name << "': " << st.comment << "\n"
    << "; domain: " << domain << "\n"
    << "; the query asserts the domain, the arithmetic's witness definitions (floor division:\n"
    << ";   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:\n";
  if (st.witness)
    o << ";   a WITNESS step: sat = the case occurs (the proofs are about something); unsat = vacuous\n";
  else
    o << ";   unsat = the step holds; sat = a model violating it"
      << (st.direct ? " (a counterexample to the invariant)" : " (the lemma chain is broken)") << "\n";
  o << "; inputs:";
  for (const auto& [n, e] : enc.shown) o << " " << n;
  o << "\n" << canonical_smt2(body);
}

// Uninterpreted constants of a term. This and abstract_products are the only term traversals of
// invariants/smt/: generic over every query, whatever its spelling. No encoder reads back the
// terms a template built (the quantities a chain needs come from the rules' decompositions).
static void collect_consts(const z3::expr& e, std::set<unsigned>& seen, std::set<unsigned>& out) {
  if (!seen.insert(e.id()).second) return;
  if (e.is_const() && e.decl().decl_kind() == Z3_OP_UNINTERPRETED) {
    out.insert(e.decl().id());
    return;
  }
  if (e.is_app())
    for (unsigned i = 0; i < e.num_args(); ++i) collect_consts(e.arg(i), seen, out);
}
std::set<unsigned> consts_of(const z3::expr& e) {
  std::set<unsigned> seen, out;
  collect_consts(e, seen, out);
  return out;
}

// Cone of influence: the facts a goal depends on. A domain fact or witness definition is kept
// when it is about (defines) a symbol the goal or a kept fact mentions; an earlier step is
// kept when it mentions such a symbol. Dropping a fact only weakens the assumptions, so an
// unsat (proved) answer stays sound; a sat answer is re-checked with every fact (below).
std::vector<z3::expr> slice(const z3::expr& goal, const Encoding& enc, const Z3Scope& scope,
                            const std::vector<z3::expr>& proved) {
  struct F {
    const z3::expr* e;
    std::set<unsigned> about, mentions;
    bool hint;
  };
  std::vector<F> fs;
  auto ids = [](const std::vector<z3::expr>& v) {
    std::set<unsigned> s;
    for (const auto& x : v) s.insert(x.decl().id());
    return s;
  };
  for (std::size_t i = 0; i < enc.domain.size(); ++i)
    fs.push_back({&enc.domain[i], ids(enc.domain_defines[i]), consts_of(enc.domain[i]), false});
  for (std::size_t i = 0; i < scope.defs().size(); ++i)
    fs.push_back({&scope.defs()[i], ids(scope.defined()[i]), consts_of(scope.defs()[i]), false});
  // Parameters (B, W, I) appear everywhere: they do not pull an earlier step into the cone.
  std::set<unsigned> params;
  for (const auto& [n, e] : enc.shown)
    if (n == "block" || n == "dcp" || n == "interleave") params.insert(e.decl().id());
  for (const auto& p : proved) {
    auto m = consts_of(p);
    std::set<unsigned> about;
    for (unsigned x : m)
      if (!params.count(x)) about.insert(x);
    fs.push_back({&p, about, m, true});
  }
  std::set<unsigned> need = consts_of(goal);
  std::vector<bool> in(fs.size(), false);
  for (bool grew = true; grew;) {
    grew = false;
    for (std::size_t i = 0; i < fs.size(); ++i) {
      if (in[i]) continue;
      const bool hit = std::any_of(fs[i].about.begin(), fs[i].about.end(), [&](unsigned x) { return need.count(x); });
      if (!hit) continue;
      in[i] = true;
      grew = true;
      need.insert(fs[i].mentions.begin(), fs[i].mentions.end());
    }
  }
  std::vector<z3::expr> out;
  for (std::size_t i = 0; i < fs.size(); ++i)
    if (in[i]) out.push_back(*fs[i].e);
  return out;
}

// Replaces each product of two or more non-numeral factors by a fresh constant (memoised by
// term): a weakening, so an unsat answer about the abstraction is one about the original.
z3::expr abstract_products(const z3::expr& e, std::map<unsigned, z3::expr>& memo, int& counter) {
  if (auto it = memo.find(e.id()); it != memo.end()) return it->second;
  z3::expr out = e;
  if (e.is_app() && e.num_args() > 0) {
    int symbolic = 0;
    for (unsigned i = 0; i < e.num_args(); ++i)
      if (!e.arg(i).is_numeral()) ++symbolic;
    if (e.decl().decl_kind() == Z3_OP_MUL && symbolic >= 2) {
      out = e.ctx().int_const(("product!" + std::to_string(counter++)).c_str());
    } else {
      z3::expr_vector args(e.ctx());
      for (unsigned i = 0; i < e.num_args(); ++i) args.push_back(abstract_products(e.arg(i), memo, counter));
      out = e.decl()(args);
    }
  }
  memo.emplace(e.id(), out);
  return out;
}

z3::solver build_query(z3::context& ctx, const Step& st, const Encoding& enc, const Z3Scope& scope,
                       const std::vector<z3::expr>& proved, QueryForm form, std::uint64_t rlimit, unsigned seed) {
  z3::solver s(ctx);
  z3::params p(ctx);
  // No Z3 "timeout": its timer thread can deadlock under load (Z3 4.8.12); the rlimit bounds
  // the work deterministically and the worker's alarm() watchdog bounds the wall time.
  p.set("rlimit", static_cast<unsigned>(std::min<std::uint64_t>(rlimit, 4000000000ull)));
  p.set("random_seed", seed);
  s.set(p);
  const bool full = form == QueryForm::full;
  if (st.hyps && !full && st.abstract_products) {
    std::map<unsigned, z3::expr> memo;
    int counter = 0;
    for (const auto& e : *st.hyps) s.add(abstract_products(e, memo, counter));
    s.add(!abstract_products(st.goal, memo, counter));
    return s;
  }
  if (st.hyps && !full) {  // closed step: exactly its hypotheses; a sat answer is re-solved with all
    for (const auto& e : *st.hyps) s.add(e);
  } else if (full) {
    for (const auto& e : enc.domain) s.add(e);
    for (const auto& e : scope.defs()) s.add(e);
    for (const auto& e : proved) s.add(e);
  } else {
    for (const auto& e : slice(st.goal, enc, scope, proved)) s.add(e);
  }
  s.add(!st.goal);
  return s;
}

}  // namespace cp::smt::detail

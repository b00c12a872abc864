// The invariant encodings (internal to invariants/smt/). An Encoding is a lemma chain: steps
// G1..Gm, each proved as its own query from the domain, the arithmetic's witness
// definitions and the earlier steps (or the weaker fact an earlier step declares for later
// use, e.g. "S = W*K for a fresh K"). The invariant holds when every step is unsat-negated.
#pragma once

#include <z3++.h>

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "invariants/catalogue.h"
#include "invariants/smt/prover.h"
#include "invariants/smt/z3_ops.h"
#include "reference/caseio/case.h"

namespace cp::smt {

struct Step {
  std::string name;
  std::string comment;  // what the step shows, in words (goes into the SMT-LIB2 export)
  z3::expr goal;
  std::optional<z3::expr> later;  // what later steps may assume (default: goal)
  bool direct = false;            // a model of !goal is a violation of the invariant itself
  // Closed step: the query is exactly `hyps => goal` (no slicing). Every hypothesis must be a
  // domain fact, a witness definition or an earlier step's goal (the prover checks it by term
  // identity), so the chain only assumes what it has.
  std::optional<std::vector<z3::expr>> hyps;
  // Closed step whose reasoning is linear over its products: every nonlinear product term is
  // replaced by a fresh constant (the same term by the same constant). This only weakens the
  // query, so unsat stays a proof; it keeps Z3's nonlinear solver out of a linear argument.
  bool abstract_products = false;
  // Instance step: goal = steps[instance_of].goal with inst_from := inst_to. The generic step
  // is a closed step without hypotheses (a valid formula over fresh symbols); an instance of a
  // valid formula is valid, so the prover checks the substitution instead of solving.
  // instance_of == -2: congruence step: hyps = {F, a == b}, goal = F[a := b] (checked, not solved).
  int instance_of = -1;
  std::vector<z3::expr> inst_from, inst_to;
  // Witness step (not a proof): the whole domain with !goal must be satisfiable, i.e. the case a
  // proof is about occurs (a split-grid piece the planner emits). Unsat: the proofs are vacuous,
  // the task is UNKNOWN.
  bool witness = false;
};

struct Encoding {
  std::string na;      // non-empty: the split does not apply (e.g. I-6 without DCP)
  std::string method;  // e.g. "lemma chain, symbolic B/W/I (unbounded in S, ctx, start)"
  bool unbounded = false;
  std::vector<std::pair<std::string, z3::expr>> shown;  // inputs and intermediates, sorted by name
  std::vector<z3::expr> domain;
  std::vector<std::vector<z3::expr>> domain_defines;  // parallel to domain: the symbols each fact is about
  std::vector<z3::expr> search_hints;                 // extra constraints tried first in counterexample search
  std::vector<Step> steps;
  std::function<Case(const z3::model&)> to_case;
  // Set by the closed lemma chains: the definedness step becomes closed over these hypotheses.
  std::optional<std::vector<z3::expr>> definedness_hyps;
  std::set<unsigned> bound_ids;   // ids of the domain's upper-bound facts
  std::optional<z3::expr> built;  // the plan is built (no planner assert stops it); obligations hold there  // builds a
                                  // replayable case from a model
};

// Adds a domain fact about (defining) the given symbols.
inline void fact(Encoding& e, const z3::expr& f, std::vector<z3::expr> about);
// Adds an upper bound of the declared domain. Closed lemma chains never assume one unless a step
// needs it, and a chain that does is reported as bounded (not "unbounded").
inline void bound(Encoding& e, const z3::expr& f, std::vector<z3::expr> about) {
  e.bound_ids.insert(f.id());
  fact(e, f, std::move(about));
}
// Adds a domain fact about (defining) the given symbols.
inline void fact(Encoding& e, const z3::expr& f, std::vector<z3::expr> about) {
  e.domain.push_back(f);
  e.domain_defines.push_back(std::move(about));
}

struct TaskKey {
  Version version{};
  Platform platform{};
  InvariantId invariant{};
  int split = 0;
};

// Whether d pins block, dcp and interleave (interleave only where the version has one).
bool pins_triple(const Domain& d, Version v);
// How many split cases (concrete values of the finite parameters the version divides by).
int num_splits(Version v, InvariantId id, const Domain& d);
std::string split_label(Version v, InvariantId id, int split, const Domain& d);

Encoding encode(z3::context& ctx, Z3Scope& scope, const TaskKey& key, const Domain& d);

// The other engines' families (encode_engines.cpp): whether the version is one, whether the
// prover encodes the invariant for it (else why), its split cases and their labels, its encoding.
bool engine_family(Version v);
// The version's family is one of those, or (the packed family's Z-1) the table has this rule.
bool engine_rule(Version v, InvariantId id);
std::string engine_describe(const Domain& d);  // the domain as the engines' encoders read it
bool engine_encoded(Version v, InvariantId id, std::string* why);
int engine_num_splits(Version v, InvariantId id, const Domain& d);
std::string engine_split_label(Version v, InvariantId id, int split, const Domain& d);
Encoding encode_engine(z3::context& ctx, Z3Scope& scope, const TaskKey& key, const Domain& d);

}  // namespace cp::smt

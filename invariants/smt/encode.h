// The invariant encodings (internal to invariants/smt/). An Encoding is a lemma chain: steps
// G1..Gm, each proved as its own query from the domain, the arithmetic's witness
// definitions and the earlier steps (or the weaker fact an earlier step declares for later
// use, e.g. "S = W*K for a fresh K"). The invariant holds when every step is unsat-negated.
#pragma once

#include <z3++.h>

#include <functional>
#include <optional>
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
  std::optional<z3::expr> built;  // the plan is built (no planner assert stops it); obligations hold there  // builds a
                                  // replayable case from a model
};

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

// How many split cases (concrete values of the finite parameters the version divides by).
int num_splits(Version v, InvariantId id, const Domain& d);
std::string split_label(Version v, InvariantId id, int split, const Domain& d);

Encoding encode(z3::context& ctx, Z3Scope& scope, const TaskKey& key, const Domain& d);

}  // namespace cp::smt

// Internal to the encoders (invariants/smt/): the domain of a case (engine parameters, the
// version's sizing, the packed split grid, model -> case), the forward asserts, and the two
// family encoders.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "invariants/smt/encode.h"
#include "reference/planner/families/floor_divide/steps.h"
#include "reference/planner/families/packed/steps.h"
#include "reference/planner/sizing.h"
#include "reference/planner/steps.h"

namespace cp::smt::detail {

using z3::expr;

// The prover's cases are (version, platform) with vLLM's default builder (dense); the steps
// themselves are reference/planner/steps.h, the same templates the planner runs.
constexpr Builder kBuilder = Builder::dense;

std::int64_t get(const z3::model& m, const expr& e);
inline bool is_packed(Version v) { return info(v).is_packed(); }

// ---- domain (domain.cpp) -----------------------------------------------------------------
struct Triple {
  std::int64_t B, W, I;
};
// The packed planner's split grid (Domain::split_blocks x divisors x dcp 1..dcp_max).
std::vector<Triple> packed_grid(const Domain& d);

struct Common {
  expr mml, mns, B, W, I, S, bi;
  bool sized;
  expr Sexpr;  // the sizing term S is defined as (sized) or S itself
  // Sized by a rule that ends in a rounding: its named quantities, Sexpr = q*multiple
  // (steps::workspace_sizing; a proof takes q from here, never from the term).
  std::optional<arith::Rounding<expr>> rounding = std::nullopt;
};
// B >= 1 within the domain, I | B with B = I * bi (I-11), I = 1 where the version has no interleave:
// the geometry facts of every encoding (vLLM's make_common, the engines' make_engine_common).
void block_and_interleave_facts(z3::context& ctx, Encoding& enc, const Domain& d, Version v, const expr& B,
                                const expr& I, const expr& bi);
// The engine parameters and the workspace over the declared domain (concrete: a split case).
Common make_common(z3::context& ctx, Encoding& enc, const Domain& d, Version v, bool dcp, std::int64_t wmin,
                   std::int64_t wmax, const Triple* concrete = nullptr);
Case base_case(const z3::model& m, const Common& c, Version v, Platform p);

// ---- planner steps on solver terms (domain.cpp) ----------------------------------------------
// The forward asserts every DCP forward runs on a chunk of `toks` local rows (steps.h).
expr forward_asserts_hold(const expr& toks, const expr& S, const expr& W);

// ---- the families ---------------------------------------------------------------------------
// Invariants with a closed lemma chain (symbolic B, W, I; unbounded).
bool lemma_chain_encoded(InvariantId id, bool dcp, bool sized);
// The packed planner's mode for one invariant: "split" (concrete grid) or the lemma chains.
bool packed_split_mode(InvariantId id, const Domain& d);
Encoding encode_packed(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d);
Encoding encode_old(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d);

}  // namespace cp::smt::detail

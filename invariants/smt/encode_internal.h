// Internal to the encoders (invariants/smt/): the domain of a case (engine parameters, the
// version's sizing, the packed split grid, model -> case), the forward asserts, and the two
// family encoders.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
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

// B, W, I when the domain pins all three (I = 1 where the version has no interleave): the
// split grid's one triple, and the old planner's concrete case of I-8 and I-9.
std::optional<Triple> pinned_triple(const Domain& d, Version v);

// ---- one chunk entry under DCP with concrete W and I (encode_entry.cpp) ----------------------
// What vllm_chunk_movement moves for an entry: the span [start, end); every rank gathers its
// local slots [local_start, local_start + pll) (pll: padded_local_len) and the reorg keeps the
// first kept(rank) of them, rank after rank. `is`: the entry exists (in the plan, this piece of
// the greedy step); `tag` names its steps; `hyps`: what the entry's steps assume (closed steps:
// domain facts and earlier steps only), or none: each step sliced to its cone of influence.
struct EntryView {
  expr is, start, end, local_start, pll;
  std::function<expr(const expr& rank)> kept;
  std::string tag;
  std::optional<std::vector<expr>> hyps = std::nullopt;
};
// I-8 as direct queries: (a) the W local context lengths of cx add up to cx (W a numeral; closed
// over cx_hyps when given); (b) the rows an arbitrary rank owns of each entry's span fit its
// padded_local_len.
void entry_I8_steps(z3::context& ctx, Encoding& enc, const expr& cx, const std::optional<std::vector<expr>>& cx_hyps,
                    const std::vector<EntryView>& entries, const expr& W, const expr& I);
// I-9 as direct queries, per entry: the count level (kept = rows owned, <= padded_local_len) and
// the token level (position -> (owner, local slot) is a bijection onto the kept slots).
void entry_I9_steps(z3::context& ctx, Encoding& enc, const std::vector<EntryView>& entries, const expr& W,
                    const expr& I);

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

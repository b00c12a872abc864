// The invariant encodings: the planner steps of reference/planner/steps.h (and the formulas of
// reference/planner/arith.h, reference/dcp/ownership.h) instantiated with z3::expr
// (invariants/smt/z3_ops.h).
//
// Two families (spec §2.2, §2.3):
//  * packed planner (v5-packed, v6-current; encode_packed.cpp, packed_chains.cpp): one arbitrary
//    step of the greedy loop, with an induction hypothesis (every start is a multiple of the
//    alignment, the chunk's rows fit the budget). B, W, I, S, ctx, start, rows are all symbolic;
//    the binary search is encoded by its postcondition. Split: W = 1 and 2 <= W <= dcp_max.
//    Proofs are closed lemma chains (lemma_chain.h) whose nonlinear subterms are named by fresh
//    witnesses; they hold for every integer value of the unbounded parameters (S, ctx, start,
//    rows, mml, mns) and every B, W, I >= 1 the steps' domain admits.
//  * old planner (v0 .. v4, pr41229; encode_old.cpp): M = round_down(S // n, round_to); the
//    prefill count n is split concretely (1 .. prefills_max) because the version divides by it;
//    an arbitrary chunk index c stands for every chunk.
// The domain of a case (engine parameters, sizing, split grid, model -> case) is domain.cpp.
// The other engines' families (ATOM, SGLang, TokenSpeed, TensorRT-LLM) are encode_engines.cpp.
#include "invariants/smt/encode.h"

#include <algorithm>

#include "invariants/smt/encode_internal.h"

namespace cp::smt {
namespace detail {

// Invariants with a closed lemma chain (symbolic B, W, I; unbounded). I-3 (tiling + progress)
// needs S >= align from the sizing: an explicit workspace proves it on the split grid.
bool lemma_chain_encoded(InvariantId id, bool dcp, bool sized) {
  using enum InvariantId;
  switch (id) {
    case I1_workspace_div_dcp: return dcp && sized;
    case I2_nonempty_chunk_width:
    case I3_coverage: return sized;  // progress needs S >= align from the sizing
    case I4_global_row_budget:
    case I6_virtual_block_alignment:
    case I7_local_row_budget:
    case I8_local_length_bookkeeping:
    case I9_reorg_exact:
    case I10_gather_start_semantics: return true;
    default: return false;
  }
}

// The packed planner's mode for one invariant: "split" (concrete grid) or the lemma chains.
bool packed_split_mode(InvariantId id, const Domain& d) {
  if (d.packed_mode == "split") return true;
  if (d.packed_mode == "symbolic") return false;
  // auto: the chains; I-3 with an explicit workspace (no S >= align from a sizing) on the grid;
  // everything on the grid when B, W and I are pinned (`chunkproof audit`): the grid is then the
  // one pinned triple, and its linear queries take a fraction of a second where the chains'
  // symbolic B, W, I take tens of seconds (I-8, I-9 most: docs/measurements.md).
  if (d.block_pin && d.dcp_pin && d.interleave_pin) return true;
  if (id == InvariantId::I3_coverage && d.workspace_max != 0) return true;
  return !lemma_chain_encoded(id, true, true);
}

}  // namespace detail

using namespace detail;

bool pins_triple(const Domain& d, Version v) { return pinned_triple(d, v).has_value(); }

int num_splits(Version v, InvariantId id, const Domain& d) {
  if (engine_rule(v, id)) return engine_num_splits(v, id, d);
  if (is_packed(v)) return packed_split_mode(id, d) ? static_cast<int>(packed_grid(d).size()) : 2;
  if (id == InvariantId::I1_workspace_div_dcp) return 1;  // does not depend on n
  return static_cast<int>(std::max<std::int64_t>(1, d.prefills_max));
}

std::string split_label(Version v, InvariantId id, int split, const Domain& d) {
  if (engine_rule(v, id)) return engine_split_label(v, id, split, d);
  if (is_packed(v)) {
    if (!packed_split_mode(id, d)) return split == 0 ? "dcp=1" : "dcp>=2";
    const Triple t = packed_grid(d).at(static_cast<std::size_t>(split));
    return "B=" + std::to_string(t.B) + ",W=" + std::to_string(t.W) + ",I=" + std::to_string(t.I);
  }
  if (id == InvariantId::I1_workspace_div_dcp) return "any n";
  return "n=" + std::to_string(split + 1);
}

Encoding encode(z3::context& ctx, Z3Scope& scope, const TaskKey& key, const Domain& d) {
  Encoding e = engine_rule(key.version, key.invariant) ? encode_engine(ctx, scope, key, d)
               : is_packed(key.version)                ? encode_packed(ctx, scope, key, d)
                                                       : encode_old(ctx, scope, key, d);
  std::sort(e.shown.begin(), e.shown.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return e;
}

}  // namespace cp::smt

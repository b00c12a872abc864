// The steps every planner family shares (DESIGN §3): the DCP forward's per-chunk asserts.
// Sizing is sizing.h; the families' own steps are families/<family>/steps.h. Templates over
// the number type: the planner (cp::Int) and the prover (z3::expr) both call these.
#pragma once

#include "reference/planner/arith.h"

namespace cp::steps {

// ---- every DCP forward, per chunk (spec §3.3, §3.5) ----------------------------------------
// allgather_offset = R // (W + 1) with R = S + S // W.
template <class N>
N workspace_rows(const N& S, const N& W, bool dcp) {
  return dcp ? S + floordiv(S, W) : S;
}
template <class N>
auto forward_fits_allgather_offset(const N& toks, const N& R, const N& W) {
  return toks <= floordiv(R, W + lit(W, 1));
}
template <class N>
auto forward_fits_workspace(const N& toks, const N& W, const N& S) {
  return toks * W <= S;
}

}  // namespace cp::steps

// Internal: one arbitrary step of the packed planner's greedy loop (plan_packed, steps.h) on
// z3::expr, with its induction hypothesis, as the packed encoders share it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "invariants/smt/encode_internal.h"
#include "invariants/smt/lemma_chain.h"

namespace cp::smt::detail {

struct PackedStep {
  // Builds the step's terms and adds its domain facts to enc (tr: the split grid's case).
  PackedStep(z3::context& ctx, Z3Scope& sc, Encoding& enc, const TaskKey& key, const Domain& d, bool split_mode,
             bool dcp, const Triple* tr);
  TaskKey key;
  const Domain* d;
  bool split_mode, dcp, aligns_to_block;
  Common c;
  expr S, W, I, B, V;            // V = I*W, the virtual block
  steps::PackedParams<expr> pp;  // align, row_budget, Mmax (steps::packed_params)
  expr cx, ks, start, rows, k;   // ctx, start = align*ks, the open chunk's rows, split = k*align
  expr remaining, full, take_all, cap, kmax, split, fits_k, local_start;
  expr M1, T;  // the sliced chains' fresh factors: align = V*M1, start = V*T
  expr need(const expr& s, const expr& len) const { return steps::packed_need(s, len, I, W, dcp); }
};

// What the closed lemma chains share: the sizing's round_up, and under DCP P = I*W >= 1,
// start = P*Tq and local_start = Tq*I (packed_chains.cpp).
struct ChainFacts {
  bool rounds;  // the sizing is a round_up (S = qU*A): under DCP, and v5 without it
  std::vector<expr> dB, dW, dI, dS;
  std::optional<expr> Lsym, Ldef;  // the sizing's lcm(B, I*W) and its definition
  expr A;                          // the sizing's alignment: lcm under DCP, else B
  std::optional<expr> qU, sizedS, qUpos, apos, Ppos, startPT, qLstep;
  expr Tq;
};

// The rows rank r owns of a prefix [0, e) (dcp_local_len, ownership.h) against the padded prefix
// rows c*I, c = cdiv(e, V), V = I*W (packed_chains.cpp; the packed I-8/I-9 chains and the
// gathered prefill's D-5/D-7 list these steps). Ppos: a proved step I*W >= 1.
struct OwnedSpan {
  expr b, c, rem, range, cd, share, cdef;  // cdef: the definition of c = cdiv(e, I*W)
};
OwnedSpan owned_span(LemmaChain& lc, const expr& e, const expr& W, const expr& r, const expr& I, const expr& V,
                     const expr& Ppos, const std::string& tag, bool range_only = false);

// The closed lemma chain of p.key.invariant (packed_chains.cpp).
void encode_packed_chain(z3::context& ctx, Z3Scope& sc, const PackedStep& p, Encoding& enc);
// The sliced steps of the split grid / the symbolic sliced I-3 (encode_packed.cpp).
void encode_packed_sliced(z3::context& ctx, Z3Scope& sc, const PackedStep& p, Encoding& enc);

}  // namespace cp::smt::detail

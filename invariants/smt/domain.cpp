// The domain of a case: the engine parameters (B, W, I, S sized by the version's rule, with the
// rule's rounding named), the packed planner's split grid, model -> replayable case; and the
// forward asserts. No term a template built is read back: the named quantities come from the
// templates' decompositions (steps::workspace_sizing, dcp_local_len_parts, cdiv_parts).
#include <stdexcept>

#include "invariants/smt/encode_internal.h"
#include "reference/dcp/ownership.h"

namespace cp::smt::detail {

std::int64_t get(const z3::model& m, const expr& e) {
  std::int64_t v = 0;
  if (!m.eval(e, true).is_numeral_i64(v)) throw std::logic_error("model value is not a 64-bit integer");
  return v;
}

// The forward asserts (steps.h, as record_forward_asserts calls them): toks <= R // (W + 1)
// with R = workspace_rows(S), and toks * W <= S.
expr forward_asserts_hold(const expr& toks, const expr& S, const expr& W) {
  return steps::forward_fits_allgather_offset(toks, steps::workspace_rows(S, W, true), W) &&
         steps::forward_fits_workspace(toks, W, S);
}

std::optional<Triple> pinned_triple(const Domain& d, Version v) {
  const std::int64_t I = info(v).supports_interleave ? d.interleave_pin : 1;
  if (!d.block_pin || !d.dcp_pin || !I) return std::nullopt;
  return Triple{d.block_pin, d.dcp_pin, I};
}

// The packed planner's split grid (Domain::split_blocks x divisors x dcp 1..dcp_max). A pinned
// interleave is the grid's one interleave whatever it is (3 is no power of two), so a pinned
// triple with I | B is always a case of the grid.
std::vector<Triple> packed_grid(const Domain& d) {
  std::vector<Triple> g;
  for (std::int64_t B : d.split_blocks) {
    if (B > d.block_max || (d.block_pin && B != d.block_pin)) continue;
    std::vector<std::int64_t> is;
    if (d.interleave_pin) {
      if (B % d.interleave_pin == 0) is.push_back(d.interleave_pin);
    } else {
      for (std::int64_t i = 1; i <= 64; i *= 2)
        if (B % i == 0 && i <= d.interleave_max) is.push_back(i);
      if (B > 64 && B <= d.interleave_max) is.push_back(B);
    }
    for (std::int64_t I : is)
      for (std::int64_t W = 1; W <= d.dcp_max; ++W)
        if (!d.dcp_pin || W == d.dcp_pin) g.push_back({B, W, I});  // a pinned I is is's one value
  }
  return g;
}

void block_and_interleave_facts(z3::context& ctx, Encoding& enc, const Domain& d, Version v, const expr& B,
                                const expr& I, const expr& bi) {
  fact(enc, B >= 1, {B});
  bound(enc, B <= ctx.int_val(d.block_max), {B});
  if (!info(v).supports_interleave) fact(enc, I == 1, {I});
  fact(enc, I >= 1 && I <= B, {I});
  bound(enc, I <= ctx.int_val(d.interleave_max), {I});
  fact(enc, bi >= 1 && B == I * bi, {B, I});  // I | B (I-11, enforced by the case format)
}

// The engine parameters and the workspace over the declared domain.
Common make_common(z3::context& ctx, Encoding& enc, const Domain& d, Version v, bool dcp, std::int64_t wmin,
                   std::int64_t wmax, const Triple* concrete) {
  Common c{ctx.int_const("max_model_len"),
           ctx.int_const("max_num_seqs"),
           ctx.int_const("block"),
           ctx.int_const("dcp"),
           ctx.int_const("interleave"),
           ctx.int_const("S"),
           ctx.int_const("block_div_interleave"),
           d.workspace_max == 0,
           ctx.int_const("S")};
  if (concrete) {  // split case: B, W, I are numerals, every division is by a constant
    c.B = ctx.int_val(concrete->B);
    c.W = ctx.int_val(concrete->W);
    c.I = ctx.int_val(concrete->I);
    c.bi = ctx.int_val(concrete->B / concrete->I);
  }
  block_and_interleave_facts(ctx, enc, d, v, c.B, c.I, c.bi);
  if (!dcp) {
    fact(enc, c.W == 1, {c.W});
  } else {
    fact(enc, c.W >= ctx.int_val(wmin), {c.W});
    bound(enc, c.W <= ctx.int_val(wmax), {c.W});
  }
  if (c.sized) {
    fact(enc, c.mml >= 1, {c.mml});
    bound(enc, c.mml <= ctx.int_val(d.mml_max), {c.mml});
    fact(enc, c.mns >= 1, {c.mns});
    bound(enc, c.mns <= ctx.int_val(d.mns_max), {c.mns});
    const steps::Sizing<expr> sz = steps::workspace_sizing(info(v).sizing, c.mml, c.mns, c.B, c.W, c.I);
    c.Sexpr = sz.S;
    // Only the chains (symbolic B, W, I) name the rounding's quantities. A split case does not
    // keep them: Z3's SMT-LIB2 printer lets-binds a subterm something else still references,
    // so a kept (div x 16) would change the split grid's exports (and their cache keys).
    if (!concrete) c.rounding = sz.rounding;
    fact(enc, c.S == c.Sexpr, {c.S});
  } else {
    fact(enc, c.mml == 0 && c.mns == 0, {c.mml, c.mns});
    fact(enc, c.S >= 1 && c.S <= ctx.int_val(d.workspace_max), {c.S});
  }
  // Pins: exact values (bounds, so a chain that needs one is not reported as unbounded).
  if (d.block_pin) bound(enc, c.B == ctx.int_val(d.block_pin), {c.B});
  if (d.dcp_pin) bound(enc, c.W == ctx.int_val(d.dcp_pin), {c.W});
  if (d.interleave_pin) bound(enc, c.I == ctx.int_val(d.interleave_pin), {c.I});
  if (d.workspace_pin && !c.sized) bound(enc, c.S == ctx.int_val(d.workspace_pin), {c.S});
  if (d.mml_pin && c.sized) bound(enc, c.mml == ctx.int_val(d.mml_pin), {c.mml});
  if (d.mns_pin && c.sized) bound(enc, c.mns == ctx.int_val(d.mns_pin), {c.mns});
  enc.shown.insert(enc.shown.end(), {{"block", c.B}, {"dcp", c.W}, {"interleave", c.I}, {"S", c.S}});
  if (c.sized) enc.shown.insert(enc.shown.end(), {{"max_model_len", c.mml}, {"max_num_seqs", c.mns}});
  return c;
}

Case base_case(const z3::model& m, const Common& c, Version v, Platform p) {
  Case k;
  k.version = v;
  k.platform = p;
  if (c.sized) {
    k.max_model_len = get(m, c.mml);
    k.max_num_seqs = get(m, c.mns);
  } else {
    k.workspace = get(m, c.S);
  }
  k.block = get(m, c.B);
  k.dcp = get(m, c.W);
  k.interleave = get(m, c.I);
  return k;
}

}  // namespace cp::smt::detail

// The invariant encodings: the planner templates of reference/planner/arith.h and
// reference/dcp/ownership.h instantiated with z3::expr (invariants/smt/z3_ops.h).
//
// Two families (spec §2.2, §2.3):
//  * packed planner (v5-packed, v6-current): one arbitrary step of the greedy loop, with an
//    induction hypothesis (every start is a multiple of the alignment, the chunk's rows fit
//    the budget). B, W, I, S, ctx, start, rows are all symbolic; the binary search is encoded
//    by its postcondition. Split: W = 1 and 2 <= W <= dcp_max. Proofs are lemma chains whose
//    nonlinear subterms are named by fresh witnesses; they hold for every integer value of
//    the unbounded parameters (S, ctx, start, rows, mml, mns) and every B, W, I >= 1 the
//    steps' domain admits.
//  * old planner (v0 .. v4, pr41229): M = round_down(S // n, round_to); the prefill count n
//    is split concretely (1 .. prefills_max) because the version divides by it; an arbitrary
//    chunk index c stands for every chunk.
#include "invariants/smt/encode.h"

#include <algorithm>

#include "reference/dcp/ownership.h"
#include "reference/planner/steps.h"

namespace cp::smt {
namespace {

using z3::expr;

std::int64_t get(const z3::model& m, const expr& e) {
  std::int64_t v = 0;
  if (!m.eval(e, true).is_numeral_i64(v)) throw std::logic_error("model value is not a 64-bit integer");
  return v;
}

bool is_packed(Version v) { return info(v).packed; }

// The prover's cases are (version, platform) with vLLM's default builder (dense); the steps
// themselves are reference/planner/steps.h, the same templates the planner runs.
constexpr Builder kBuilder = Builder::dense;

struct Triple {
  std::int64_t B, W, I;
};

// The packed planner's split grid (Domain::split_blocks x divisors x dcp 1..dcp_max).
std::vector<Triple> packed_grid(const Domain& d) {
  std::vector<Triple> g;
  for (std::int64_t B : d.split_blocks) {
    if (B > d.block_max) continue;
    std::vector<std::int64_t> is;
    for (std::int64_t i = 1; i <= 64; i *= 2)
      if (B % i == 0 && i <= d.interleave_max) is.push_back(i);
    if (B > 64 && B <= d.interleave_max) is.push_back(B);
    for (std::int64_t I : is)
      for (std::int64_t W = 1; W <= d.dcp_max; ++W) g.push_back({B, W, I});
  }
  return g;
}

struct Common {
  expr mml, mns, B, W, I, S, bi;
  bool sized;
  expr Sexpr;  // the sizing term S is defined as (sized) or S itself
};

// The quotient q of S = q*A produced by round_up in arith::workspace_v5/v6, read off the term
// (v6: ite(W == 1, S0, q*A)).
std::optional<expr> roundup_quotient(expr s) {
  if (s.is_app() && s.decl().decl_kind() == Z3_OP_ITE) s = s.arg(2);
  if (s.is_app() && s.decl().decl_kind() == Z3_OP_MUL && s.num_args() == 2) return s.arg(0);
  return std::nullopt;
}

// The engine parameters and the workspace over the declared domain.
Common make_common(z3::context& ctx, Encoding& enc, const Domain& d, Version v, bool dcp, std::int64_t wmin,
                   std::int64_t wmax, const Triple* concrete = nullptr) {
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
  fact(enc, c.B >= 1, {c.B});
  bound(enc, c.B <= ctx.int_val(d.block_max), {c.B});
  if (!info(v).supports_interleave) fact(enc, c.I == 1, {c.I});
  fact(enc, c.I >= 1 && c.I <= c.B, {c.I});
  bound(enc, c.I <= ctx.int_val(d.interleave_max), {c.I});
  fact(enc, c.bi >= 1 && c.B == c.I * c.bi, {c.B, c.I});  // I | B (I-11, enforced by the case format)
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
    c.Sexpr = steps::workspace_size(info(v), c.mml, c.mns, c.B, c.W, c.I);
    fact(enc, c.S == c.Sexpr, {c.S});
  } else {
    fact(enc, c.mml == 0 && c.mns == 0, {c.mml, c.mns});
    fact(enc, c.S >= 1 && c.S <= ctx.int_val(d.workspace_max), {c.S});
  }
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

// ======================================================================================
// Packed planner (v5-packed, v6-current).
// ======================================================================================

// Invariants with a closed lemma chain (symbolic B, W, I; unbounded). I-3 (tiling + progress)
// has none yet: the default mode proves it on the split grid.
bool lemma_chain_encoded(InvariantId id, bool dcp, bool sized) {
  using enum InvariantId;
  switch (id) {
    case I1_workspace_div_dcp: return dcp && sized;
    case I2_nonempty_chunk_width: return sized;
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
  return !lemma_chain_encoded(id, true, true);  // auto
}

Encoding encode_packed(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d) {
  Encoding enc;
  const bool split_mode = packed_split_mode(key.invariant, d);
  const auto grid = packed_grid(d);
  const Triple* tr = split_mode ? &grid.at(static_cast<std::size_t>(key.split)) : nullptr;
  const bool dcp = split_mode ? tr->W > 1 : key.split == 1;
  const InvariantId inv = key.invariant;
  using enum InvariantId;
  if (!dcp && (inv == I1_workspace_div_dcp || inv == I6_virtual_block_alignment || inv == I7_local_row_budget ||
               inv == I8_local_length_bookkeeping || inv == I9_reorg_exact || inv == I10_gather_start_semantics)) {
    enc.na = "no DCP (dcp=1)";
    return enc;
  }
  if (dcp && d.dcp_max < 2) {
    enc.na = "domain has no dcp >= 2";
    return enc;
  }
  Common c = make_common(ctx, enc, d, key.version, dcp, 2, d.dcp_max, tr);
  const expr &S = c.S, &W = c.W, &I = c.I, &B = c.B;
  const expr V = I * W;
  const bool aligns_to_block = packed_aligns_to_block(kBuilder, key.platform);

  // Step 1 of plan_packed: alignment, budgets, Mmax.
  const auto pp = steps::packed_params(key.platform, kBuilder, S, B, W, I, dcp);
  const expr &align = pp.align, &rb = pp.row_budget, &Mmax = pp.Mmax;

  // One arbitrary step of the greedy loop (step 2). Induction hypothesis: start is a multiple
  // of align (0 for the first piece) and the open chunk's rows fit the budget.
  const expr cx = ctx.int_const("ctx");
  const expr ks = ctx.int_const("start_div_align");
  const expr start = ctx.int_const("start");
  const expr rows = ctx.int_const("rows");
  const expr k = ctx.int_const("split_div_align");
  fact(enc, cx >= 1, {cx});
  bound(enc, cx <= ctx.int_val(d.ctx_max), {cx});
  fact(enc, ks >= 0 && start == align * ks && start < cx, {start, ks});
  fact(enc, rows >= 0 && rows <= rb, {rows});
  enc.shown.insert(enc.shown.end(), {{"ctx", cx}, {"start", start}, {"rows", rows}, {"split_div_align", k}});
  auto need = [&](const expr& s, const expr& len) { return steps::packed_need(s, len, I, W, dcp); };
  const expr remaining = cx - start;
  const expr full = need(start, remaining);
  const expr take_all = steps::packed_takes_all(pp, rows, start, cx, I, W, dcp);
  const expr cap = arith::packed_split_cap(remaining, align, Mmax);  // named in lemma I-2's chain
  const expr kmax = steps::packed_kmax(pp, start, cx);
  // The binary search's postcondition (pred(0) holds since rows <= rb, so this is what the
  // search returns). A context-free request only closes the chunk (rows := 0), a state the
  // induction hypothesis already covers, so the step is the one for ctx >= 1.
  const expr split = k * align;
  const expr fits_k = steps::packed_split_fits(pp, rows, start, k, I, W, dcp);
  fact(enc, steps::packed_split_postcondition(pp, rows, start, cx, k, I, W, dcp), {k});
  const expr local_start = steps::packed_local_start(start, I, W);  // plan_packed's add(): local start
  enc.built = Mmax > 0;                                     // else the planner asserts (I-2)
  enc.method = "lemma chain over one arbitrary greedy step (induction), symbolic B/W/I";
  enc.unbounded = true;

  auto step = [&](std::string name, std::string comment, expr goal, std::optional<expr> later = std::nullopt,
                  bool direct = false) {
    // With concrete B, W, I every query is linear: the direct goal needs no lemma chain.
    if (split_mode && !direct) return;
    enc.steps.push_back({std::move(name), std::move(comment), std::move(goal), std::move(later), direct});
  };
  if (split_mode) {
    enc.method = "split grid (concrete B, W, I): one arbitrary greedy step (induction), linear arithmetic";
    enc.unbounded = false;
    enc.to_case = [c, cx, key](const z3::model& m) {
      Case kcase = base_case(m, c, key.version, key.platform);
      kcase.ctx = {get(m, cx)};
      kcase.q = {16};
      return kcase;
    };
  }
  // Shared lemma D: align = V*M1 (fresh M1 >= 1), start = V*T (fresh T >= 0), local_start = T*I.
  const expr M1 = sc.fresh("M1");
  const expr T = sc.fresh("T");
  auto lemmas_D = [&]() {
    if (split_mode) return;
    expr m = key.platform == Platform::cuda ? sc.lcms().back().y : ctx.int_val(1);
    step("align-multiple-of-V", "align = lcm(B or 1, I*W) is (I*W)*m for some m >= 1", align == V * m && m >= 1,
         align == V * M1 && M1 >= 1);
    step("start-multiple-of-V", "start = align*ks = (I*W)*(M1*ks)", start == V * (M1 * ks) && M1 * ks >= 0,
         start == V * T && T >= 0);
    step("local-start", "padded_local_rows(start) = cdiv(V*T, V)*I = T*I", local_start == T * I);
  };
  auto size_ge_align = [&]() {
    // S >= align, from the version's sizing.
    if (!c.sized || split_mode) return;  // explicit workspace: no such lemma (I-2 fails for S < align)
    if (dcp) {
      const expr& A = sc.lcms().front().l;  // sizing's lcm(B, I*W) (memoised: the same term)
      step("sized-S-ge-A", "round_up(max(S0, ...), A) >= A", S >= A);
      if (key.platform == Platform::rocm) step("A-ge-align", "A = (I*W)*y >= I*W = align", A >= align);
    } else {
      if (info(key.version).sizing == SizingRule::packed_v6)
        step("S0-ge-B", "min(max(8*mml, 4*mns*B), 65536) >= B for B <= 65536", S >= B);
      else
        step("S-ge-B", "round_up(max(S0, mns*B), B) >= B", S >= B);
    }
    step("S-ge-align", "S >= align", S >= align);
  };

  // ---- closed lemma chains (symbolic B, W, I): unbounded results ------------------------
  // Each step is its own query over exactly the hypotheses it lists (domain facts, witness
  // definitions, earlier steps); nonlinear facts enter only as instances of one generic,
  // separately proved monotonicity lemma, so every query is linear over named monomials.
  if (!split_mode && lemma_chain_encoded(inv, dcp, c.sized)) {
    enc.method = "closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I";
    enc.unbounded = true;
    auto def_of = [&](const expr& sym) -> expr {
      for (std::size_t i = 0; i < sc.defined().size(); ++i)
        for (const auto& x : sc.defined()[i])
          if (z3::eq(x, sym)) return sc.defs()[i];
      throw std::logic_error("no definition of " + sym.to_string());
    };
    auto dom = [&](const expr& sym) {
      std::vector<expr> out;
      for (std::size_t i = 0; i < enc.domain.size(); ++i)
        for (const auto& x : enc.domain_defines[i])
          if (z3::eq(x, sym) && !enc.bound_ids.count(enc.domain[i].id())) out.push_back(enc.domain[i]);
      return out;
    };
    auto bounds_of = [&](const expr& sym) {  // the domain's upper bounds: a step using one is bounded
      std::vector<expr> out;
      for (std::size_t i = 0; i < enc.domain.size(); ++i)
        for (const auto& x : enc.domain_defines[i])
          if (z3::eq(x, sym) && enc.bound_ids.count(enc.domain[i].id())) out.push_back(enc.domain[i]);
      return out;
    };
    auto cat = [](std::vector<expr> a, const std::vector<expr>& b) {
      a.insert(a.end(), b.begin(), b.end());
      return a;
    };
    auto closed = [&](std::string name, std::string comment, const expr& goal, std::vector<expr> hyps,
                      bool direct = false) {
      for (const auto& h : hyps)
        if (enc.bound_ids.count(h.id())) enc.unbounded = false;  // uses an upper bound of the domain
      Step s{std::move(name), std::move(comment), goal, std::nullopt, direct};
      s.hyps = std::move(hyps);
      enc.steps.push_back(std::move(s));
      return goal;
    };
    const expr md = ctx.int_const("lemma_d"), me = ctx.int_const("lemma_e");
    int mono_idx = -1;
    auto mono = [&](const expr& dd, const expr& ee) {
      if (mono_idx < 0) {
        closed("lemma-monotone",
               "generic: d >= 1 implies (e >= 1 => d*e >= d), (e <= -1 => d*e <= -d), d*e has the sign of e",
               z3::implies(md >= 1, z3::implies(me >= 1, md * me >= md) && z3::implies(me <= -1, md * me <= -md) &&
                                        z3::implies(me >= 0, md * me >= 0) && z3::implies(me <= 0, md * me <= 0)),
               {});
        mono_idx = static_cast<int>(enc.steps.size()) - 1;
      }
      z3::expr_vector from(ctx), to(ctx);
      from.push_back(md), from.push_back(me), to.push_back(dd), to.push_back(ee);
      const expr inst = enc.steps[static_cast<std::size_t>(mono_idx)].goal.substitute(from, to);
      Step s{"monotone-instance", "instance of lemma-monotone: d := " + dd.to_string() + ", e := " + ee.to_string(),
             inst, std::nullopt, false};
      s.instance_of = mono_idx;
      s.inst_from = {md, me};
      s.inst_to = {dd, ee};
      enc.steps.push_back(std::move(s));
      return inst;
    };
    const std::vector<expr> dB = dom(B), dW = dom(W), dI = dom(I);
    const expr one = ctx.int_val(1);
    // Sizing: S = qU * A with A the alignment the sizing rounds to (lcm(B, I*W) under DCP, B
    // without) and qU >= 1. v6 without DCP does not round (S = S0): handled separately.
    const bool rounds = c.sized && (dcp || info(key.version).sizing == SizingRule::packed_v5);
    std::optional<expr> Lsym, Ldef, qU, sizedS, qUpos, apos;
    if (!sc.lcms().empty()) {
      Lsym = sc.lcms().front().l;
      Ldef = def_of(*Lsym);
    }
    const expr A = dcp ? *Lsym : B;
    const std::vector<expr> dS = dom(S);
    // The sizing's select(W == 1, ...) terms: rewrite them with the case's value of W == 1
    // (congruence, checked by the prover) so no product has an ite factor.
    const expr w1 = W == 1;
    const expr w1v = ctx.bool_val(!dcp);
    const expr w1eq = closed("W-eq-1-case", dcp ? "this case has W >= 2" : "this case has W = 1", w1 == w1v, dW);
    auto rewrite = [&](const expr& f) {
      z3::expr_vector from(ctx), to(ctx);
      from.push_back(w1), to.push_back(w1v);
      Step s{"case-rewrite", "the fact with W == 1 replaced by its value in this case", expr(f).substitute(from, to),
             std::nullopt, false};
      s.hyps = std::vector<expr>{f, w1eq};
      s.instance_of = -2;
      s.inst_from = {w1};
      s.inst_to = {w1v};
      enc.steps.push_back(s);
      return s.goal;
    };
    if (rounds && (inv == I1_workspace_div_dcp || inv == I2_nonempty_chunk_width)) {
      qU = roundup_quotient(c.Sexpr);
      if (!qU) throw std::logic_error("sizing is not a round_up");
      const std::vector<expr> aPos = dcp ? std::vector<expr>{*Ldef} : dB;
      std::vector<expr> sdef;
      for (const auto& f : dS) sdef.push_back(rewrite(f));
      const expr qdef = rewrite(def_of(*qU));
      sizedS = closed("sized-S", "the version's S is round_up(x, A) = qU*A (A = lcm(B, I*W) under DCP, else B)",
                      S == *qU * A, sdef);
      apos = closed("A-positive", "the sizing's alignment A >= 1", A >= 1, aPos);
      qUpos = closed("sized-quotient-positive", "x >= S0 >= 1, so A*qU >= x >= 1 and qU >= 1", *qU >= 1,
                     cat(cat(dom(c.mml), dom(c.mns)), {*apos, qdef, mono(A, *qU)}));
    }
    // Under DCP: P = I*W >= 1, align = P*m, start = P*Tq, local_start = Tq*I.
    std::optional<expr> Ppos, startPT, qLstep;
    expr Tq = ks;
    if (dcp) {
      Ppos = closed("IW-positive", "I >= 1, W >= 2 give I*W >= 2", V >= 1 && W >= 1 && I >= 1,
                    cat(cat(dI, dW), {mono(I, W - 1)}));
      const bool cuda_align = aligns_to_block;
      std::vector<expr> h = dom(start);
      if (cuda_align) {
        const expr m = sc.lcms().front().y;
        Tq = m * ks;
        h.push_back(*Ldef);
        h.push_back(mono(m, ks));
      }
      startPT = closed("start-multiple-of-IW", "start = align*ks and align = (I*W)*m, so start = (I*W)*Tq, Tq >= 0",
                       start == V * Tq && Tq >= 0, h);
      const expr qL = cp::cdiv(start, V);
      qLstep = closed("local-start", "cdiv((I*W)*Tq, I*W) = Tq, so padded_local_rows(start) = Tq*I", qL == Tq,
                      {*startPT, def_of(qL), *Ppos, mono(V, Tq - qL)});
    }
    {  // definedness: every divisor (B, I*W, W, I, lcm, the sizing's select) is positive
      std::vector<expr> h = cat(cat(dB, dW), dI);
      if (Ldef) h.push_back(*Ldef);
      h.push_back(dcp ? *Ppos : mono(I, W));
      enc.definedness_hyps = h;
    }
    switch (inv) {
      case I1_workspace_div_dcp: {
        const auto& L = sc.lcms().front();
        const expr K = I * L.y * *qU;
        const expr sWK =
            closed("S-is-W-times", "S = qU*A and A = (I*W)*y, so S = W*(I*y*qU)", S == W * K, {*sizedS, *Ldef});
        const expr qS = cp::floordiv(S, W);
        const expr qSstep =
            closed("S-div-W", "floordiv(W*K, W) = K", qS == K, {sWK, def_of(qS), *Ppos, mono(W, K - qS)});
        closed("S-mod-W", "S mod W == 0", cp::floormod(S, W) == 0, {sWK, qSstep}, true);
        break;
      }
      case I2_nonempty_chunk_width: {
        expr sgeA = S >= A;
        if (rounds) {
          sgeA = closed("S-ge-A", "S = qU*A with qU >= 1", S >= A, {*sizedS, *qUpos, *apos, mono(A, *qU - 1)});
        } else if (!aligns_to_block) {  // v6 without DCP, align 1: S = S0 >= 8 >= 1
          sgeA = closed("S0-positive", "min(max(8*mml, 4*mns*B), 65536) >= 1", S >= 1, cat(cat(dS, dW), dom(c.mml)));
        } else {  // v6 without DCP: S = S0 = min(max(8*mml, 4*mns*B), 65536) >= B needs B <= 65536
          enc.method += "; v6 without DCP: bounded by block <= " + std::to_string(d.block_max) + " (S0 <= 65536)";
          sgeA = closed("S0-ge-B", "min(max(8*mml, 4*mns*B), 65536) >= B for 1 <= B <= 65536", S >= A,
                        cat(cat(cat(cat(cat(dS, dW), dB), bounds_of(B)), dom(c.mns)), {mono(B, c.mns - 1)}));
        }
        expr aPos = align >= 1;
        std::vector<expr> h{sgeA};
        if (dcp) {
          if (aligns_to_block) {
            h.push_back(*Ldef);
          } else {  // rocm: align = I*W <= lcm
            const expr le = closed("align-le-A", "A = (I*W)*y with y >= 1, so I*W <= A", align <= A,
                                   {*Ldef, *Ppos, mono(V, sc.lcms().front().y - 1)});
            h.push_back(le);
            h.push_back(*Ppos);
          }
        } else if (aligns_to_block) {
          h = cat(h, dB);
        }
        if (!(dcp || aligns_to_block)) {  // align = 1: Mmax = S
          closed("Mmax-positive", "Mmax = round_down(S, 1) = S >= 1", Mmax > 0, cat({sgeA}, dB), true);
          break;
        }
        const expr qM = cp::floordiv(S, align);
        const expr qMpos = closed("S-div-align-positive", "S >= align: floordiv(S, align) >= 1", qM >= 1,
                                  cat(h, {def_of(qM), mono(align, qM)}));
        closed("Mmax-positive", "Mmax = floordiv(S, align)*align >= align >= 1", Mmax > 0,
               cat(h, {qMpos, mono(align, qM - 1)}), true);
        break;
      }
      case I4_global_row_budget: {
        const expr tot = ctx.int_const("chunk_tokens");
        enc.shown.push_back({"chunk_tokens", tot});
        const expr len = z3::ite(take_all, remaining, split);
        const expr nd = z3::ite(take_all, full, need(start, split));
        const std::vector<expr> dk = dom(k), dr = dom(rows);
        if (!dcp) {
          fact(enc, tot >= 0 && tot == rows, {tot});
          closed("budget", "without DCP rows are tokens: rows + len <= S",
                 z3::implies(take_all || k >= 1, tot + len <= S), cat(cat(dom(tot), dk), dr), true);
          break;
        }
        fact(enc, tot >= 0 && tot <= W * rows, {tot});
        const expr ns = need(start, split);
        const expr qEa = cp::cdiv(start + remaining, V), qEs = cp::cdiv(start + split, V);
        const expr la = closed("len-le-W-need-all", "cdiv(start+len, I*W)*(I*W) >= start+len: len <= W*need",
                               remaining <= W * full, {*startPT, *qLstep, def_of(qEa), *Ppos});
        const expr ls = closed("len-le-W-need-split", "same for the split piece", split <= W * ns,
                               {*startPT, *qLstep, def_of(qEs), *Ppos});
        const expr qS = cp::floordiv(S, W);
        const expr wrb = closed("W-rb-le-S", "W*(S // W) <= S", W * rb <= S, {def_of(qS), *Ppos});
        const expr wa =
            closed("W-rows-all", "rows + need <= S // W implies W*rows + W*need <= S",
                   z3::implies(rows + full <= rb, W * rows + W * full <= S), {wrb, *Ppos, mono(W, rb - rows - full)});
        const expr wsp =
            closed("W-rows-split", "same for the split piece", z3::implies(rows + ns <= rb, W * rows + W * ns <= S),
                   {wrb, *Ppos, mono(W, rb - rows - ns)});
        closed("budget", "tot + len <= W*rows + W*need <= S (linear over the products)",
               z3::implies((take_all || k >= 1) && rows + nd <= rb, tot + len <= S), cat(dom(tot), {la, ls, wa, wsp}),
               true);
        enc.steps.back().abstract_products = true;
        break;
      }
      case I6_virtual_block_alignment: {
        const expr qF = cp::floordiv(start, V);
        const expr qFstep = closed("start-div-IW", "floordiv((I*W)*Tq, I*W) = Tq", qF == Tq,
                                   {*startPT, def_of(qF), *Ppos, mono(V, Tq - qF)});
        closed("aligned", "a non-zero start is a multiple of V and local_start*W == start",
               z3::implies(start > 0, cp::floormod(start, V) == 0 && local_start * W == start),
               {*startPT, qFstep, *qLstep}, true);
        break;
      }
      case I7_local_row_budget: {
        const expr pll_all = padded_local_rows(start + remaining, I, W) - local_start;
        const expr pll_split = padded_local_rows(start + split, I, W) - local_start;
        closed("budget", "the chunk's padded local rows stay <= S // W after adding the piece (take_all or fits_k)",
               z3::implies(take_all, rows + pll_all <= rb) && z3::implies(!take_all, rows + pll_split <= rb), dom(k),
               true);
        break;
      }
      case I10_gather_start_semantics: {
        const expr r = ctx.int_const("rank");
        fact(enc, r >= 0 && r < W, {r});
        enc.shown.push_back({"rank", r});
        const expr q1 = cp::floordiv(start, I);
        const expr q1s = closed("start-div-I", "floordiv(I*(W*Tq), I) = W*Tq", q1 == W * Tq,
                                {*startPT, def_of(q1), *Ppos, mono(I, W * Tq - q1)});
        const expr q2 = cp::floordiv(q1, W);
        const expr q2s =
            closed("div-W", "floordiv(W*Tq, W) = Tq", q2 == Tq, {q1s, def_of(q2), *Ppos, mono(W, Tq - q2)});
        closed("gather-start", "every rank's first local slot of the span is local_start: base = Tq*I, rem = 0",
               dcp_local_len(start, W, r, I) == local_start,
               cat(dom(r), {*startPT, q1s, q2s, *qLstep, *Ppos, mono(I, r)}), true);
        break;
      }
      case I8_local_length_bookkeeping:
      case I9_reorg_exact: {
        // Per rank r (symbolic, 0 <= r < W). dcp_local_len(e) = b*I + min(max(rem - r*I, 0), I) with
        // a = e // I, b = a // W, rem = e - (b*I)*W; padded_local_rows(e) = c*I with c = cdiv(e, I*W).
        const expr r = ctx.int_const("rank");
        fact(enc, r >= 0 && r < W, {r});
        enc.shown.push_back({"rank", r});
        const expr q1 = cp::floordiv(start, I);
        const expr q1s = closed("start-div-I", "floordiv(I*(W*Tq), I) = W*Tq", q1 == W * Tq,
                                {*startPT, def_of(q1), *Ppos, mono(I, W * Tq - q1)});
        const expr q2 = cp::floordiv(q1, W);
        const expr q2s =
            closed("div-W", "floordiv(W*Tq, W) = Tq", q2 == Tq, {q1s, def_of(q2), *Ppos, mono(W, Tq - q2)});
        const expr gs = closed("gather-start", "dcp_local_len(start) = Tq*I = local_start for every rank",
                               dcp_local_len(start, W, r, I) == local_start,
                               cat(dom(r), {*startPT, q1s, q2s, *qLstep, *Ppos, mono(I, r)}));
        const expr qL = cp::cdiv(start, V);
        struct Span {
          expr b, c, rem, range, cd, share;
        };
        // The rows rank r owns of the prefix [0, e) against the padded prefix rows (any e).
        auto span = [&](const expr& e, const std::string& tag) {
          const expr a = cp::floordiv(e, I);
          const expr b = cp::floordiv(a, W);
          const expr rem = e - (b * I) * W;  // the `rem` of dcp_local_len (same term)
          const expr cq = cp::cdiv(e, V);
          const expr dl = dcp_local_len(e, W, r, I);
          const expr pad = padded_local_rows(e, I, W);
          const expr range = closed(tag + "-rem-range", "e = I*a + r1, a = W*b + r2: rem = I*r2 + r1 in [0, I*W - 1]",
                                    rem >= 0 && rem <= V - 1,
                                    {def_of(a), def_of(b), *Ppos, mono(I, a - W * b), mono(I, W * b + W - 1 - a)});
          const expr cd = closed(tag + "-cdiv", "cdiv(e, I*W) = b if rem = 0, else b + 1",
                                 z3::implies(rem == 0, cq == b) && z3::implies(rem >= 1, cq == b + 1),
                                 {range, def_of(cq), *Ppos, mono(V, cq - b), mono(V, cq - b - 1), mono(V, cq - b - 2)});
          const expr share =
              closed(tag + "-share", "b*I <= dcp_local_len(e) <= padded_local_rows(e), equal when rem = 0",
                     b * I <= dl && dl <= pad && z3::implies(rem == 0, dl == b * I && dl == pad),
                     cat(dom(r), {range, cd, *Ppos, mono(I, r), mono(I, cq - b), mono(I, cq - b - 1)}));
          return Span{b, cq, rem, range, cd, share};
        };
        if (inv == I8_local_length_bookkeeping) {
          // (b) of check_I8 for an arbitrary span [start, start + len) (every piece is one).
          // (a), sum over the W ranks of local_ctx == ctx, needs a sum over a symbolic W: not encoded.
          const expr len = ctx.int_const("span_len");
          fact(enc, len >= 0, {len});
          enc.shown.push_back({"span_len", len});
          const expr e = start + len;
          const Span s = span(e, "end");
          closed("owned-le-padded",
                 "rows rank r owns in [start, start+len) <= padded_local_rows(start+len) - local_start",
                 dcp_local_len(e, W, r, I) - dcp_local_len(start, W, r, I) <= padded_local_rows(e, I, W) - local_start,
                 {gs, s.share}, true);
          enc.steps.back().abstract_products = true;  // linear over the products
          break;
        }
        // I-9 at count level, both pieces of the step: take-all [start, ctx) (start + remaining = ctx)
        // and the split [start, start + k*align).
        const expr lctx = dcp_local_len(cx, W, r, I);
        const Span sc_ = span(cx, "ctx");
        const expr cge = closed("ctx-ge-start", "ctx > start = (I*W)*Tq and ctx <= (I*W)*b + I*W - 1 give b >= Tq",
                                sc_.b >= Tq, cat(dom(start), {sc_.range, *startPT, *Ppos, mono(V, sc_.b - Tq + 1)}));
        const expr qk = kmax;
        const expr qr = cp::floordiv(remaining - ctx.int_val(1), align);
        std::vector<expr> hin = cat(cat(dom(k), dom(start)), {def_of(qk), def_of(qr), *Ppos, mono(align, qk - k),
                                                                mono(align, k)});
        if (aligns_to_block) hin.push_back(*Ldef);
        const expr sin = closed("split-inside", "k <= kmax: k*align <= max(cap, 0) <= remaining - 1",
                                split >= 0 && split <= remaining - 1, hin);
        expr Ts = Tq + k;
        std::vector<expr> hm = cat(dom(k), {*startPT});
        if (aligns_to_block) {
          const expr m = sc.lcms().front().y;
          Ts = Tq + m * k;
          hm = cat(hm, {*Ldef, mono(k + 1, align - V * m), mono(m, k)});
        }
        const expr es = start + split;
        const expr sm = closed("split-end-multiple", "start + k*align = (I*W)*Ts, Ts >= 0", es == V * Ts && Ts >= 0, hm);
        const Span ss = span(es, "split");
        const expr sx = closed("split-end-exact", "(I*W)*Ts = (I*W)*b + rem with 0 <= rem < I*W: rem = 0, b = Ts",
                               ss.rem == 0 && ss.b == Ts, {ss.range, sm, *Ppos, mono(V, Ts - ss.b)});
        const expr cov = closed("ctx-covers-split", "ctx >= start + split + 1 = (I*W)*Ts + 1 gives b_ctx >= Ts",
                                sc_.b >= Ts, {sc_.range, sm, sin, *Ppos, mono(V, sc_.b - Ts + 1)});
        const expr pll_all = padded_local_rows(cx, I, W) - local_start;
        const expr pll_split = padded_local_rows(es, I, W) - local_start;
        const expr own_all = lctx - dcp_local_len(start, W, r, I);
        const expr own_split = dcp_local_len(es, W, r, I) - dcp_local_len(start, W, r, I);
        const expr f1 = closed("ls-le-ctx-base", "local_start = qL*I <= b_ctx*I (b_ctx >= Tq = qL)",
                               local_start <= sc_.b * I, {cge, *qLstep, *Ppos, mono(I, sc_.b - qL)});
        const expr f2 = closed("split-base-le-ctx-base", "b_split*I <= b_ctx*I (b_ctx >= Ts = b_split)",
                               ss.b * I <= sc_.b * I, {sx, cov, *Ppos, mono(I, sc_.b - ss.b)});
        closed("kept-eq-owned",
               "reorg_kept_rows(dcp_local_len(ctx), local_start, padded_local_len) = rows rank r owns in the piece",
               z3::implies(take_all, arith::reorg_kept_rows(lctx, local_start, pll_all) == own_all) &&
                   z3::implies(!take_all, arith::reorg_kept_rows(lctx, local_start, pll_split) == own_split),
               {gs, sc_.share, ss.share, sx, f1, f2}, true);
        enc.steps.back().abstract_products = true;  // linear over the products
        break;
      }
      default: throw std::logic_error("lemma chain not encoded");
    }
    return enc;
  }

  switch (inv) {
    case I1_workspace_div_dcp: {
      const std::optional<expr> q = c.sized && !split_mode ? roundup_quotient(c.Sexpr) : std::nullopt;
      if (!q) {
        step("S-mod-W", "S mod W == 0", cp::floormod(S, W) == 0, std::nullopt, true);
        enc.method = "direct query (explicit workspace)";
        enc.unbounded = false;
        break;
      }
      // S = q*A (round_up) with A = lcm(B, I*W) = (I*W)*y, so S = W*(I*y*q); name it W*K.
      const auto& L = sc.lcms().front();
      const expr K = sc.fresh("K");
      step("S-is-W-times", "S = round_up(x, A) = q*A and A = (I*W)*y, so S = W*(I*y*q)", S == W * (I * L.y * *q),
           S == W * K);
      step("S-mod-W", "(W*K) mod W == 0 for the fresh K", cp::floormod(S, W) == 0, std::nullopt, true);
      break;
    }
    case I2_nonempty_chunk_width:
      size_ge_align();
      step("Mmax-positive", "Mmax = round_down(S, align) > 0", Mmax > 0, std::nullopt, true);
      break;
    case I3_coverage: {
      step("take-all", "the last piece [start, ctx) ends at ctx and is non-empty",
           z3::implies(take_all, start + remaining == cx && remaining >= 1));
      step("split-bound", "a split piece leaves >= 1 token and keeps start a multiple of align",
           z3::implies(!take_all && k >= 1, start + split < cx && start + split == align * (ks + k) && split >= 1));
      // Progress: a fresh chunk (rows = 0) always takes something (else 'chunk is non-empty' fires).
      size_ge_align();
      step("Mmax-ge-align", "round_down(S, align) >= align", Mmax >= align);
      if (dcp) {
        lemmas_D();
        step("rb-ge-align-share", "S >= align = W*(I*M1) gives S // W >= I*M1", rb >= I * M1);
        const expr cd = cp::cdiv(start + remaining, V);
        step("cdiv-small", "remaining <= V*M1 gives cdiv(V*T + remaining, V) <= T + M1",
             z3::implies(remaining <= align, cd <= T + M1));
        step("full-small", "so need(start, remaining) = cdiv*I - T*I <= I*M1",
             z3::implies(remaining <= align, full <= I * M1));
        step("small-remaining-fits", "remaining <= align implies need(start, remaining) <= rb",
             z3::implies(remaining <= align, full <= rb));
        const expr c1 = cp::cdiv(start + (k + 1) * align, V);
        step("cdiv-one-align", "k = 0: cdiv(V*T + V*M1, V) = T + M1", z3::implies(k == 0, c1 == T + M1));
        step("need-one-align", "k = 0: need(start, align) = I*M1 <= rb",
             z3::implies(k == 0, need(start, (k + 1) * align) <= rb));
      } else {
        step("small-remaining-fits", "remaining <= align <= S implies need = remaining <= rb",
             z3::implies(remaining <= align, full <= rb));
        step("need-one-align", "k = 0: need(start, align) = align <= S",
             z3::implies(k == 0, need(start, (k + 1) * align) <= rb));
      }
      step("cap-ge-align", "remaining > align implies cap >= align and kmax >= 1",
           z3::implies(remaining > align, cap >= align && kmax >= 1));
      step("progress", "a fresh chunk never closes empty: take_all or k >= 1",
           z3::implies(rows == 0, take_all || k >= 1), std::nullopt, true);
      break;
    }
    case I4_global_row_budget: {
      // tot = rows taken so far in global tokens; hypothesis tot <= W*rows (rows = local rows).
      const expr tot = ctx.int_const("chunk_tokens");
      enc.shown.push_back({"chunk_tokens", tot});
      const expr len = z3::ite(take_all, remaining, split);
      const expr nd = z3::ite(take_all, full, need(start, split));
      if (!dcp) {
        fact(enc, tot >= 0 && tot == rows, {tot});
        step("budget", "without DCP rows are tokens: rows + len <= S", z3::implies(take_all || k >= 1, tot + len <= S),
             std::nullopt, true);
        break;
      }
      fact(enc, tot >= 0 && tot <= W * rows, {tot});
      lemmas_D();
      step("len-le-W-need", "a piece of len tokens costs need >= len/W local rows: len <= W*need",
           z3::implies(take_all || k >= 1, len <= W * nd));
      step("W-rb-le-S", "W*(S//W) <= S", W * rb <= S);
      step("W-rows-le-S", "rows <= rb implies W*rows <= S", z3::implies(rows + nd <= rb, W * (rows + nd) <= S));
      step("budget", "tot + len <= W*(rows + need) <= S",
           z3::implies((take_all || k >= 1) && rows + nd <= rb, tot + len <= S), std::nullopt, true);
      break;
    }
    case I6_virtual_block_alignment: {
      lemmas_D();
      step("start-mod-V", "floormod(V*T, V) == 0", cp::floormod(start, V) == 0);
      step("aligned", "a non-zero start is a multiple of V and local_start*W == start",
           z3::implies(start > 0, cp::floormod(start, V) == 0 && local_start * W == start), std::nullopt, true);
      break;
    }
    case I7_local_row_budget: {
      const expr pll_all = padded_local_rows(start + remaining, I, W) - local_start;
      const expr pll_split = padded_local_rows(start + split, I, W) - local_start;
      step("budget", "the chunk's padded local rows stay <= S // W after adding the piece",
           z3::implies(take_all, rows + pll_all <= rb) && z3::implies(!take_all, rows + pll_split <= rb), std::nullopt,
           true);
      break;
    }
    case I10_gather_start_semantics: {
      lemmas_D();
      const expr r = ctx.int_const("rank");
      fact(enc, r >= 0 && r < W, {r});
      enc.shown.push_back({"rank", r});
      const expr q1 = cp::floordiv(start, I);
      step("div-I", "floordiv(I*(W*T), I) = W*T", q1 == W * T);
      step("div-W", "floordiv(W*T, W) = T", cp::floordiv(q1, W) == T);
      step("gather-start", "every rank's first local slot of the span is local_start",
           dcp_local_len(start, W, r, I) == local_start, std::nullopt, true);
      break;
    }
    default: enc.na = "not encoded";
  }
  return enc;
}

// ======================================================================================
// Old planner (v0 .. v4, pr41229): M = round_down(S // n, round_to), arbitrary chunk c.
// ======================================================================================

Encoding encode_old(z3::context& ctx, Z3Scope&, const TaskKey& key, const Domain& d) {
  Encoding enc;
  using enum InvariantId;
  const InvariantId inv = key.invariant;
  const VersionInfo& vi = info(key.version);
  const bool needs_dcp = inv == I1_workspace_div_dcp || inv == I6_virtual_block_alignment ||
                         inv == I7_local_row_budget || inv == I8_local_length_bookkeeping || inv == I9_reorg_exact ||
                         inv == I10_gather_start_semantics;
  if (needs_dcp && (!vi.supports_dcp || d.dcp_max < 2)) {
    enc.na = "no DCP in this version/domain";
    return enc;
  }
  const bool page_gather = inv == I5_page_aligned_starts;
  if (page_gather && vi.gather_without_dcp != GatherKind::page_rounding) {
    enc.na = "this version uses the token-major or cp_gather kernel: arbitrary starts are exact";
    return enc;
  }
  const bool dcp = needs_dcp;
  const std::int64_t n = key.split + 1;
  Common c = make_common(ctx, enc, d, key.version, dcp || (!page_gather && vi.supports_dcp && d.dcp_max >= 2),
                         dcp ? 2 : 1, vi.supports_dcp ? d.dcp_max : 1);
  const expr &S = c.S, &W = c.W, &I = c.I, &B = c.B;
  if (c.sized) fact(enc, c.mns >= ctx.int_val(n), {c.mns});  // a step has at most max_num_seqs prefills
  const expr nn = ctx.int_val(n);
  const expr M = steps::old_chunk_width(vi, key.platform, kBuilder, S, nn, B, W);
  std::vector<expr> cxs;
  expr maxctx = ctx.int_val(0);
  for (std::int64_t i = 0; i < n; ++i) {
    cxs.push_back(ctx.int_const(("ctx" + std::to_string(i)).c_str()));
    fact(enc, cxs.back() >= 1 && cxs.back() <= ctx.int_val(d.ctx_max), {cxs.back()});
    enc.shown.push_back({"ctx" + std::to_string(i), cxs.back()});
    maxctx = cp::max(maxctx, cxs.back());
  }
  const expr cc = ctx.int_const("chunk");
  enc.shown.insert(enc.shown.end(), {{"M", M}, {"chunk", cc}});
  // Plan built: M > 0 (else the planner asserts), chunk index c in [0, K).
  const expr built = M > 0;
  const expr K = arith::old_num_chunks(maxctx, M);  // witness guarded by M > 0 (z3_ops.h)
  fact(enc, cc >= 0, {cc});
  const expr in_plan = built && cc < K;
  enc.built = built;
  enc.method = "split n = " + std::to_string(n) + ", symbolic B/W/I, arbitrary chunk index";
  // Counterexample search tries replayable sizes first (few chunks, small contexts).
  enc.search_hints.push_back(z3::implies(built, K <= 64));
  enc.search_hints.push_back(B <= 1024);
  enc.search_hints.push_back(maxctx <= ctx.int_val(300000));
  // Prefer models where the init assert (I-1) does not fire first, so the replay shows the
  // invariant itself; the search falls back to all models when none exists.
  if (dcp && inv != I1_workspace_div_dcp) enc.search_hints.push_back(cp::floormod(S, W) == 0 && W <= 16);
  enc.to_case = [c, cxs, key](const z3::model& m) {
    Case k = base_case(m, c, key.version, key.platform);
    for (const auto& x : cxs) {
      k.ctx.push_back(get(m, x));
      k.q.push_back(16);
    }
    return k;
  };
  auto step = [&](std::string name, std::string comment, expr goal, bool direct = true) {
    enc.steps.push_back({std::move(name), std::move(comment), std::move(goal), std::nullopt, direct});
  };
  const expr PL = dcp ? steps::old_local_chunk(vi, M, I, W) : ctx.int_val(0);
  const auto entry0 = steps::old_entry(vi, cxs[0], cc, M, PL, I, W);
  const expr &start = entry0.start, &len0 = entry0.len, &local_start = entry0.local_start;
  auto local_len = [&](const expr& cx) { return steps::old_entry(vi, cx, cc, M, PL, I, W).padded_local_len; };

  switch (inv) {
    case I1_workspace_div_dcp:
      step("S-mod-W", "under DCP the version's S is a multiple of W", cp::floormod(S, W) == 0);
      break;
    case I2_nonempty_chunk_width:
      step("M-positive", "M = round_down(S // n, round_to) > 0 for n <= max_num_seqs prefills", M > 0);
      break;
    case I3_coverage: {
      const expr E0 = cp::min(cxs[0], cc * M), E1 = cp::min(cxs[0], (cc + 1) * M);
      step("tiling", "chunk c's span of request 0 is [min(ctx, c*M), min(ctx, (c+1)*M))",
           z3::implies(in_plan, len0 == E1 - E0 && z3::implies(len0 > 0, start == E0)));
      step("covered", "K chunks cover the longest context: K*M >= ctx", z3::implies(built, K * M >= cxs[0]));
      break;
    }
    case I4_global_row_budget: {
      expr sum = ctx.int_val(0);
      for (const auto& x : cxs) sum = sum + arith::old_span_len(x, cc, M);
      step("budget", "sum over the n prefills of chunk c's spans <= S", z3::implies(in_plan, sum <= S));
      break;
    }
    case I5_page_aligned_starts:
      fact(enc, W == 1, {W});
      step("page-aligned", "every non-empty span starts at a multiple of B (page-rounding gather)",
           z3::implies(in_plan && len0 > 0, cp::floormod(start, B) == 0));
      break;
    case I6_virtual_block_alignment:
      step("aligned", "a non-zero start is a multiple of V = I*W and local_start*W == start",
           z3::implies(in_plan && len0 > 0 && cc >= 1, cp::floormod(start, I * W) == 0 && local_start * W == start));
      break;
    case I7_local_row_budget: {
      expr toks = ctx.int_val(0);
      for (const auto& x : cxs) toks = toks + local_len(x);
      step("budget", "toks = sum of padded local lengths of chunk c <= S // W",
           z3::implies(in_plan, toks <= cp::floordiv(S, W)));
      break;
    }
    case I10_gather_start_semantics: {
      const expr rk = ctx.int_const("rank");
      fact(enc, rk >= 0 && rk < W, {rk});
      enc.shown.push_back({"rank", rk});
      step("gather-start", "every rank's gather starts at its first local slot of the span",
           z3::implies(in_plan && len0 > 0, local_start == dcp_local_len(start, W, rk, I)));
      break;
    }
    default: enc.na = "not encoded";
  }
  return enc;
}

}  // namespace

int num_splits(Version v, InvariantId id, const Domain& d) {
  if (is_packed(v)) return packed_split_mode(id, d) ? static_cast<int>(packed_grid(d).size()) : 2;
  if (id == InvariantId::I1_workspace_div_dcp) return 1;  // does not depend on n
  return static_cast<int>(std::max<std::int64_t>(1, d.prefills_max));
}

std::string split_label(Version v, InvariantId id, int split, const Domain& d) {
  if (is_packed(v)) {
    if (!packed_split_mode(id, d)) return split == 0 ? "dcp=1" : "dcp>=2";
    const Triple t = packed_grid(d).at(static_cast<std::size_t>(split));
    return "B=" + std::to_string(t.B) + ",W=" + std::to_string(t.W) + ",I=" + std::to_string(t.I);
  }
  if (id == InvariantId::I1_workspace_div_dcp) return "any n";
  return "n=" + std::to_string(split + 1);
}

Encoding encode(z3::context& ctx, Z3Scope& scope, const TaskKey& key, const Domain& d) {
  Encoding e = is_packed(key.version) ? encode_packed(ctx, scope, key, d) : encode_old(ctx, scope, key, d);
  std::sort(e.shown.begin(), e.shown.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return e;
}

}  // namespace cp::smt

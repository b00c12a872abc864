// The packed planner's closed lemma chains (symbolic B, W, I: unbounded results), one encoder per
// invariant on a LemmaChain. Each step is its own query over exactly the hypotheses it lists
// (domain facts, witness definitions, earlier steps); nonlinear facts enter only as instances of
// one generic, separately proved monotonicity lemma, so every query is linear over named
// monomials (docs/proving.md, "Closed lemma chains").
#include <stdexcept>
#include <string>

#include "invariants/smt/packed_step.h"
#include "reference/dcp/ownership.h"

namespace cp::smt::detail {
namespace {

using enum InvariantId;

// The witness definition a step about cdiv(a, b) lists: that of the floor division cdiv is
// built from (ops.h's cdiv_parts names it; the term cdiv builds is never read back).
expr def_of_cdiv(const LemmaChain& lc, const expr& a, const expr& b) { return lc.def_of(cp::cdiv_parts(a, b).floor); }

// What every chain of this case shares: the sizing's round_up (I-1, I-2), P = I*W >= 1,
// start = P*Tq and local_start = Tq*I under DCP, the definedness hypotheses, and the
// context-free request's branch of the greedy step.
ChainFacts prelude(z3::context& ctx, Z3Scope& sc, const PackedStep& p, Encoding& enc, LemmaChain& lc) {
  const expr &S = p.S, &W = p.W, &I = p.I, &B = p.B, &V = p.V, &start = p.start;
  const bool dcp = p.dcp;
  const InvariantId inv = p.key.invariant;
  const std::vector<expr> dB = lc.dom(B), dW = lc.dom(W), dI = lc.dom(I);
  // Sizing: S = qU * A with A the alignment the sizing rounds to (lcm(B, I*W) under DCP, B
  // without) and qU >= 1: both packed sizings (v5, v6 at 903ecb17) round up on every path;
  // qU and the floor division it is built from are the rule's (steps::workspace_sizing).
  const bool rounds = p.c.sized;
  std::optional<expr> Lsym, Ldef, qU, sizedS, qUpos, apos;
  if (!sc.lcms().empty()) {
    Lsym = sc.lcms().front().l;
    Ldef = lc.def_of(*Lsym);
  }
  const expr A = dcp ? *Lsym : B;
  const std::vector<expr> dS = lc.dom(S);
  // The sizing's select(W == 1, ...) terms: rewrite them with the case's value of W == 1
  // (congruence, checked by the prover) so no product has an ite factor.
  const expr w1 = W == 1;
  const expr w1v = ctx.bool_val(!dcp);
  const expr w1eq = lc.closed("W-eq-1-case", dcp ? "this case has W >= 2" : "this case has W = 1", w1 == w1v, dW);
  if (rounds && (inv == I1_workspace_div_dcp || inv == I2_nonempty_chunk_width || inv == I3_coverage)) {
    if (!p.c.rounding) throw std::logic_error("sizing is not a round_up");
    qU = p.c.rounding->parts.q;
    const std::vector<expr> aPos = dcp ? std::vector<expr>{*Ldef} : dB;
    std::vector<expr> sdef;
    for (const auto& f : dS) sdef.push_back(lc.rewrite(f, w1, w1v, w1eq));
    const expr qdef = lc.rewrite(lc.def_of(p.c.rounding->parts.floor), w1, w1v, w1eq);
    sizedS = lc.closed("sized-S", "the version's S is round_up(x, A) = qU*A (A = lcm(B, I*W) under DCP, else B)",
                       S == *qU * A, sdef);
    apos = lc.closed("A-positive", "the sizing's alignment A >= 1", A >= 1, aPos);
    qUpos =
        lc.closed("sized-quotient-positive", "x >= S0 >= 1, so A*qU >= x >= 1 and qU >= 1", *qU >= 1,
                  LemmaChain::cat(LemmaChain::cat(lc.dom(p.c.mml), lc.dom(p.c.mns)), {*apos, qdef, lc.mono(A, *qU)}));
  }
  // Under DCP: P = I*W >= 1, align = P*m, start = P*Tq, local_start = Tq*I.
  std::optional<expr> Ppos, startPT, qLstep;
  expr Tq = p.ks;
  if (dcp) {
    Ppos = lc.closed("IW-positive", "I >= 1, W >= 2 give I*W >= 2", V >= 1 && W >= 1 && I >= 1,
                     LemmaChain::cat(LemmaChain::cat(dI, dW), {lc.mono(I, W - 1)}));
    std::vector<expr> h = lc.dom(start);
    if (p.aligns_to_block) {
      const expr m = sc.lcms().front().y;
      Tq = m * p.ks;
      h.push_back(*Ldef);
      h.push_back(lc.mono(m, p.ks));
    }
    startPT = lc.closed("start-multiple-of-IW", "start = align*ks and align = (I*W)*m, so start = (I*W)*Tq, Tq >= 0",
                        start == V * Tq && Tq >= 0, h);
    const expr qL = cp::cdiv(start, V);
    qLstep = lc.closed("local-start", "cdiv((I*W)*Tq, I*W) = Tq, so padded_local_rows(start) = Tq*I", qL == Tq,
                       {*startPT, def_of_cdiv(lc, start, V), *Ppos, lc.mono(V, Tq - qL)});
  }
  {  // definedness: every divisor (B, I*W, W, I, lcm, the sizing's select) is positive
    std::vector<expr> h = LemmaChain::cat(LemmaChain::cat(dB, dW), dI);
    if (Ldef) h.push_back(*Ldef);
    h.push_back(dcp ? *Ppos : lc.mono(I, W));
    enc.definedness_hyps = h;
  }
  {  // The other branch of the greedy step: a request without context closes the open chunk and
     // takes nothing. The state after it (rows := 0, next start 0 = align*0) satisfies the
     // induction hypothesis again (0 <= rows <= row_budget held before), so the step for
     // ctx >= 1 encoded in PackedStep is the only one left to prove.
    const expr nc = ctx.int_const("next_ctx");
    const expr zero = ctx.int_val(0);
    lc.closed("ctx-free-request", "ctx == 0 closes the chunk: rows := 0 and start := 0 are in the hypothesis again",
              z3::implies(steps::packed_closes_chunk_without_context(nc),
                          zero <= p.pp.row_budget && zero == p.pp.align * zero),
              lc.dom(p.rows));
  }
  return {rounds, dB, dW, dI, dS, Lsym, Ldef, A, qU, sizedS, qUpos, apos, Ppos, startPT, qLstep, Tq};
}

void chain_I1([[maybe_unused]] z3::context& ctx, [[maybe_unused]] Z3Scope& sc, [[maybe_unused]] const PackedStep& p,
              [[maybe_unused]] Encoding& enc, [[maybe_unused]] LemmaChain& lc, [[maybe_unused]] const ChainFacts& f) {
  const auto& L = sc.lcms().front();
  const expr K = p.I * L.y * *f.qU;
  const expr sWK =
      lc.closed("S-is-W-times", "S = qU*A and A = (I*W)*y, so S = W*(I*y*qU)", p.S == p.W * K, {*f.sizedS, *f.Ldef});
  const expr qS = cp::floordiv(p.S, p.W);
  const expr qSstep =
      lc.closed("S-div-W", "floordiv(W*K, W) = K", qS == K, {sWK, lc.def_of(qS), *f.Ppos, lc.mono(p.W, K - qS)});
  lc.closed("S-mod-W", "S mod W == 0", cp::floormod(p.S, p.W) == 0, {sWK, qSstep}, true);
}

// S >= align from the version's sizing (I-2 and I-3's progress): sgeA and the facts about the
// alignment that go with it (h).
struct SizeFacts {
  expr sgeA;
  std::vector<expr> h;
  bool align_one;  // no DCP, no block alignment: align = 1, Mmax = S
};
SizeFacts size_ge_align(Z3Scope& sc, const PackedStep& p, LemmaChain& lc, const ChainFacts& f) {
  expr sgeA = p.S >= f.A;
  if (f.rounds) {
    sgeA = lc.closed("S-ge-A", "S = qU*A with qU >= 1", p.S >= f.A,
                     {*f.sizedS, *f.qUpos, *f.apos, lc.mono(f.A, *f.qU - 1)});
  }
  std::vector<expr> h{sgeA};
  if (p.dcp) {
    if (p.aligns_to_block) {
      h.push_back(*f.Ldef);
    } else {  // rocm: align = I*W <= lcm
      const expr le = lc.closed("align-le-A", "A = (I*W)*y with y >= 1, so I*W <= A", p.pp.align <= f.A,
                                {*f.Ldef, *f.Ppos, lc.mono(p.V, sc.lcms().front().y - 1)});
      h.push_back(le);
      h.push_back(*f.Ppos);
    }
  } else if (p.aligns_to_block) {
    h = LemmaChain::cat(h, f.dB);
  }
  return {sgeA, h, !(p.dcp || p.aligns_to_block)};
}

void chain_I2([[maybe_unused]] z3::context& ctx, [[maybe_unused]] Z3Scope& sc, [[maybe_unused]] const PackedStep& p,
              [[maybe_unused]] Encoding& enc, [[maybe_unused]] LemmaChain& lc, [[maybe_unused]] const ChainFacts& f) {
  const SizeFacts sz = size_ge_align(sc, p, lc, f);
  if (sz.align_one) {  // align = 1: Mmax = S
    lc.closed("Mmax-positive", "Mmax = round_down(S, 1) = S >= 1", p.pp.Mmax > 0, LemmaChain::cat({sz.sgeA}, f.dB),
              true);
    return;
  }
  const expr qM = cp::floordiv(p.S, p.pp.align);
  const expr qMpos = lc.closed("S-div-align-positive", "S >= align: floordiv(S, align) >= 1", qM >= 1,
                               LemmaChain::cat(sz.h, {lc.def_of(qM), lc.mono(p.pp.align, qM)}));
  lc.closed("Mmax-positive", "Mmax = floordiv(S, align)*align >= align >= 1", p.pp.Mmax > 0,
            LemmaChain::cat(sz.h, {qMpos, lc.mono(p.pp.align, qM - 1)}), true);
}

// I-3 (coverage) by induction over one greedy step, as I-10: the take-all piece ends at ctx,
// a split piece leaves >= 1 token and keeps the next start a multiple of align (the induction
// hypothesis), and progress: a fresh chunk (rows = 0) never closes empty, so the planner's
// `chunk is non-empty` assert cannot fire and the loop reaches ctx. Under DCP align = V*mA
// (cuda: the lcm's factor y; rocm: align = V, mA = 1) and start = V*Tq.
void chain_I3([[maybe_unused]] z3::context& ctx, [[maybe_unused]] Z3Scope& sc, [[maybe_unused]] const PackedStep& p,
              [[maybe_unused]] Encoding& enc, [[maybe_unused]] LemmaChain& lc, [[maybe_unused]] const ChainFacts& f) {
  const expr &align = p.pp.align, &rb = p.pp.row_budget;
  // A floor division by a numeral (align = 1) is Z3's div: no witness to list.
  auto defs = [&](const expr& q) {
    std::vector<expr> out;
    for (std::size_t i = 0; i < sc.defined().size(); ++i)
      for (const auto& x : sc.defined()[i])
        if (z3::eq(x, q)) out.push_back(sc.defs()[i]);
    return out;
  };
  std::vector<expr> ah;
  if (p.dcp)
    ah = p.aligns_to_block ? std::vector<expr>{*f.Ldef} : std::vector<expr>{*f.Ppos};
  else if (p.aligns_to_block)
    ah = f.dB;
  const expr apos = lc.closed("align-positive", "align >= 1", align >= 1, ah);
  lc.closed("take-all", "the last piece [start, ctx) ends at ctx and is non-empty",
            z3::implies(p.take_all, p.start + p.remaining == p.cx && p.remaining >= 1), lc.dom(p.start), true);
  const expr qr = cp::floordiv(p.remaining - ctx.int_val(1), align);
  const expr sin = lc.closed(
      "split-inside", "k <= kmax: k*align <= max(cap, 0) <= remaining - 1", p.split >= 0 && p.split <= p.remaining - 1,
      LemmaChain::cat(
          LemmaChain::cat(LemmaChain::cat(LemmaChain::cat(lc.dom(p.k), lc.dom(p.start)), defs(p.kmax)), defs(qr)),
          {apos, lc.mono(align, p.kmax - p.k), lc.mono(align, p.k)}));
  lc.closed("split-bound", "a split piece leaves >= 1 token and keeps start a multiple of align",
            z3::implies(!p.take_all && p.k >= 1,
                        p.start + p.split < p.cx && p.start + p.split == align * (p.ks + p.k) && p.split >= 1),
            LemmaChain::cat(lc.dom(p.start), {sin, apos, lc.mono(align, p.k), lc.mono(align, p.k - 1)}), true);
  // Progress.
  const SizeFacts sz = size_ge_align(sc, p, lc, f);
  expr mge = p.pp.Mmax >= align;
  if (sz.align_one) {
    mge = lc.closed("Mmax-ge-align", "Mmax = round_down(S, 1) = S >= 1 = align", mge, LemmaChain::cat({sz.sgeA}, f.dB));
  } else {
    const expr qM = cp::floordiv(p.S, align);
    const expr qMpos = lc.closed("S-div-align-positive", "S >= align: floordiv(S, align) >= 1", qM >= 1,
                                 LemmaChain::cat(sz.h, {lc.def_of(qM), lc.mono(align, qM)}));
    mge = lc.closed("Mmax-ge-align", "Mmax = floordiv(S, align)*align >= align", mge,
                    LemmaChain::cat(sz.h, {qMpos, lc.mono(align, qM - 1)}));
  }
  const expr cap =
      lc.closed("cap-ge-align", "remaining > align: floordiv(remaining - 1, align) >= 1, so cap >= align and kmax >= 1",
                z3::implies(p.remaining > align, p.kmax >= 1),
                LemmaChain::cat(LemmaChain::cat(defs(qr), defs(p.kmax)),
                                {mge, apos, lc.mono(align, qr), lc.mono(align, qr - 1), lc.mono(align, p.kmax)}));
  const expr k1 = (p.k + 1) * align;
  expr small = p.remaining <= align, one = p.k == 0;
  if (p.dcp) {
    const expr mA = p.aligns_to_block ? sc.lcms().front().y : ctx.int_val(1);
    std::vector<expr> am{*f.startPT, *f.Ppos};
    if (p.aligns_to_block) am.push_back(*f.Ldef);
    const expr qS = cp::floordiv(p.S, p.W);
    const expr share = lc.closed("rb-ge-share", "S >= align = W*(I*mA) gives S // W >= I*mA", rb >= p.I * mA,
                                 LemmaChain::cat(sz.h, {lc.def_of(qS), *f.Ppos, lc.mono(p.W, p.I * mA - 1 - qS)}));
    const expr c1 = cp::cdiv(p.start + k1, p.V);
    const expr c1s = lc.closed(
        "cdiv-one-align", "k = 0: cdiv(V*Tq + V*mA, V) = Tq + mA", z3::implies(p.k == 0, c1 == f.Tq + mA),
        LemmaChain::cat(am, {def_of_cdiv(lc, p.start + k1, p.V), lc.mono(align, p.k), lc.mono(p.V, f.Tq + mA - c1)}));
    one = lc.closed(
        "need-one-align", "k = 0: need(start, align) = (Tq + mA)*I - Tq*I = I*mA <= S // W",
        z3::implies(p.k == 0, p.need(p.start, k1) <= rb),
        {c1s, *f.qLstep, share, *f.Ppos, lc.mono(p.I, c1 - f.Tq - mA), lc.mono(p.I, cp::cdiv(p.start, p.V) - f.Tq)});
    const expr cr = cp::cdiv(p.start + p.remaining, p.V);
    const expr crs =
        lc.closed("cdiv-small", "remaining <= align = V*mA gives cdiv(V*Tq + remaining, V) <= Tq + mA",
                  z3::implies(p.remaining <= align, cr <= f.Tq + mA),
                  LemmaChain::cat(am, {def_of_cdiv(lc, p.start + p.remaining, p.V), lc.mono(p.V, cr - f.Tq - mA - 1)}));
    small = lc.closed(
        "small-remaining-fits", "remaining <= align: need(start, remaining) <= I*mA <= S // W",
        z3::implies(p.remaining <= align, p.full <= rb),
        {crs, *f.qLstep, share, *f.Ppos, lc.mono(p.I, f.Tq + mA - cr), lc.mono(p.I, cp::cdiv(p.start, p.V) - f.Tq)});
  } else {
    const std::vector<expr> sh = LemmaChain::cat(LemmaChain::cat(sz.h, f.dB), {sz.sgeA});
    one = lc.closed("need-one-align", "k = 0: need(start, align) = align <= S",
                    z3::implies(p.k == 0, p.need(p.start, k1) <= rb), LemmaChain::cat(sh, {lc.mono(align, p.k)}));
    small = lc.closed("small-remaining-fits", "remaining <= align <= S: need = remaining <= S",
                      z3::implies(p.remaining <= align, p.full <= rb), sh);
  }
  lc.closed("progress", "a fresh chunk never closes empty: take_all or k >= 1 (the search's postcondition)",
            z3::implies(p.rows == 0, p.take_all || p.k >= 1),
            LemmaChain::cat(LemmaChain::cat(lc.dom(p.k), lc.dom(p.rows)), {small, one, cap}), true);
}

void chain_I4([[maybe_unused]] z3::context& ctx, [[maybe_unused]] Z3Scope& sc, [[maybe_unused]] const PackedStep& p,
              [[maybe_unused]] Encoding& enc, [[maybe_unused]] LemmaChain& lc, [[maybe_unused]] const ChainFacts& f) {
  const expr tot = ctx.int_const("chunk_tokens");
  enc.shown.push_back({"chunk_tokens", tot});
  const expr len = z3::ite(p.take_all, p.remaining, p.split);
  const expr nd = z3::ite(p.take_all, p.full, p.need(p.start, p.split));
  const std::vector<expr> dk = lc.dom(p.k), dr = lc.dom(p.rows);
  if (!p.dcp) {
    fact(enc, tot >= 0 && tot == p.rows, {tot});
    lc.closed("budget", "without DCP rows are tokens: rows + len <= S",
              z3::implies(p.take_all || p.k >= 1, tot + len <= p.S),
              LemmaChain::cat(LemmaChain::cat(lc.dom(tot), dk), dr), true);
    return;
  }
  fact(enc, tot >= 0 && tot <= p.W * p.rows, {tot});
  const expr ns = p.need(p.start, p.split);
  const expr qEa = cp::cdiv(p.start + p.remaining, p.V), qEs = cp::cdiv(p.start + p.split, p.V);
  const expr la = lc.closed("len-le-W-need-all", "cdiv(start+len, I*W)*(I*W) >= start+len: len <= W*need",
                            p.remaining <= p.W * p.full,
                            {*f.startPT, *f.qLstep, def_of_cdiv(lc, p.start + p.remaining, p.V), *f.Ppos});
  const expr ls = lc.closed("len-le-W-need-split", "same for the split piece", p.split <= p.W * ns,
                            {*f.startPT, *f.qLstep, def_of_cdiv(lc, p.start + p.split, p.V), *f.Ppos});
  const expr qS = cp::floordiv(p.S, p.W);
  const expr wrb = lc.closed("W-rb-le-S", "W*(S // W) <= S", p.W * p.pp.row_budget <= p.S, {lc.def_of(qS), *f.Ppos});
  const expr wa = lc.closed("W-rows-all", "rows + need <= S // W implies W*rows + W*need <= S",
                            z3::implies(p.rows + p.full <= p.pp.row_budget, p.W * p.rows + p.W * p.full <= p.S),
                            {wrb, *f.Ppos, lc.mono(p.W, p.pp.row_budget - p.rows - p.full)});
  const expr wsp = lc.closed("W-rows-split", "same for the split piece",
                             z3::implies(p.rows + ns <= p.pp.row_budget, p.W * p.rows + p.W * ns <= p.S),
                             {wrb, *f.Ppos, lc.mono(p.W, p.pp.row_budget - p.rows - ns)});
  lc.closed("budget", "tot + len <= W*rows + W*need <= S (linear over the products)",
            z3::implies((p.take_all || p.k >= 1) && p.rows + nd <= p.pp.row_budget, tot + len <= p.S),
            LemmaChain::cat(lc.dom(tot), {la, ls, wa, wsp}), true);
  lc.abstract_last_products();
}

void chain_I6([[maybe_unused]] z3::context& ctx, [[maybe_unused]] Z3Scope& sc, [[maybe_unused]] const PackedStep& p,
              [[maybe_unused]] Encoding& enc, [[maybe_unused]] LemmaChain& lc, [[maybe_unused]] const ChainFacts& f) {
  const expr qF = cp::floordiv(p.start, p.V);
  const expr qFstep = lc.closed("start-div-IW", "floordiv((I*W)*Tq, I*W) = Tq", qF == f.Tq,
                                {*f.startPT, lc.def_of(qF), *f.Ppos, lc.mono(p.V, f.Tq - qF)});
  lc.closed("aligned", "a non-zero start is a multiple of V and local_start*W == start",
            z3::implies(p.start > 0, cp::floormod(p.start, p.V) == 0 && p.local_start * p.W == p.start),
            {*f.startPT, qFstep, *f.qLstep}, true);
}

void chain_I7([[maybe_unused]] z3::context& ctx, [[maybe_unused]] Z3Scope& sc, [[maybe_unused]] const PackedStep& p,
              [[maybe_unused]] Encoding& enc, [[maybe_unused]] LemmaChain& lc, [[maybe_unused]] const ChainFacts& f) {
  // The planner's own tests (packed_takes_all / packed_split_fits): the chunk's rows after
  // adding the piece (packed_need, its padded_local_len) stay <= row_budget = S // W; then
  // the forward asserts of steps.h hold for them.
  const expr ns = p.need(p.start, p.split);
  const expr toks_all = p.rows + p.full, toks_split = p.rows + ns;
  const expr bud = lc.closed(
      "budget", "the chunk's padded local rows stay <= S // W after adding the piece (take_all or fits_k)",
      z3::implies(p.take_all, toks_all <= p.pp.row_budget) && z3::implies(!p.take_all, toks_split <= p.pp.row_budget),
      lc.dom(p.k));
  const expr qS = cp::floordiv(p.S, p.W);
  const expr qR = cp::floordiv(steps::workspace_rows(p.S, p.W, true), p.W + 1);
  const expr off =
      lc.closed("allgather-offset", "R = S + S//W = (W+1)*(S//W) + S mod W and S mod W < W+1: R // (W+1) = S // W",
                qR == qS, {lc.def_of(qS), lc.def_of(qR), *f.Ppos, lc.mono(p.W + 1, qR - qS)});
  lc.closed("forward-asserts", "toks <= S // W gives toks <= R // (W+1) = allgather_offset and toks*W <= S",
            z3::implies(p.take_all, forward_asserts_hold(toks_all, p.S, p.W)) &&
                z3::implies(!p.take_all, forward_asserts_hold(toks_split, p.S, p.W)),
            {bud, off, lc.def_of(qS), *f.Ppos, lc.mono(p.W, qS - toks_all), lc.mono(p.W, qS - toks_split)}, true);
}

// The symbolic rank (0 <= r < W) and the two quotient lemmas every per-rank chain starts from:
// start // I = W*Tq and (start // I) // W = Tq (start is a multiple of I*W in the packed step).
struct RankQuotients {
  expr r, q1s, q2s;
};
RankQuotients rank_quotients(z3::context& ctx, const PackedStep& p, Encoding& enc, LemmaChain& lc,
                             const ChainFacts& f) {
  const expr r = ctx.int_const("rank");
  fact(enc, r >= 0 && r < p.W, {r});
  enc.shown.push_back({"rank", r});
  const expr q1 = cp::floordiv(p.start, p.I);
  const expr q1s = lc.closed("start-div-I", "floordiv(I*(W*Tq), I) = W*Tq", q1 == p.W * f.Tq,
                             {*f.startPT, lc.def_of(q1), *f.Ppos, lc.mono(p.I, p.W * f.Tq - q1)});
  const expr q2 = cp::floordiv(q1, p.W);
  const expr q2s =
      lc.closed("div-W", "floordiv(W*Tq, W) = Tq", q2 == f.Tq, {q1s, lc.def_of(q2), *f.Ppos, lc.mono(p.W, f.Tq - q2)});
  return {r, q1s, q2s};
}

void chain_I10([[maybe_unused]] z3::context& ctx, [[maybe_unused]] Z3Scope& sc, [[maybe_unused]] const PackedStep& p,
               [[maybe_unused]] Encoding& enc, [[maybe_unused]] LemmaChain& lc, [[maybe_unused]] const ChainFacts& f) {
  const RankQuotients rq = rank_quotients(ctx, p, enc, lc, f);
  const expr &r = rq.r, &q1s = rq.q1s, &q2s = rq.q2s;
  lc.closed("gather-start", "every rank's first local slot of the span is local_start: base = Tq*I, rem = 0",
            dcp_local_len(p.start, p.W, r, p.I) == p.local_start,
            LemmaChain::cat(lc.dom(r), {*f.startPT, q1s, q2s, *f.qLstep, *f.Ppos, lc.mono(p.I, r)}), true);
}

// I-8 (a): the local context lengths add up to the context, sum over r < W of
// dcp_local_len(ctx, W, r, I) = ctx, for a symbolic W (any ctx). With ctx = (I*W)*b + rem,
// 0 <= rem <= I*W - 1 (the ownership terms), q = rem // I and s = rem - q*I: rank n owns
// b*I + I (n < q), b*I + s (n = q) or b*I (n > q) -- the ownership lemma. Closed form of the
// prefix sums: F(n) = n*(b*I) + min(n, q)*I + (n > q ? s : 0). Steps: F(0) = 0, F(n+1) - F(n) =
// dcp_local_len(ctx, W, n, I) for an arbitrary rank 0 <= n < W, and F(W) = ctx; the sum
// telescopes (the one step outside Z3: sum over n < W of F(n+1) - F(n) = F(W) - F(0)).
void chain_I8a(z3::context& ctx, const PackedStep& p, Encoding& enc, LemmaChain& lc, const ChainFacts& f,
               const expr& range) {
  const DcpLocalLenParts<expr> ot = dcp_local_len_parts(p.cx, p.W, ctx.int_val(0), p.I);
  const expr rem = ot.rem, bI = ot.base;
  const expr q = cp::floordiv(rem, p.I);
  const expr s = rem - q * p.I;
  const expr stripe =
      lc.closed("ctx-stripe", "rem = I*q + s, 0 <= s <= I-1, and 0 <= rem <= I*W - 1 give 0 <= q <= W - 1",
                q >= 0 && q <= p.W - 1 && s >= 0 && s <= p.I - 1,
                {range, lc.def_of(q), *f.Ppos, lc.mono(p.I, q), lc.mono(p.I, q - p.W), lc.mono(p.I, q + 1)});
  auto F = [&](const expr& n) {
    return n * bI + z3::ite(n <= q, n * p.I, q * p.I) + z3::ite(n > q, s, ctx.int_val(0));
  };
  const expr n = ctx.int_const("sum_rank");
  fact(enc, n >= 0 && n <= p.W - 1, {n});
  enc.shown.push_back({"sum_rank", n});
  const expr dln = dcp_local_len(p.cx, p.W, n, p.I);
  lc.closed("sum-zero", "F(0) = 0 (q >= 0)", F(ctx.int_val(0)) == 0, {stripe});
  // The ownership lemma, one stripe position at a time (rem - n*I against 0 and I).
  const expr below = lc.closed("rank-below-stripe", "n < q: rem - n*I >= I, rank n owns b*I + I",
                               z3::implies(n <= q - 1, dln == bI + p.I), {stripe, lc.mono(p.I, q - n - 1)});
  const expr at = lc.closed("rank-at-stripe", "n = q: rem - n*I = s, rank n owns b*I + s",
                            z3::implies(n == q, dln == bI + s), {stripe, lc.mono(p.I, n - q)});
  const expr above = lc.closed("rank-above-stripe", "n > q: rem - n*I <= s - I < 0, rank n owns b*I",
                               z3::implies(n >= q + 1, dln == bI), {stripe, *f.Ppos, lc.mono(p.I, n - q - 1)});
  const expr d1 = lc.closed("distribute-base", "(n+1)*(b*I) = n*(b*I) + b*I", (n + 1) * bI == n * bI + bI, {});
  const expr d2 = lc.closed("distribute-I", "(n+1)*I = n*I + I", (n + 1) * p.I == n * p.I + p.I, {});
  const expr d3 = lc.closed("at-stripe-product", "n = q gives n*I = q*I", z3::implies(n == q, n * p.I == q * p.I),
                            {lc.mono(p.I, n - q)});
  lc.closed("sum-step", "F(n+1) - F(n) = dcp_local_len(ctx, W, n, I): I, s or 0 rows past b*I (ownership)",
            F(n + 1) - F(n) == dln, {below, at, above, d1, d2, d3});
  lc.abstract_last_products();  // linear over the products
  lc.closed("sum-all", "F(W) = W*(b*I) + q*I + s = W*(b*I) + rem = ctx (q <= W - 1)", F(p.W) == p.cx, {stripe});
}

// I-9 at token level, for rank r of the count-level chain: the piece [start, e) of one greedy
// step, the rows rank r's reorg keeps (kept = reorg_kept_rows(...), = dcp_local_len(e, r) -
// local_start by `kept-eq-owned` and `gather-start`), and the end's ownership terms (b, rem).
struct TokenRank {
  expr r, gs, keo;
};
struct TokenPiece {
  expr is, e, b, rem, range, kept, pll;  // is: this piece is the step's; range: 0 <= rem <= I*W - 1
  std::string tag;
};

// A position x = (I*W)*t + I*o + u (0 <= o < W, 0 <= u < I) whose local index (ownership.h) is
// t*I + u: x >= start iff its local index >= local_start, and for its owner o = r, x < e iff
// its local index < dcp_local_len(e, r) (the stripe of e against x's virtual block t: t < b,
// t = b, t > b). dec: the facts that give the decomposition.
std::vector<expr> token_order(const PackedStep& p, LemmaChain& lc, const ChainFacts& f, const TokenRank& tr,
                              const std::vector<TokenPiece>& pieces, const std::string& who, const expr& x,
                              const expr& t, const expr& o, const expr& u, const expr& lix,
                              const std::vector<expr>& dec) {
  const expr &I = p.I, &W = p.W, &V = p.V, &r = tr.r;
  const expr qL = cp::cdiv(p.start, V);
  std::vector<expr> out;
  // Against start = (I*W)*Tq: both sides compare the virtual block t with Tq.
  const expr xs = lc.closed(
      who + "-vs-start", "x - start = (I*W)*(t - Tq) + I*o + u with 0 <= I*o + u <= I*W - 1",
      (x >= p.start) == (t >= f.Tq),
      LemmaChain::cat(dec, {*f.startPT, *f.Ppos, lc.mono(V, t - f.Tq), lc.mono(I, W - 1 - o), lc.mono(I, o)}));
  const expr ls = lc.closed(who + "-local-vs-start", "local index - local_start = I*(t - Tq) + u, 0 <= u <= I - 1",
                            (lix >= p.local_start) == (t >= f.Tq),
                            LemmaChain::cat(dec, {*f.qLstep, *f.Ppos, lc.mono(I, t - f.Tq), lc.mono(I, qL - f.Tq)}));
  out.push_back(lc.closed(who + "-ge-start", "x >= start iff t >= Tq iff local index >= local_start",
                          (x >= p.start) == (lix >= p.local_start), {xs, ls}));
  // For the owner r, o*I is r*I (a product is a function of its factors).
  std::vector<expr> own;
  if (!z3::eq(o, r))
    own.push_back(lc.closed(who + "-owner-product", "o = r gives o*I = r*I", z3::implies(o == r, o * I == r * I),
                            {lc.mono(I, o - r)}));
  for (const auto& pc : pieces) {
    const expr dl = dcp_local_len(pc.e, W, r, I), bI = pc.b * I;
    const expr xe = lc.closed(
        who + "-vs-" + pc.tag + "-end", "x - e = (I*W)*(t - b) + (I*o + u - rem), |I*o + u - rem| <= I*W - 1",
        (x < pc.e) == (t <= pc.b - 1 || (t == pc.b && o * I + u < pc.rem)),
        LemmaChain::cat(dec, {pc.range, *f.Ppos, lc.mono(V, t - pc.b), lc.mono(I, W - 1 - o), lc.mono(I, o)}));
    const expr le = lc.closed(
        who + "-local-vs-" + pc.tag + "-end",
        "local index - b*I = I*(t - b) + u and dcp_local_len(e, r) - b*I = min(max(rem - r*I, 0), I) in [0, I]",
        (lix < dl) == (t <= pc.b - 1 || (t == pc.b && u < dl - bI)),
        LemmaChain::cat(dec, {*f.Ppos, lc.mono(I, t - pc.b)}));
    const expr se = lc.closed(pc.tag + "-end-stripe-" + who,
                              "0 <= u <= I - 1: r*I + u < rem iff u < min(max(rem - r*I, 0), I) (linear)",
                              z3::implies(u >= 0 && u <= I - 1, (r * I + u < pc.rem) == (u < dl - bI)), {});
    lc.abstract_last_products();
    const std::vector<expr> h = LemmaChain::cat(LemmaChain::cat(dec, own), {xe, le, se});
    out.push_back(lc.closed(who + "-below-" + pc.tag + "-end",
                            "for owner r: x < e iff local index < dcp_local_len(e, r) (the three facts above)",
                            z3::implies(o == r, (x < pc.e) == (lix < dl)), h));
    lc.abstract_last_products();
  }
  return out;
}

// The position -> (owner rank, local row) map of ownership.h is a bijection from the piece
// [start, e) onto the rows the ranks' reorg keeps, rank r's being local slots [local_start,
// local_start + kept) (the gather copies slots [local_start, local_start + padded_local_len) to
// its local rows in order; reorg copies the first kept of them, rank after rank). Forward, for
// a symbolic position p owned by r: its local index is a kept slot of r and global_position
// maps it back to p (injective). Backward, for a symbolic slot L of r: global_position(L, r)
// lies in the piece and its owner and local index are r and L (onto).
void chain_I9_tokens(z3::context& ctx, const PackedStep& p, LemmaChain& lc, const ChainFacts& f, const TokenRank& tr,
                     const std::vector<TokenPiece>& pieces) {
  Encoding& enc = lc.enc();
  const expr &I = p.I, &W = p.W, &V = p.V, &r = tr.r;
  // Forward: position p = I*a + u, a = W*t + o.
  const expr pos = ctx.int_const("position");
  enc.shown.push_back({"position", pos});
  const expr a = cp::floordiv(pos, I), t = cp::floordiv(a, W), tv = cp::floordiv(pos, V);
  const expr o = owner_rank(pos, I, W), u = cp::floormod(pos, I), li = local_index(pos, I, W);
  const expr st = lc.closed("pos-stripe", "p = I*a + u, a = W*t + o: p = (I*W)*t + I*o + u, 0 <= o < W, 0 <= u < I",
                            pos == V * t + I * o + u && o >= 0 && o <= W - 1 && u >= 0 && u <= I - 1,
                            {lc.def_of(a), lc.def_of(t), *f.Ppos});
  const expr blk = lc.closed(
      "pos-block", "0 <= I*o + u <= I*W - 1: floordiv(p, I*W) = t, local_index(p) = t*I + u",
      tv == t && li == t * I + u,
      {st, lc.def_of(tv), *f.Ppos, lc.mono(I, o), lc.mono(I, W - 1 - o), lc.mono(V, tv - t), lc.mono(I, tv - t)});
  const expr c = cp::floordiv(li, I);
  const expr inv = lc.closed(
      "pos-inverse", "floordiv(t*I + u, I) = t: global_position(local_index(p), owner_rank(p)) = p",
      global_position(li, o, I, W) == pos, {st, blk, lc.def_of(c), *f.Ppos, lc.mono(I, c - t), lc.mono(V, c - t)});
  const std::vector<expr> pord = token_order(p, lc, f, tr, pieces, "pos", pos, t, o, u, li, {st, blk});
  expr fwd = ctx.bool_val(true);
  for (const auto& pc : pieces)
    fwd = fwd && z3::implies(pc.is && o == r && p.start <= pos && pos < pc.e,
                             p.local_start <= li && li - p.local_start < pc.kept && pc.kept <= pc.pll &&
                                 global_position(li, o, I, W) == pos);
  lc.closed("token-owner-row",
            "p in the piece, owned by r: local_index(p) - local_start is one of r's kept rows, and maps back to p", fwd,
            LemmaChain::cat(pord, {tr.keo, tr.gs, inv}), true);
  lc.abstract_last_products();
  // Backward: slot L = I*cL + d of rank r, g = global_position(L, r) = (I*W)*cL + I*r + d.
  const expr L = ctx.int_const("slot");
  enc.shown.push_back({"slot", L});
  const expr cL = cp::floordiv(L, I), d = cp::floormod(L, I), g = global_position(L, r, I, W);
  const expr ag = cp::floordiv(g, I), tg = cp::floordiv(ag, W), tvg = cp::floordiv(g, V);
  const expr og = owner_rank(g, I, W), lig = local_index(g, I, W);
  const expr sst = lc.closed("slot-stripe", "L = I*cL + d, 0 <= d < I", L == cL * I + d && d >= 0 && d <= I - 1,
                             {lc.def_of(cL), *f.Ppos});
  const expr gdi =
      lc.closed("gp-div-I", "g = I*(W*cL + r) + d, 0 <= d < I: floordiv(g, I) = W*cL + r, floormod(g, I) = d",
                ag == W * cL + r && cp::floormod(g, I) == d,
                LemmaChain::cat(lc.dom(r), {sst, lc.def_of(ag), *f.Ppos, lc.mono(I, ag - W * cL - r)}));
  const expr gow = lc.closed("gp-owner", "floordiv(W*cL + r, W) = cL: owner_rank(g) = r", tg == cL && og == r,
                             LemmaChain::cat(lc.dom(r), {gdi, lc.def_of(tg), *f.Ppos, lc.mono(W, tg - cL)}));
  const expr glo =
      lc.closed("gp-local", "0 <= I*r + d <= I*W - 1: floordiv(g, I*W) = cL, local_index(g) = cL*I + d = L",
                tvg == cL && lig == L,
                LemmaChain::cat(lc.dom(r), {sst, gdi, lc.def_of(tvg), *f.Ppos, lc.mono(I, r), lc.mono(I, W - 1 - r),
                                            lc.mono(V, tvg - cL), lc.mono(I, tvg - cL)}));
  const expr gdec = lc.closed("gp-stripe", "g = (I*W)*cL + I*r + d, local_index(g) = cL*I + d",
                              g == V * cL + I * r + d && lig == cL * I + d, LemmaChain::cat(lc.dom(r), {sst, glo}));
  const std::vector<expr> gord =
      token_order(p, lc, f, tr, pieces, "slot", g, cL, r, d, lig, LemmaChain::cat(lc.dom(r), {sst, gdec}));
  expr bwd = ctx.bool_val(true);
  for (const auto& pc : pieces)
    bwd = bwd && z3::implies(pc.is && p.local_start <= L && L < p.local_start + pc.kept,
                             p.start <= g && g < pc.e && og == r && lig == L);
  lc.closed("token-onto", "every kept row L of rank r holds global_position(L, r), a position of the piece owned by r",
            bwd, LemmaChain::cat(gord, {tr.keo, tr.gs, gow, glo}), true);
  lc.abstract_last_products();
}

}  // namespace

// The rows rank r owns of the prefix [0, e) against the padded prefix rows (any e): the steps
// `<tag>-rem-range`, `<tag>-cdiv`, `<tag>-share` over dcp_local_len's own quantities
// (ownership.h: a = e // I, b = a // W, rem = e - (b*I)*W) and c = cdiv(e, V), V = I*W.
OwnedSpan owned_span(LemmaChain& lc, const expr& e, const expr& W, const expr& r, const expr& I, const expr& V,
                     const expr& Ppos, const std::string& tag, bool range_only) {
  const DcpLocalLenParts<expr> ot = dcp_local_len_parts(e, W, r, I);
  const expr &dl = ot.len, &rem = ot.rem, &b = ot.b, &a = ot.a;
  const expr cq = cp::cdiv(e, V), cdef = def_of_cdiv(lc, e, V);
  const expr pad = padded_local_rows(e, I, W);
  const expr range = lc.closed(
      tag + "-rem-range", "e = I*a + r1, a = W*b + r2: rem = I*r2 + r1 in [0, I*W - 1]", rem >= 0 && rem <= V - 1,
      {lc.def_of(a), lc.def_of(b), Ppos, lc.mono(I, a - W * b), lc.mono(I, W * b + W - 1 - a)});
  if (range_only) return OwnedSpan{b, cq, rem, range, range, range, cdef};
  const expr cd = lc.closed(tag + "-cdiv", "cdiv(e, I*W) = b if rem = 0, else b + 1",
                            z3::implies(rem == 0, cq == b) && z3::implies(rem >= 1, cq == b + 1),
                            {range, cdef, Ppos, lc.mono(V, cq - b), lc.mono(V, cq - b - 1), lc.mono(V, cq - b - 2)});
  const expr share = lc.closed(
      tag + "-share", "b*I <= dcp_local_len(e) <= padded_local_rows(e), equal when rem = 0",
      b * I <= dl && dl <= pad && z3::implies(rem == 0, dl == b * I && dl == pad),
      LemmaChain::cat(lc.dom(r), {range, cd, Ppos, lc.mono(I, r), lc.mono(I, cq - b), lc.mono(I, cq - b - 1)}));
  return OwnedSpan{b, cq, rem, range, cd, share, cdef};
}

namespace {

void chain_I8_I9([[maybe_unused]] z3::context& ctx, [[maybe_unused]] Z3Scope& sc, [[maybe_unused]] const PackedStep& p,
                 [[maybe_unused]] Encoding& enc, [[maybe_unused]] LemmaChain& lc,
                 [[maybe_unused]] const ChainFacts& f) {
  // Per rank r (symbolic, 0 <= r < W). dcp_local_len(e) = b*I + min(max(rem - r*I, 0), I) with
  // a = e // I, b = a // W, rem = e - (b*I)*W; padded_local_rows(e) = c*I with c = cdiv(e, I*W).
  const RankQuotients rq = rank_quotients(ctx, p, enc, lc, f);
  const expr &r = rq.r, &q1s = rq.q1s, &q2s = rq.q2s;
  const expr gs = lc.closed("gather-start", "dcp_local_len(start) = Tq*I = local_start for every rank",
                            dcp_local_len(p.start, p.W, r, p.I) == p.local_start,
                            LemmaChain::cat(lc.dom(r), {*f.startPT, q1s, q2s, *f.qLstep, *f.Ppos, lc.mono(p.I, r)}));
  const expr qL = cp::cdiv(p.start, p.V);
  using Span = OwnedSpan;
  auto span = [&](const expr& e, const std::string& tag, bool range_only = false) {
    return owned_span(lc, e, p.W, r, p.I, p.V, *f.Ppos, tag, range_only);
  };
  if (p.key.invariant == I8_local_length_bookkeeping) {
    chain_I8a(ctx, p, enc, lc, f, span(p.cx, "ctx", true).range);
    // (b) of check_I8 for an arbitrary span [start, start + len) (every piece is one).
    const expr len = ctx.int_const("span_len");
    fact(enc, len >= 0, {len});
    enc.shown.push_back({"span_len", len});
    const expr e = p.start + len;
    const Span s = span(e, "end");
    lc.closed("owned-le-padded", "rows rank r owns in [start, start+len) <= padded_local_rows(start+len) - local_start",
              dcp_local_len(e, p.W, r, p.I) - dcp_local_len(p.start, p.W, r, p.I) <=
                  padded_local_rows(e, p.I, p.W) - p.local_start,
              {gs, s.share}, true);
    lc.abstract_last_products();  // linear over the products
    return;
  }
  // I-9 at count level, both pieces of the step: take-all [start, ctx) (start + remaining = ctx)
  // and the split [start, start + k*align).
  const expr lctx = dcp_local_len(p.cx, p.W, r, p.I);
  const Span sc_ = span(p.cx, "ctx");
  const expr cge =
      lc.closed("ctx-ge-start", "ctx > start = (I*W)*Tq and ctx <= (I*W)*b + I*W - 1 give b >= Tq", sc_.b >= f.Tq,
                LemmaChain::cat(lc.dom(p.start), {sc_.range, *f.startPT, *f.Ppos, lc.mono(p.V, sc_.b - f.Tq + 1)}));
  const expr qk = p.kmax;
  const expr qr = cp::floordiv(p.remaining - ctx.int_val(1), p.pp.align);
  std::vector<expr> hin =
      LemmaChain::cat(LemmaChain::cat(lc.dom(p.k), lc.dom(p.start)),
                      {lc.def_of(qk), lc.def_of(qr), *f.Ppos, lc.mono(p.pp.align, qk - p.k), lc.mono(p.pp.align, p.k)});
  if (p.aligns_to_block) hin.push_back(*f.Ldef);
  const expr sin = lc.closed("split-inside", "k <= kmax: k*align <= max(cap, 0) <= remaining - 1",
                             p.split >= 0 && p.split <= p.remaining - 1, hin);
  expr Ts = f.Tq + p.k;
  std::vector<expr> hm = LemmaChain::cat(lc.dom(p.k), {*f.startPT});
  if (p.aligns_to_block) {
    const expr m = sc.lcms().front().y;
    Ts = f.Tq + m * p.k;
    hm = LemmaChain::cat(hm, {*f.Ldef, lc.mono(p.k + 1, p.pp.align - p.V * m), lc.mono(m, p.k)});
  }
  const expr es = p.start + p.split;
  const expr sm = lc.closed("split-end-multiple", "start + k*align = (I*W)*Ts, Ts >= 0", es == p.V * Ts && Ts >= 0, hm);
  const Span ss = span(es, "split");
  const expr sx = lc.closed("split-end-exact", "(I*W)*Ts = (I*W)*b + rem with 0 <= rem < I*W: rem = 0, b = Ts",
                            ss.rem == 0 && ss.b == Ts, {ss.range, sm, *f.Ppos, lc.mono(p.V, Ts - ss.b)});
  const expr cov = lc.closed("ctx-covers-split", "ctx >= start + split + 1 = (I*W)*Ts + 1 gives b_ctx >= Ts",
                             sc_.b >= Ts, {sc_.range, sm, sin, *f.Ppos, lc.mono(p.V, sc_.b - Ts + 1)});
  // The entries' padded_local_len is the planner's packed_need(start, len); for the take-all
  // piece its end start + (ctx - start) is a different term than ctx: show they agree.
  const expr pll_all = p.need(p.start, p.remaining), pll_split = p.need(p.start, p.split);
  const expr qEnd = cp::cdiv(p.start + p.remaining, p.V);
  const expr endq =
      lc.closed("ctx-end-cdiv", "cdiv(start + (ctx - start), I*W) = cdiv(ctx, I*W)", qEnd == sc_.c,
                {def_of_cdiv(lc, p.start + p.remaining, p.V), sc_.cdef, *f.Ppos, lc.mono(p.V, qEnd - sc_.c)});
  const expr endp =
      lc.closed("ctx-end-padded", "so padded_local_rows(start + (ctx - start)) = padded_local_rows(ctx)",
                padded_local_rows(p.start + p.remaining, p.I, p.W) == padded_local_rows(p.cx, p.I, p.W), {endq});
  const expr own_all = lctx - dcp_local_len(p.start, p.W, r, p.I);
  const expr own_split = dcp_local_len(es, p.W, r, p.I) - dcp_local_len(p.start, p.W, r, p.I);
  const expr f1 = lc.closed("ls-le-ctx-base", "local_start = qL*I <= b_ctx*I (b_ctx >= Tq = qL)",
                            p.local_start <= sc_.b * p.I, {cge, *f.qLstep, *f.Ppos, lc.mono(p.I, sc_.b - qL)});
  const expr f2 = lc.closed("split-base-le-ctx-base", "b_split*I <= b_ctx*I (b_ctx >= Ts = b_split)",
                            ss.b * p.I <= sc_.b * p.I, {sx, cov, *f.Ppos, lc.mono(p.I, sc_.b - ss.b)});
  const expr kept_all = arith::reorg_kept_rows(lctx, p.local_start, pll_all);
  const expr kept_split = arith::reorg_kept_rows(lctx, p.local_start, pll_split);
  const expr keo =
      lc.closed("kept-eq-owned",
                "reorg_kept_rows(dcp_local_len(ctx), local_start, padded_local_len) = rows rank r owns in the piece",
                z3::implies(p.take_all, kept_all == own_all) && z3::implies(!p.take_all, kept_split == own_split),
                {gs, sc_.share, ss.share, sx, f1, f2, endp}, true);
  lc.abstract_last_products();  // linear over the products
  const TokenRank tr{r, gs, keo};
  chain_I9_tokens(ctx, p, lc, f, tr,
                  {{p.take_all, p.cx, sc_.b, sc_.rem, sc_.range, kept_all, pll_all, "ctx"},
                   {!p.take_all, es, ss.b, ss.rem, ss.range, kept_split, pll_split, "split"}});
}

}  // namespace

void encode_packed_chain(z3::context& ctx, Z3Scope& sc, const PackedStep& p, Encoding& enc) {
  enc.method = "closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I";
  enc.unbounded = true;
  LemmaChain lc(ctx, sc, enc);
  const ChainFacts f = prelude(ctx, sc, p, enc, lc);
  switch (p.key.invariant) {
    case I1_workspace_div_dcp: chain_I1(ctx, sc, p, enc, lc, f); break;
    case I2_nonempty_chunk_width: chain_I2(ctx, sc, p, enc, lc, f); break;
    case I3_coverage: chain_I3(ctx, sc, p, enc, lc, f); break;
    case I4_global_row_budget: chain_I4(ctx, sc, p, enc, lc, f); break;
    case I6_virtual_block_alignment: chain_I6(ctx, sc, p, enc, lc, f); break;
    case I7_local_row_budget: chain_I7(ctx, sc, p, enc, lc, f); break;
    case I10_gather_start_semantics: chain_I10(ctx, sc, p, enc, lc, f); break;
    case I8_local_length_bookkeeping:
    case I9_reorg_exact: chain_I8_I9(ctx, sc, p, enc, lc, f); break;
    default: throw std::logic_error("lemma chain not encoded");
  }
}

}  // namespace cp::smt::detail

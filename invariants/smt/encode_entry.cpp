// I-8 and I-9 for one chunk entry under DCP with concrete W and I (the packed planner's split
// grid, the old planner's pinned triple): every division is by a numeral, so each invariant is a
// few direct linear queries instead of a lemma chain. The entry is what vllm_chunk_movement moves
// (reference/planner/families/vllm/movement.cpp): rank r gathers its local slots [local_start,
// local_start + padded_local_len) of the request, and the reorg keeps the first kept(r) of them,
// rank after rank. The quantities are the planner's own templates (ownership.h, the family's
// steps), called by the encoders; nothing here reads a term back.
#include <optional>
#include <stdexcept>

#include "invariants/smt/encode_internal.h"
#include "reference/dcp/ownership.h"

namespace cp::smt::detail {
namespace {

// The step "entry e exists => body", whose negation is a violation. Without hypotheses, one
// query sliced to its cone of influence. With them (the packed split grid), two closed steps:
// the body for the piece whatever the rest of the greedy step (over e.hyps and `extra` only),
// then the guarded goal from it. The guard (the fit tests over rows and S) has nothing to do with
// the body, but in one query it slows Z3 15-fold (B=11000, W=3, I=11000, token-owner-row: 5.8 s
// with it, 0.4 s without). A planner whose piece is wrong leaves the first step refuted: the row
// is then UNKNOWN with the solver's model, never PROVED.
void direct(Encoding& enc, const EntryView& e, const std::vector<expr>& extra, const std::string& name,
            const std::string& comment, const expr& body) {
  if (!e.hyps) {
    enc.steps.push_back({name, comment, z3::implies(e.is, body), std::nullopt, true});
    return;
  }
  Step piece{name + "-piece", comment + " (for the piece, whatever the rest of the step)", body, std::nullopt, false};
  piece.hyps = *e.hyps;
  piece.hyps->insert(piece.hyps->end(), extra.begin(), extra.end());
  enc.steps.push_back(std::move(piece));
  Step st{name, comment, z3::implies(e.is, body), std::nullopt, true};
  st.hyps = std::vector<expr>{body};
  enc.steps.push_back(std::move(st));
}

struct Rank {
  expr r, fact;  // the symbol and its domain fact 0 <= r < W
};
Rank symbolic_rank(z3::context& ctx, Encoding& enc, const expr& W) {
  const expr r = ctx.int_const("rank");
  const expr f = r >= 0 && r < W;
  fact(enc, f, {r});
  enc.shown.push_back({"rank", r});
  return {r, f};
}

// Rows rank r owns of the entry's span [start, end): its prefix share at end less that at start.
expr owned(const EntryView& e, const expr& W, const expr& r, const expr& I) {
  return dcp_local_len(e.end, W, r, I) - dcp_local_len(e.start, W, r, I);
}

// A lemma about the ownership map alone (no entry): closed over `hyps`.
expr lemma(Encoding& enc, std::string name, std::string comment, const expr& goal, std::vector<expr> hyps) {
  Step st{std::move(name), std::move(comment), goal, std::nullopt, false};
  st.hyps = std::move(hyps);
  enc.steps.push_back(std::move(st));
  return goal;
}

// The stripe of a position p (the token chain's pos-stripe, pos-block, here with numerals): p =
// (I*W)*t + I*o + u with o = owner_rank(p), u = p mod I, and local_index(p) = t*I + u. Listed by
// the token steps, they take the nested divisions off the solver (token-owner-row of B=64, W=6,
// I=4: 2.2 s without, 0.2 s with).
std::vector<expr> stripe_lemmas(Encoding& enc, const expr& pos, const expr& W, const expr& I) {
  const expr V = I * W, a = cp::floordiv(pos, I), t = cp::floordiv(a, W), tv = cp::floordiv(pos, V);
  const expr o = owner_rank(pos, I, W), u = cp::floormod(pos, I), li = local_index(pos, I, W);
  const expr st = lemma(enc, "pos-stripe", "p = I*a + u, a = W*t + o: p = (I*W)*t + I*o + u, 0 <= o < W, 0 <= u < I",
                        pos == V * t + I * o + u && o >= 0 && o <= W - 1 && u >= 0 && u <= I - 1, {});
  const expr blk = lemma(enc, "pos-block", "0 <= I*o + u <= I*W - 1: floordiv(p, I*W) = t, local_index(p) = t*I + u",
                         tv == t && li == t * I + u, {st});
  return {st, blk};
}

// The same for a local slot L of rank r and g = global_position(L, r): floordiv(g, I) = W*cL + r
// (cL = L // I), so owner_rank(g) = r and local_index(g) = L (the token chain's gp- steps).
std::vector<expr> slot_lemmas(Encoding& enc, const Rank& rk, const expr& L, const expr& W, const expr& I) {
  const expr V = I * W, cL = cp::floordiv(L, I), d = cp::floormod(L, I), g = global_position(L, rk.r, I, W);
  const expr ag = cp::floordiv(g, I), tvg = cp::floordiv(g, V);
  const expr di = lemma(enc, "gp-div-I", "g = I*(W*cL + r) + d, 0 <= d < I: floordiv(g, I) = W*cL + r, g mod I = d",
                        ag == W * cL + rk.r && cp::floormod(g, I) == d, {rk.fact});
  const expr ow = lemma(enc, "gp-owner", "floordiv(W*cL + r, W) = cL: owner_rank(g) = r",
                        cp::floordiv(ag, W) == cL && owner_rank(g, I, W) == rk.r, {rk.fact, di});
  const expr lo = lemma(enc, "gp-local", "0 <= I*r + d <= I*W - 1: floordiv(g, I*W) = cL, local_index(g) = L",
                        tvg == cL && local_index(g, I, W) == L, {rk.fact, di});
  return {rk.fact, di, ow, lo};
}

// On the split grid: the entry occurs in some case of the domain (a witness, not a proof), so
// its proofs below are not vacuously true -- e.g. a guard that no greedy step satisfies.
void entry_witnesses(Encoding& enc, const std::vector<EntryView>& entries) {
  for (const EntryView& e : entries) {
    if (!e.hyps) continue;
    Step st{e.tag + "-occurs", "some case of the domain has this piece (the proofs below are about it)", !e.is,
            std::nullopt, false};
    st.witness = true;
    enc.steps.push_back(std::move(st));
  }
}

}  // namespace

void entry_I8_steps(z3::context& ctx, Encoding& enc, const expr& cx, const std::optional<std::vector<expr>>& cx_hyps,
                    const std::vector<EntryView>& entries, const expr& W, const expr& I) {
  std::int64_t w = 0;
  if (!numeral_of(W, w) || w < 1 || w > 1024) throw std::logic_error("entry_I8_steps: W is not a numeral");
  entry_witnesses(enc, entries);
  // (a) of check_I8: plan.local_ctx[r] = dcp_local_len(ctx, W, r, I) for every rank; the sum of
  // the W terms, spelled out (W is concrete).
  expr sum = ctx.int_val(0);
  for (std::int64_t n = 0; n < w; ++n) sum = sum + dcp_local_len(cx, W, ctx.int_val(n), I);
  Step st{"local-lengths-sum", "sum over the W ranks of dcp_local_len(ctx, W, r, I) == ctx", sum == cx, std::nullopt,
          true};
  st.hyps = cx_hyps;
  enc.steps.push_back(std::move(st));
  // (b) of check_I8, for every entry the step emits and an arbitrary rank r.
  const Rank rk = symbolic_rank(ctx, enc, W);
  for (const EntryView& e : entries)
    direct(enc, e, {rk.fact}, "owned-le-padded-" + e.tag,
           "the rows rank r owns of the span [start, end) are <= the entry's padded_local_len",
           owned(e, W, rk.r, I) <= e.pll);
}

void entry_I9_steps(z3::context& ctx, Encoding& enc, const std::vector<EntryView>& entries, const expr& W,
                    const expr& I) {
  entry_witnesses(enc, entries);
  const Rank rk = symbolic_rank(ctx, enc, W);
  const expr& r = rk.r;
  const expr pos = ctx.int_const("position"), L = ctx.int_const("slot");
  enc.shown.push_back({"position", pos});
  enc.shown.push_back({"slot", L});
  // Count level: rank r keeps exactly the rows it owns of the span, all of them gathered.
  for (const EntryView& e : entries)
    direct(enc, e, {rk.fact}, "kept-eq-owned-" + e.tag,
           "rank r's reorg keeps 0 <= kept <= padded_local_len rows, exactly the rows it owns of the span",
           e.kept(r) >= 0 && e.kept(r) <= e.pll && e.kept(r) == owned(e, W, r, I));
  // Token level: position -> (owner_rank, local_index) maps the span onto the kept slots of the
  // ranks (forward) and every kept slot holds a position of the span (onto); global_position is
  // the inverse, so distinct (rank, slot) pairs are distinct rows: each position exactly once.
  const expr o = owner_rank(pos, I, W), li = local_index(pos, I, W);
  const expr g = global_position(L, r, I, W);
  const std::vector<expr> fwd = stripe_lemmas(enc, pos, W, I), bwd = slot_lemmas(enc, rk, L, W, I);
  for (const EntryView& e : entries) {
    direct(enc, e, fwd, "token-owner-row-" + e.tag,
           "a position p of the span owned by o sits in one of o's kept slots, which holds p",
           z3::implies(e.start <= pos && pos < e.end,
                       e.local_start <= li && li < e.local_start + e.kept(o) && global_position(li, o, I, W) == pos));
    direct(enc, e, bwd, "token-onto-" + e.tag,
           "every kept slot L of rank r is a gathered row holding a position of the span owned by r",
           z3::implies(e.local_start <= L && L < e.local_start + e.kept(r), L < e.local_start + e.pll && e.start <= g &&
                                                                                g < e.end && owner_rank(g, I, W) == r &&
                                                                                local_index(g, I, W) == L));
  }
}

}  // namespace cp::smt::detail

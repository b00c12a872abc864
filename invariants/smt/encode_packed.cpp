// The packed planner (v5-packed, v6-current): one arbitrary step of the greedy loop (steps.h)
// with an induction hypothesis, and its sliced steps (the split grid: concrete B, W, I, every
// query linear; the symbolic sliced I-3). The closed lemma chains are packed_chains.cpp; I-8 and
// I-9 on the split grid are the step's two pieces as chunk entries (encode_entry.cpp).
#include <stdexcept>

#include "invariants/smt/packed_step.h"
#include "reference/dcp/ownership.h"

namespace cp::smt::detail {

PackedStep::PackedStep(z3::context& ctx, Z3Scope& sc, Encoding& enc, const TaskKey& key_, const Domain& d_,
                       bool split_mode_, bool dcp_, const Triple* tr)
    : key(key_),
      d(&d_),
      split_mode(split_mode_),
      dcp(dcp_),
      aligns_to_block(packed_aligns_to_block(kBuilder, key_.platform)),
      c(make_common(ctx, enc, d_, key_.version, dcp_, 2, d_.dcp_max, tr)),
      S(c.S),
      W(c.W),
      I(c.I),
      B(c.B),
      V(I * W),
      // Step 1 of plan_packed: alignment, budgets, Mmax.
      pp(steps::packed_params(info(key_.version).packed, key_.platform, kBuilder, S, B, W, I, dcp_)),
      // One arbitrary step of the greedy loop (step 2). Induction hypothesis: start is a multiple
      // of align (0 for the first piece) and the open chunk's rows fit the budget.
      cx(ctx.int_const("ctx")),
      ks(ctx.int_const("start_div_align")),
      start(ctx.int_const("start")),
      rows(ctx.int_const("rows")),
      k(ctx.int_const("split_div_align")),
      remaining(ctx),
      full(ctx),
      take_all(ctx),
      cap(ctx),
      kmax(ctx),
      split(ctx),
      fits_k(ctx),
      local_start(ctx),
      M1(ctx),
      T(ctx) {
  const expr &align = pp.align, &rb = pp.row_budget, &Mmax = pp.Mmax;
  fact(enc, cx >= 1, {cx});
  // The split grid assumes no upper bound on ctx (a proof holds for every context length); its
  // counterexample search asks for one inside the domain first.
  if (split_mode)
    enc.search_hints.push_back(cx <= ctx.int_val(d_.ctx_max));
  else
    bound(enc, cx <= ctx.int_val(d_.ctx_max), {cx});
  fact(enc, ks >= 0 && start == align * ks && start < cx, {start, ks});
  fact(enc, rows >= 0 && rows <= rb, {rows});
  enc.shown.insert(enc.shown.end(), {{"ctx", cx}, {"start", start}, {"rows", rows}, {"split_div_align", k}});
  remaining = cx - start;
  full = need(start, remaining);
  take_all = steps::packed_takes_all(pp, rows, start, cx, I, W, dcp);
  cap = arith::packed_split_cap(remaining, align, Mmax);  // named in lemma I-2's chain
  kmax = steps::packed_kmax(pp, start, cx);
  // The binary search's postcondition (pred(0) holds since rows <= rb, so this is what the
  // search returns). A context-free request closes the chunk (rows := 0; the chains prove that
  // state is in the hypothesis again), so the step encoded here is the one for ctx >= 1.
  split = k * align;
  fits_k = steps::packed_split_fits(pp, rows, start, k, I, W, dcp);
  fact(enc, steps::packed_split_postcondition(pp, rows, start, cx, k, I, W, dcp), {k});
  local_start = steps::packed_local_start(start, I, W);  // plan_packed's add(): local start
  enc.built = Mmax > 0;                                  // else the planner asserts (I-2)
  enc.method = "lemma chain over one arbitrary greedy step (induction), symbolic B/W/I";
  enc.unbounded = true;
  if (split_mode) {
    enc.method = "split grid (concrete B, W, I): one arbitrary greedy step (induction), any ctx, linear arithmetic";
    enc.unbounded = false;
    enc.to_case = [c = c, cx = cx, key = key](const z3::model& m) {
      Case kcase = base_case(m, c, key.version, key.platform);
      kcase.ctx = {get(m, cx)};
      kcase.q = {16};
      return kcase;
    };
  }
  // The sliced chains' shared lemma D: align = V*M1 (fresh M1 >= 1), start = V*T (fresh T >= 0).
  M1 = sc.fresh("M1");
  T = sc.fresh("T");
}

namespace {

// I-8 and I-9 on the split grid (concrete B, W, I): the entries the greedy step emits -- the
// take-all piece [start, ctx) and the split piece [start, start + k*align) when k >= 1 (add() in
// plan_packed) -- with the planner's local_start and padded_local_len (packed_local_start,
// packed_need) and the reorg's kept rows (reorg_kept_rows of the rank's local context length).
// Every step is closed over what the pieces need: start = align*ks < ctx (the induction
// hypothesis) and, for the split piece, k*align <= remaining - 1 (the search's postcondition,
// its own step). The rest of the step (rows, S, the fit tests) only slows the solver: with it in
// the cone the token-level queries of B=64, W=3, I=32 took over 100 s each, closed under 1 s.
void split_I8_I9(z3::context& ctx, Z3Scope& sc, const PackedStep& p, Encoding& enc) {
  if (!p.split_mode) {  // the symbolic sliced mode has the chains for both
    enc.na = "not encoded (the lemma chains prove I-8 and I-9)";
    return;
  }
  const expr &W = p.W, &I = p.I, &cx = p.cx;
  LemmaChain lc(ctx, sc, enc);
  const std::vector<expr> hs = LemmaChain::cat(lc.dom(p.start), lc.dom(cx));
  const expr inside = lc.closed("split-inside", "k <= kmax: k*align <= max(cap, 0) <= remaining - 1",
                                p.split >= 0 && p.split <= p.remaining - 1, LemmaChain::cat(lc.dom(p.k), hs));
  auto piece = [&](const expr& is, const expr& len, std::string tag, std::vector<expr> h) {
    const expr pll = p.need(p.start, len);
    return EntryView{is,
                     p.start,
                     p.start + len,
                     p.local_start,
                     pll,
                     [&p, &W, &I, &cx, pll](const expr& r) {
                       return arith::reorg_kept_rows(dcp_local_len(cx, W, r, I), p.local_start, pll);
                     },
                     std::move(tag),
                     std::move(h)};
  };
  const std::vector<EntryView> entries{piece(p.take_all, p.remaining, "all", hs),
                                       piece(!p.take_all && p.k >= 1, p.split, "split", LemmaChain::cat(hs, {inside}))};
  if (p.key.invariant == InvariantId::I8_local_length_bookkeeping)
    entry_I8_steps(ctx, enc, cx, lc.dom(cx), entries, W, I);
  else
    entry_I9_steps(ctx, enc, entries, W, I);
}

}  // namespace

Encoding encode_packed(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d) {
  Encoding enc;
  const bool split_mode = packed_split_mode(key.invariant, d);
  const auto grid = packed_grid(d);
  const Triple* tr = split_mode ? &grid.at(static_cast<std::size_t>(key.split)) : nullptr;
  const bool dcp = split_mode ? tr->W > 1 : key.split == 1;
  const InvariantId inv = key.invariant;
  using enum InvariantId;
  if (!dcp && encoded_only_under_dcp(inv)) {
    enc.na = "no DCP (dcp=1)";
    return enc;
  }
  if (dcp && d.dcp_max < 2) {
    enc.na = "domain has no dcp >= 2";
    return enc;
  }
  const PackedStep p(ctx, sc, enc, key, d, split_mode, dcp, tr);
  if (!split_mode && lemma_chain_encoded(inv, dcp, p.c.sized))
    encode_packed_chain(ctx, sc, p, enc);
  else if (inv == I8_local_length_bookkeeping || inv == I9_reorg_exact)
    split_I8_I9(ctx, sc, p, enc);
  else
    encode_packed_sliced(ctx, sc, p, enc);
  return enc;
}

// Sliced steps: each query is sliced to its goal's cone of influence (prover.cpp). With concrete
// B, W, I (the split grid) only the direct goals are asked: every query is linear.
void encode_packed_sliced(z3::context& ctx, Z3Scope& sc, const PackedStep& p, Encoding& enc) {
  using enum InvariantId;
  const InvariantId inv = p.key.invariant;
  const bool split_mode = p.split_mode, dcp = p.dcp;
  const Common& c = p.c;
  const expr &S = p.S, &W = p.W, &I = p.I, &B = p.B, &V = p.V;
  const expr &align = p.pp.align, &rb = p.pp.row_budget, &Mmax = p.pp.Mmax;
  const expr &cx = p.cx, &ks = p.ks, &start = p.start, &rows = p.rows, &k = p.k;
  const expr &remaining = p.remaining, &full = p.full, &take_all = p.take_all, &cap = p.cap, &kmax = p.kmax;
  const expr &split = p.split, &local_start = p.local_start, &M1 = p.M1, &T = p.T;
  const TaskKey& key = p.key;
  auto need = [&](const expr& s, const expr& len) { return p.need(s, len); };
  auto step = [&](std::string name, std::string comment, expr goal, std::optional<expr> later = std::nullopt,
                  bool direct = false) {
    // With concrete B, W, I every query is linear: the direct goal needs no lemma chain.
    if (split_mode && !direct) return;
    enc.steps.push_back({std::move(name), std::move(comment), std::move(goal), std::move(later), direct});
  };
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
      step("S-ge-B", "round_up(max(S0, ...), B) >= B", S >= B);
    }
    step("S-ge-align", "S >= align", S >= align);
  };

  switch (inv) {
    case I1_workspace_div_dcp: {
      // The sizing's round_up quotient q (S = q*A), named by the rule (steps::workspace_sizing).
      const std::optional<expr> q =
          c.sized && !split_mode && c.rounding ? std::optional<expr>(c.rounding->parts.q) : std::nullopt;
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
      const expr toks_all = rows + full, toks_split = rows + need(start, split);
      step("budget", "the chunk's padded local rows stay <= S // W after adding the piece; the forward asserts hold",
           z3::implies(take_all, toks_all <= rb && forward_asserts_hold(toks_all, S, W)) &&
               z3::implies(!take_all, toks_split <= rb && forward_asserts_hold(toks_split, S, W)),
           std::nullopt, true);
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
}

}  // namespace cp::smt::detail

// The old planner (v0-early .. v4-pr47327, pr41229): M = round_down(S // n, round_to) through
// steps::old_chunk_width; the prefill count n is split concretely (1 .. prefills_max) because
// the version divides by it; an arbitrary chunk index c stands for every chunk. Direct queries,
// each sliced to its goal's cone of influence.
#include <array>
#include <optional>

#include "invariants/smt/encode_internal.h"
#include "invariants/smt/lemma_chain.h"
#include "reference/dcp/ownership.h"

namespace cp::smt::detail {

namespace {

// pr41229 sizes S = round_down(x, W) = q*W with q = x // W (arith::workspace_pr41229_rounding
// names q and the multiple W): a closed chain (symbolic W, any x) instead of the sliced query
// Z3 4.8.12 leaves UNKNOWN: S = q*W, floordiv(q*W, W) = q (lemma-monotone), so S mod W =
// S - W*q = 0. Returns false without that rounding (explicit workspace).
bool chain_pr41229_I1(z3::context& ctx, Z3Scope& sc, const Common& c, Encoding& enc) {
  if (!c.sized || !c.rounding || !z3::eq(c.rounding->multiple, c.W)) return false;
  LemmaChain lc(ctx, sc, enc);
  const expr q = c.rounding->parts.q;
  const expr sq = lc.closed("S-is-W-times", "S = round_down(x, W) = (x // W)*W", c.S == q * c.W, lc.dom(c.S));
  const expr wpos = lc.closed("W-positive", "W >= 2", c.W >= 1, lc.dom(c.W));
  const expr qS = cp::floordiv(c.S, c.W);
  const expr qSstep =
      lc.closed("S-div-W", "floordiv(q*W, W) = q", qS == q, {sq, lc.def_of(qS), wpos, lc.mono(c.W, q - qS)});
  lc.closed("S-mod-W", "S mod W = S - W*(S // W) = q*W - W*q = 0", cp::floormod(c.S, c.W) == 0, {sq, qSstep}, true);
  // Definedness: W, B, I and every lcm (the chunk width's round_to) are positive.
  std::vector<expr> defh =
      LemmaChain::cat(LemmaChain::cat(LemmaChain::cat(lc.dom(c.W), lc.dom(c.B)), lc.dom(c.I)), {wpos});
  for (const auto& L : sc.lcms()) defh.push_back(lc.def_of(L.l));
  enc.definedness_hyps = defh;
  enc.method = "closed lemma chain: S = (x // W)*W, symbolic B/W/I, any max_model_len, max_num_seqs";
  enc.unbounded = true;  // LemmaChain::closed clears it if a step lists an upper bound
  return true;
}

// The closed chains the old family's rules carry, one row per (sizing rule, invariant): the
// encoder looks its case up here, not at the version or at the terms. A chain returns false
// where its rule's decomposition does not apply (explicit workspace): the sliced query then.
struct RuleChain {
  SizingRule sizing;
  InvariantId invariant;
  bool (*encode)(z3::context&, Z3Scope&, const Common&, Encoding&);
};
constexpr std::array kRuleChains{
    RuleChain{SizingRule::pr41229, InvariantId::I1_workspace_div_dcp, chain_pr41229_I1},
};
bool rule_chain(SizingRule r, InvariantId inv, z3::context& ctx, Z3Scope& sc, const Common& c, Encoding& enc) {
  for (const RuleChain& rc : kRuleChains)
    if (rc.sizing == r && rc.invariant == inv) return rc.encode(ctx, sc, c, enc);
  return false;
}

}  // namespace

Encoding encode_old(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d) {
  Encoding enc;
  using enum InvariantId;
  const InvariantId inv = key.invariant;
  const VersionInfo& vi = info(key.version);
  const bool needs_dcp = encoded_only_under_dcp(inv);
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
  // I-8 and I-9 only with B, W, I pinned: numerals, so the entry's queries are linear.
  const bool entry_inv = inv == I8_local_length_bookkeeping || inv == I9_reorg_exact;
  const std::optional<Triple> tri = entry_inv ? pinned_triple(d, key.version) : std::nullopt;
  if (entry_inv && !tri) {
    enc.na = "not encoded unless block, dcp and interleave are pinned";
    return enc;
  }
  Common c = make_common(ctx, enc, d, key.version, dcp || (!page_gather && vi.supports_dcp && d.dcp_max >= 2),
                         dcp ? 2 : 1, vi.supports_dcp ? d.dcp_max : 1, tri ? &*tri : nullptr);
  const expr &S = c.S, &W = c.W, &I = c.I, &B = c.B;
  if (c.sized) fact(enc, c.mns >= ctx.int_val(n), {c.mns});  // a step has at most max_num_seqs prefills
  const expr nn = ctx.int_val(n);
  const expr M = steps::old_chunk_width(vi.floor_divide, key.platform, kBuilder, S, nn, B, W);
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
  const expr PL = dcp ? steps::old_local_chunk(vi.floor_divide, M, I, W) : ctx.int_val(0);
  const auto entry0 = steps::old_entry(vi.floor_divide, cxs[0], cc, M, PL, I, W);
  const expr &start = entry0.start, &len0 = entry0.len, &local_start = entry0.local_start;
  auto local_len = [&](const expr& cx) {
    return steps::old_entry(vi.floor_divide, cx, cc, M, PL, I, W).padded_local_len;
  };

  switch (inv) {
    case I1_workspace_div_dcp:
      if (rule_chain(vi.sizing, inv, ctx, sc, c, enc)) break;
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
      step("budget", "toks = sum of padded local lengths of chunk c: the forward asserts (steps.h) hold",
           z3::implies(in_plan, forward_asserts_hold(toks, S, W)));
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
    case I8_local_length_bookkeeping:
    case I9_reorg_exact: {
      // Request 0's entry of chunk c (every request's is the same rule on its own context).
      const EntryView e{in_plan,
                        start,
                        start + len0,
                        local_start,
                        entry0.padded_local_len,
                        [&](const expr& r) {
                          return steps::old_kept_rows(vi.floor_divide, cxs[0], cc, M, W, r,
                                                      dcp_local_len(cxs[0], W, r, I), entry0);
                        },
                        "entry"};
      enc.method = "split n = " + std::to_string(n) + ", pinned B/W/I (numerals), arbitrary chunk index";
      if (inv == I8_local_length_bookkeeping)
        entry_I8_steps(ctx, enc, cxs[0], std::nullopt, {e}, W, I);
      else
        entry_I9_steps(ctx, enc, {e}, W, I);
      break;
    }
    default: enc.na = "not encoded";
  }
  return enc;
}

}  // namespace cp::smt::detail

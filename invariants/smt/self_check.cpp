// The prover's self-checks: the z3::expr instantiation of the planner templates agrees with the
// cp::Int one on random concrete inputs, and the generic lemmas with symbolic divisors.
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "invariants/smt/encode.h"
#include "invariants/smt/encode_internal.h"
#include "invariants/smt/prover.h"
#include "reference/dcp/ownership.h"
#include "reference/planner/arith.h"

namespace cp::smt {

std::string self_check_arith(std::uint64_t seed, int samples) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  z3::context ctx;
  auto val = [&](const z3::expr& e) {
    std::int64_t v = 0;
    if (!e.simplify().is_numeral_i64(v)) throw std::logic_error("not a numeral: " + e.to_string());
    return v;
  };
  for (int s = 0; s < samples; ++s) {
    const std::int64_t B = pick(1, 1 << 14), W = pick(1, 64);
    std::int64_t I = pick(1, B);
    while (B % I) --I;
    const std::int64_t mml = pick(1, 1 << 21), mns = pick(1, 1024), n = pick(1, 16);
    const std::int64_t S = pick(1, 1 << 24), ctxv = pick(0, 1 << 21), c = pick(0, 64), p = pick(0, 1 << 22),
                       r = pick(0, W - 1);
    const Int iB = B, iW = W, iI = I, imml = mml, imns = mns, iS = S, ictx = ctxv, ic = c, ip = p, ir = r, in = n;
    const z3::expr zB = ctx.int_val(B), zW = ctx.int_val(W), zI = ctx.int_val(I), zmml = ctx.int_val(mml),
                   zmns = ctx.int_val(mns), zS = ctx.int_val(S), zctx = ctx.int_val(ctxv), zc = ctx.int_val(c),
                   zp = ctx.int_val(p), zr = ctx.int_val(r), zn = ctx.int_val(n);
    struct Pair {
      std::string what;
      std::int64_t a, b;
    };
    const Int M = arith::old_chunk_width(iS, in, iB);
    const z3::expr zM = arith::old_chunk_width(zS, zn, zB);
    const Int PL = arith::old_local_chunk(M.get() > 0 ? M : Int(1), iI, iW);
    const z3::expr zPL = arith::old_local_chunk(val(zM) > 0 ? zM : ctx.int_val(1), zI, zW);
    std::vector<Pair> pairs;
    // Every rule a version row can name, derived from the rules' own lists: a new rule is
    // checked here with no edit.
    for (SizingRule rule : kSizingRules)
      pairs.push_back({std::string("workspace_size/") + std::string(name(rule)),
                       steps::workspace_size(rule, imml, imns, iB, iW, iI).get(),
                       val(steps::workspace_size(rule, zmml, zmns, zB, zW, zI))});
    for (Platform pf : {Platform::cuda, Platform::rocm})
      for (Builder bd : {Builder::dense, Builder::sparse}) {
        for (RoundingRule rule : kRoundingRules)
          pairs.push_back({std::string("old_round_to/") + std::string(name(rule)),
                           steps::old_round_to(rule, pf, bd, iB, iW).get(),
                           val(steps::old_round_to(rule, pf, bd, zB, zW))});
        for (PackedAlignRule rule : kPackedAlignRules)
          pairs.push_back({"packed_block_align", steps::packed_block_align(PackedRules{rule}, pf, bd, iB).get(),
                           val(steps::packed_block_align(PackedRules{rule}, pf, bd, zB))});
      }
    const Pair formulas[] = {
        {"old_chunk_width", M.get(), val(zM)},
        {"old_span_len", arith::old_span_len(ictx, ic, M).get(), val(arith::old_span_len(zctx, zc, zM))},
        {"old_local_len", arith::old_local_len(ictx, ic, PL, iI, iW).get(),
         val(arith::old_local_len(zctx, zc, zPL, zI, zW))},
        {"owner_rank", owner_rank(ip, iI, iW).get(), val(owner_rank(zp, zI, zW))},
        {"local_index", local_index(ip, iI, iW).get(), val(local_index(zp, zI, zW))},
        {"dcp_local_len", dcp_local_len(ip, iW, ir, iI).get(), val(dcp_local_len(zp, zW, zr, zI))},
        {"padded_local_rows", padded_local_rows(ip, iI, iW).get(), val(padded_local_rows(zp, zI, zW))},
        {"packed_rows_needed", arith::packed_rows_needed(ip, ictx, iI, iW, W > 1).get(),
         val(arith::packed_rows_needed(zp, zctx, zI, zW, W > 1))},
        {"packed_split_cap", arith::packed_split_cap(ictx + 1, iB, iS).get(),
         val(arith::packed_split_cap(zctx + 1, zB, zS))},
        {"packed_alignment", arith::packed_alignment(iB, iW, iI).get(), val(arith::packed_alignment(zB, zW, zI))},
        {"reorg_kept_rows", arith::reorg_kept_rows(ictx, ip, ic).get(), val(arith::reorg_kept_rows(zctx, zp, zc))},
    };
    pairs.insert(pairs.end(), std::begin(formulas), std::end(formulas));
    for (const auto& pr : pairs)
      if (pr.a != pr.b) {
        std::ostringstream o;
        o << pr.what << ": Int " << pr.a << " vs z3 " << pr.b << " at B=" << B << " W=" << W << " I=" << I
          << " mml=" << mml << " mns=" << mns << " S=" << S << " ctx=" << ctxv << " c=" << c << " p=" << p << " r=" << r
          << " n=" << n;
        return o.str();
      }
    // Symbolic divisors through the witness encoding: the solver must agree with Int as well.
    {
      Z3Scope scope(ctx);
      const z3::expr x = ctx.int_const("x"), d = ctx.int_const("d");
      const z3::expr q = cp::floordiv(x, d);
      z3::solver sol(ctx);
      for (const auto& e : scope.defs()) sol.add(e);
      const std::int64_t xv = pick(-(1 << 20), 1 << 22), dv = pick(1, 1 << 14);
      sol.add(x == ctx.int_val(xv) && d == ctx.int_val(dv));
      if (sol.check() != z3::sat) return "witness floordiv: no model";
      std::int64_t qv = 0;
      sol.get_model().eval(q, true).is_numeral_i64(qv);
      if (qv != floordiv(Int(xv), Int(dv)).get())
        return "witness floordiv(" + std::to_string(xv) + ", " + std::to_string(dv) + ") = " + std::to_string(qv);
    }
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> check_lemma_library(double timeout_s) {
  std::vector<std::pair<std::string, std::string>> out;
  z3::context ctx;
  auto run = [&](const std::string& nm, const std::function<z3::expr(Z3Scope&)>& build) {
    Z3Scope scope(ctx);
    z3::expr goal = build(scope);
    z3::solver s(ctx);
    z3::params p(ctx);
    // rlimit, not "timeout": Z3 4.8.12's scoped_timer can deadlock under load (seen here: the
    // main thread blocked on the timer pool's mutex for 20 minutes); rlimit is deterministic.
    p.set("rlimit", static_cast<unsigned>(timeout_s * 4.0e6));
    s.set(p);
    for (const auto& e : scope.defs()) s.add(e);
    s.add(!goal);
    const auto r = s.check();
    out.emplace_back(nm, r == z3::unsat ? "proved" : r == z3::sat ? "refuted" : "unknown");
  };
  const z3::expr w = ctx.int_const("w"), L = ctx.int_const("L"), t = ctx.int_const("t"), K = ctx.int_const("K"),
                 d = ctx.int_const("d"), i = ctx.int_const("i"), m = ctx.int_const("m"), Q = ctx.int_const("Q");
  run("round_down names its quotient: w - w mod L = L*(w div L)",
      [&](Z3Scope&) { return z3::implies(L >= 1 && w >= 0, cp::round_down(w, L) == w - cp::floormod(w, L)); });
  run("multiple-of with a fresh factor: (d*K) mod d = 0",
      [&](Z3Scope&) { return z3::implies(d >= 1, cp::floormod(d * K, d) == 0); });
  run("ring identity: (d*i*m)*Q = d*(i*m*Q)", [&](Z3Scope&) { return (d * i * m) * Q == d * (i * m * Q); });
  run("division of an exact multiple: cdiv(D*t, D) = t",
      [&](Z3Scope&) { return z3::implies(d >= 1 && t >= 0, cp::cdiv(d * t, d) == t); });
  run("padded local rows at a virtual-block boundary: cdiv(I*W*t, I*W)*I*W = I*W*t", [&](Z3Scope&) {
    return z3::implies(i >= 1 && w >= 1 && t >= 0, padded_local_rows((i * w) * t, i, w) * w == (i * w) * t);
  });
  return out;
}

}  // namespace cp::smt

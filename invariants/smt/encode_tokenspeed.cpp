// TokenSpeed (other-engines.md §3): T-3, the index kernel's first owned position of rank r in a
// span [s, s + L) against the host's s + (r - s) mod W, through the family's steps
// (reference/planner/families/tokenspeed/steps.h) with the version's KernelModulo. Every chunk
// starts at s = c*chunk_len and holds L <= chunk_len <= s rows of a request when c >= 1 (chunk 0
// starts at 0), so the span ranges over s >= 0, L >= 1 with s = 0 or L <= s; each such span is
// chunk 1 of a one-request batch with capacity s (the case the model is replayed as). Rank r
// reads the span only when it owns a position of it (count[r][i] >= 1, T-1's count).
//
// The floor kernel's proof is a two-step chain (Z3 4.8.12 does not decide the query alone): with
// the witnesses q1 = s // W, q2 = (r - s mod W) // W, q3 = (r - s) // W the two remainders differ
// by W*(q1 - q2 + q3) and both lie in [0, W), so an instance of lemma-monotone at
// (W, q1 - q2 + q3) closes it. The truncating kernel's query is sat: its model is the replay.
#include "invariants/smt/engine_internal.h"
#include "invariants/smt/lemma_chain.h"
#include "reference/planner/families/tokenspeed/steps.h"

namespace cp::smt::detail {

void encode_tokenspeed_T3(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t,
                          Encoding& enc) {
  const EngineCommon c = make_engine_common(ctx, enc, d, key.version, true);
  const expr s = ctx.int_const("span_start"), L = ctx.int_const("span_len"), r = ctx.int_const("rank");
  fact(enc, s >= 0 && L >= 1 && (s == 0 || L <= s), {s, L});
  fact(enc, r >= 0 && r < c.W, {r});
  enc.search_hints.insert(enc.search_hints.end(), {s <= 1 << 16, L <= 1 << 12});
  enc.shown.insert(enc.shown.end(), {{"span_start", s}, {"span_len", L}, {"rank", r}});
  const KernelModulo km = info(key.version).tokenspeed.first_owned;
  const expr sends = steps::owned_in_span(r, s, L, c.W) >= 1;
  const expr kernel = steps::ts_first_owned_kernel(r, s, c.W, km), host = steps::ts_first_owned_host(r, s, c.W);
  enc.shown.insert(enc.shown.end(), {{"kernel_first_owned", kernel}, {"host_first_owned", host}});
  // The witnesses the terms above introduced (memoised: the same (numerator, divisor) terms).
  LemmaChain lc(ctx, sc, enc);
  const expr wpos = lc.closed("W-positive", "W >= 2 > 0", c.W >= 1, lc.dom(c.W));
  const expr q1 = cp::floordiv(s, c.W), q2 = cp::floordiv(r - cp::floormod(s, c.W), c.W);
  const expr q3 = cp::floordiv(r - s, c.W);
  const expr mono = lc.mono(c.W, q1 - q2 + q3);
  engine_goal(enc, sc, "first-owned",
              std::string("a rank that owns a position of the span starts reading at the host's first owned one (") +
                  std::string(name(km)) + " %)",
              z3::implies(sends, kernel == host), {wpos, mono});
  enc.method = "lemma chain (lemma-monotone), symbolic W/r/s/L (any chunk of any batch): the index kernel's " +
               std::string(name(km)) + " % (steps.h)";
  enc.to_case = [c, s, L, key](const z3::model& m) {
    Case k = engine_base_case(m, c, key);
    const std::int64_t sv = get(m, s), lv = get(m, L);
    k.workspace = sv > 0 ? sv : lv;  // chunk_len = C // 1: the span is chunk 1 (or chunk 0 when s = 0)
    k.ctx = {sv + lv};
    k.q = {16};
    return k;
  };
}

}  // namespace cp::smt::detail

// SGLang (other-engines.md §2): G-10, the one-shot DCP path's strided read, and G-4, the
// zero-length rows of the chunked prefix cache before #22688, through the family's steps
// (reference/planner/families/sglang/steps.h, rectangular_steps.h). Both need the batch's
// requests one by one (a sum over them): split into n requests, symbolic in everything else.
#include "invariants/smt/engine_internal.h"
#include "reference/planner/families/sglang/steps.h"

namespace cp::smt::detail {
// G-10 as the rule the layout relies on (check_strided_read raises where it fails): when the
// prefixes fit C (the one-shot path), rank r's strided read of the concatenated prefix indices
// yields as many rows as get_dcp_lens gives it over the requests, for every rank r.
void encode_sglang_G10(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t n,
                       Encoding& enc) {
  if (info(key.version).sglang.read != SGLangPrefixRead::strided_concat) {
    enc.na = "owner-mask read (the chunked path): no premise on the offsets";
    return;
  }
  const EngineCommon c = make_engine_common(ctx, enc, d, key.version, true);
  const std::vector<expr> cxs = engine_contexts(ctx, enc, d, n, 0, 64);
  expr total = ctx.int_val(0), want = ctx.int_val(0);
  const expr r = ctx.int_const("rank");
  fact(enc, r >= 0 && r < c.W, {r});
  enc.shown.push_back({"rank", r});
  for (const auto& x : cxs) {
    total = total + x;
    want = want + steps::owned_in_span(r, ctx.int_val(0), x, c.W);
  }
  fact(enc, total <= c.S, {c.S});  // the one-shot path: sum of prefixes <= C
  const expr have = steps::sglang_strided_rows(r, total, c.W);
  enc.shown.insert(enc.shown.end(), {{"strided_rows", have}, {"get_dcp_lens_sum", want}});
  engine_goal(enc, sc, "strided-read", "rank r's every-W-th read of the concatenated prefixes = sum_i get_dcp_lens",
              have == want);
  enc.method = "closed query per batch size n (bounded batch), symbolic W/r/C/prefixes";
  enc.to_case = engine_batch_case(c, cxs, key);
}

// G-4: no chunk row with kv_len = 0 reaches the merge unguarded (versions without
// prefix_chunk_has_zero_kv): every request of a chunk that exists has a non-empty piece.
void encode_sglang_G4(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t n,
                      Encoding& enc) {
  if (info(key.version).sglang.zero_kv_flag) {
    enc.na = "prefix_chunk_has_zero_kv marks the chunk and the fix-up writes (0, -inf) (#22688)";
    return;
  }
  const EngineCommon c = make_engine_common(ctx, enc, d, key.version, false);
  const std::vector<expr> cxs = engine_contexts(ctx, enc, d, n, 0, 1 << 12);
  const expr cl = steps::rect_chunk_len(c.S, ctx.int_val(n)), cc = ctx.int_const("chunk");
  fact(enc, cc >= 0, {cc});
  expr longest = ctx.int_val(0), nonempty = ctx.bool_val(true);
  for (const auto& x : cxs) {
    longest = cp::max(longest, x);
    nonempty = nonempty && steps::rect_len(x, cc, cl) >= 1;
  }
  enc.shown.insert(enc.shown.end(), {{"chunk", cc}, {"chunk_len", cl}});
  enc.built = cl >= 1;  // else chunk_len = 0 and the next step divides by it (G-1)
  engine_goal(enc, sc, "no-zero-kv", "every request of an existing chunk c (c*chunk_len < longest) has kv_len >= 1",
              z3::implies(cl >= 1 && cc * cl < longest, nonempty));
  enc.method = "closed query per batch size n (bounded batch), symbolic C/prefixes/chunk";
  enc.to_case = engine_batch_case(c, cxs, key);
}

}  // namespace cp::smt::detail

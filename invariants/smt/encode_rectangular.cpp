// The rectangular split SGLang and TokenSpeed plan with (rectangular_steps.h; other-engines.md
// §2.1, §3.1): chunk_len = C // bs over every request of the batch, chunk c of every request is
// [c*chunk_len, min(prefix, (c+1)*chunk_len)). I-3 (the chunks tile each prefix and cover it) for
// any batch; I-4 (a chunk's rows fit C) per batch size, since the rows are a sum over requests.
// SGLang's one-shot path (sglang-oneshot-dcp, sum of prefixes <= C) is one chunk of every
// prefix: I-4 holds on it by the dispatch's own test, and I-3 is encoded for the chunked path.
#include "invariants/smt/engine_internal.h"
#include "reference/planner/families/rectangular_steps.h"
#include "reference/planner/families/sglang/steps.h"

namespace cp::smt::detail {
namespace {

// lemma-piece (generic, proved once over fresh symbols): a span of rect_len is 0 .. chunk_len
// rows. Its instances (checked by substitution, not solved) give the budget step one fact per
// request, so that step is linear in n instead of a case split over every request's min/max.
struct PieceLemma {
  int idx;
  expr x, c, cl;
};
PieceLemma piece_lemma(z3::context& ctx, Encoding& enc) {
  PieceLemma l{static_cast<int>(enc.steps.size()), ctx.int_const("lemma_prefix"), ctx.int_const("lemma_chunk"),
               ctx.int_const("lemma_chunk_len")};
  const expr t = steps::rect_len(l.x, l.c, l.cl);
  Step s{"lemma-piece", "generic: chunk_len >= 1 implies 0 <= rect_len(prefix, c, chunk_len) <= chunk_len",
         z3::implies(l.cl >= 1, t >= 0 && t <= l.cl), std::nullopt, false};
  s.hyps = std::vector<expr>{};
  s.abstract_products = true;
  enc.steps.push_back(std::move(s));
  return l;
}
expr piece_instance(z3::context& ctx, Encoding& enc, const PieceLemma& l, const expr& x, const expr& c,
                    const expr& cl) {
  z3::expr_vector from(ctx), to(ctx);
  from.push_back(l.x), from.push_back(l.c), from.push_back(l.cl);
  to.push_back(x), to.push_back(c), to.push_back(cl);
  Step s{"piece-instance", "instance of lemma-piece: prefix := " + x.to_string(),
         enc.steps[static_cast<std::size_t>(l.idx)].goal.substitute(from, to), std::nullopt, false};
  s.instance_of = l.idx;
  s.inst_from = {l.x, l.c, l.cl};
  s.inst_to = {x, c, cl};
  enc.steps.push_back(s);
  return s.goal;
}

}  // namespace

// One request's prefix P and the batch's longest prefix M >= P; bs >= 1 requests (symbolic).
void encode_rect_I3(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t, Encoding& enc) {
  if (info(key.version).sglang.read == SGLangPrefixRead::strided_concat) {
    enc.na = "the one-shot path's single chunk is encoded as G-10; its chunked path is sglang-current's";
    return;
  }
  const EngineCommon c = make_engine_common(ctx, enc, d, key.version, false);
  const expr bs = ctx.int_const("batch_size"), P = ctx.int_const("prefix"), M = ctx.int_const("longest");
  const expr cc = ctx.int_const("chunk");
  fact(enc, bs >= 1, {bs});
  fact(enc, P >= 0 && M >= P && M >= 1, {P, M});
  fact(enc, cc >= 0, {cc});
  bound(enc, M <= ctx.int_val(d.ctx_max), {M});
  enc.search_hints.insert(enc.search_hints.end(), {bs <= 4, M <= 1 << 12});
  enc.shown.insert(enc.shown.end(), {{"batch_size", bs}, {"prefix", P}, {"longest", M}, {"chunk", cc}});
  const expr cl = steps::rect_chunk_len(c.S, bs);
  const expr K = cp::cdiv(M, cl);  // plan_rectangular's chunk count
  const expr len = steps::rect_len(P, cc, cl);
  const expr e0 = cp::min(P, cc * cl), e1 = cp::min(P, (cc + 1) * cl);
  enc.built = cl >= 1;  // else the planner crashes (G-1)
  enc.shown.insert(enc.shown.end(), {{"chunk_len", cl}, {"chunks", K}});
  engine_goal(enc, sc, "tiling-and-cover",
              "chunk c's span of a prefix is [min(P, c*cl), min(P, (c+1)*cl)), and K = cdiv(M, cl) chunks cover it",
              z3::implies(cl >= 1, len == e1 - e0 && K * cl >= P));
  enc.method = "closed query, symbolic bs/C/prefix/chunk (any chunk of any batch)";
  enc.to_case = [c, bs, P, M, key](const z3::model& m) {
    Case k = engine_base_case(m, c, key);
    k.ctx = {get(m, M), get(m, P)};
    for (std::int64_t i = 2; i < get(m, bs); ++i) k.ctx.push_back(0);
    k.ctx.resize(static_cast<std::size_t>(std::max<std::int64_t>(get(m, bs), 1)));
    k.q.assign(k.ctx.size(), 16);
    return k;
  };
}

void encode_rect_I4(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t n, Encoding& enc) {
  const EngineCommon c = make_engine_common(ctx, enc, d, key.version, false);
  const std::vector<expr> cxs = engine_contexts(ctx, enc, d, n, 0, 1 << 12);
  const expr cl = steps::rect_chunk_len(c.S, ctx.int_val(n)), cc = ctx.int_const("chunk");
  fact(enc, cc >= 0, {cc});
  expr longest = ctx.int_val(0), rows = ctx.int_val(0), total = ctx.int_val(0);
  const PieceLemma lemma = piece_lemma(ctx, enc);
  std::vector<expr> pieces;
  for (const auto& x : cxs) {
    longest = cp::max(longest, x);
    rows = rows + steps::rect_len(x, cc, cl);
    total = total + x;
    pieces.push_back(piece_instance(ctx, enc, lemma, x, cc, cl));
  }
  expr exists = cl >= 1 && cc * cl < longest;
  if (info(key.version).sglang.read == SGLangPrefixRead::strided_concat) {  // one-shot when it fits
    rows = cp::select(total <= c.S, total, rows);
    exists = z3::ite(total <= c.S, cc == 0, exists);
  }
  enc.built = cl >= 1;
  enc.shown.insert(enc.shown.end(), {{"chunk", cc}, {"chunk_len", cl}, {"chunk_rows", rows}});
  engine_goal(enc, sc, "budget", "an existing chunk's rows (sum of its spans) fit C: rows <= C",
              z3::implies(exists, rows <= c.S), pieces, true);
  enc.method = "lemma chain (lemma-piece) per batch size n (bounded batch), symbolic C/prefixes/chunk";
  enc.to_case = engine_batch_case(c, cxs, key);
}

}  // namespace cp::smt::detail

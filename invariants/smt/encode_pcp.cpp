// vLLM's PCP virtual rows (vllm-pcp-and-sparse.md §1): P-1 and P-2 over the DualChunkSwap pieces
// of the family's steps (reference/planner/families/pcp/steps.h: pcp_piece_offset, pcp_piece_len,
// pcp_replicates), and P-13 over each rank's rows fed to v6-current's packed steps
// (families/packed/steps.h), as plan_pcp does (§1.7). P-1/P-2 hold per request, so for every
// batch; P-13 is a property of the ranks' whole plans, encoded on the smallest batch that shows
// it (BOUNDED: one prefill, P = DCP = 2, block 16, interleave 1, the first chunk's all-gather),
// whose model replays.
#include "invariants/smt/engine_internal.h"
#include "reference/planner/families/packed/steps.h"
#include "reference/planner/families/pcp/steps.h"

namespace cp::smt::detail {
namespace {

// One prefill request (N cached tokens, q >= 1 new: a q <= 1 request with context decodes) of a
// PCP world of P ranks, C = 2P pieces.
struct PcpRequest {
  expr N, q, P, C;
};
PcpRequest pcp_request(z3::context& ctx, Encoding& enc, const Domain& d) {
  PcpRequest w{ctx.int_const("ctx0"), ctx.int_const("q0"), ctx.int_const("pcp"), ctx.int_val(0)};
  w.C = w.P * 2;
  fact(enc, w.N >= 0 && w.q >= 1 && (w.q >= 2 || w.N == 0), {w.N, w.q});
  bound(enc, w.N <= ctx.int_val(d.ctx_max), {w.N});
  fact(enc, w.P >= 1, {w.P});
  bound(enc, w.P <= ctx.int_val(CaseLimits::max_pcp), {w.P});
  enc.search_hints.insert(enc.search_hints.end(), {w.P <= 4, w.q <= 64, w.N <= 64});
  enc.shown.insert(enc.shown.end(), {{"ctx0", w.N}, {"q0", w.q}, {"pcp", w.P}});
  return w;
}
Case pcp_case(const z3::model& m, const EngineCommon& c, const PcpRequest& w, const TaskKey& key) {
  Case k = engine_base_case(m, c, key);
  k.pcp = get(m, w.P);
  k.ctx = {get(m, w.N)};
  k.q = {get(m, w.q)};
  return k;
}

}  // namespace

// P-1 and P-2 for an arbitrary piece c of an arbitrary prefill (any batch: the rows of each
// request are its own). P-1: the pieces tile [0, q) in order: piece 0 is non-empty and starts at
// 0, a non-empty piece c+1 starts where piece c ends, an empty one follows only a piece that ends
// at q (or an empty one), and the last piece ends at q; a replicated prefill (PCP-C under DCP) is
// one row on every rank. Rank r keeps pieces r and C-1-r, so each piece is on exactly one rank.
// P-2: those two pieces are distinct (C is even), so a rank holds at most two rows of a prefill.
void encode_pcp_pieces(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t,
                       Encoding& enc) {
  const EngineCommon c = make_engine_common(ctx, enc, d, key.version, false);
  const PcpRequest w = pcp_request(ctx, enc, d);
  const PcpRules& rules = info(key.version).pcp;
  const expr replicated =
      rules.replicate_short_under_dcp ? c.W >= 2 && steps::pcp_replicates(w.q, w.C) : ctx.bool_val(false);
  const expr p = ctx.int_const("piece");
  fact(enc, p >= 0 && p < w.C, {p});
  enc.shown.push_back({"piece", p});
  if (key.invariant == InvariantId::P2_pcp_row_shape) {
    const expr r = ctx.int_const("rank");
    fact(enc, r >= 0 && r < w.P, {r});
    enc.shown.push_back({"rank", r});
    engine_goal(enc, sc, "two-pieces", "rank r's pieces r and C-1-r are distinct: at most two rows of a prefill",
                z3::implies(!replicated, r != w.C - 1 - r));
  } else {
    const expr off = steps::pcp_piece_offset(rules.split, w.q, w.C, p);
    const expr len = steps::pcp_piece_len(rules.split, w.q, w.C, p);
    const expr off1 = steps::pcp_piece_offset(rules.split, w.q, w.C, p + 1);
    const expr len1 = steps::pcp_piece_len(rules.split, w.q, w.C, p + 1);
    enc.shown.insert(enc.shown.end(), {{"piece_offset", off}, {"piece_len", len}});
    const expr end = off + len, last = p == w.C - 1;
    const expr tiles = len >= 0 && z3::implies(p == 0, off == 0 && len >= 1) &&
                       z3::implies(!last && len1 >= 1, len >= 1 && off1 == end) &&
                       z3::implies(!last && len1 == 0 && len >= 1, end == w.q) &&
                       z3::implies(last && len >= 1, end == w.q) && z3::implies(len >= 1, end <= w.q);
    engine_goal(enc, sc, "pieces-tile",
                "the 2P pieces tile [0, q): consecutive, non-empty ones first, the last ends at q",
                z3::implies(!replicated, tiles));
  }
  enc.method = "closed query, symbolic P/q/N/piece (any request of any batch)";
  enc.to_case = [c, w, key](const z3::model& m) { return pcp_case(m, c, w, key); };
}

namespace {

// v6-current's first chunk over one rank's context rows (ctx x1 <= x2, each present or not): the
// packed steps' greedy from an empty chunk at start 0, each split by its binary search's
// postcondition (witness k); its all-gather is the chunk's padded local rows (packed_need).
struct FirstChunk {
  expr rows, has_context;
};
FirstChunk first_chunk(z3::context& ctx, Encoding& enc, const steps::PackedParams<expr>& pp, const EngineCommon& c,
                       const expr& x1, const expr& p1, const expr& x2, const expr& p2, const std::string& tag) {
  const expr zero = ctx.int_val(0), k1 = ctx.int_const((tag + "_k1").c_str()),
             k2 = ctx.int_const((tag + "_k2").c_str());
  const expr ta1 = steps::packed_takes_all(pp, zero, zero, x1, c.I, c.W, true);
  fact(enc, z3::implies(p1 && !ta1, steps::packed_split_postcondition(pp, zero, zero, x1, k1, c.I, c.W, true)), {k1});
  const expr open = cp::select(p1, steps::packed_need(zero, x1, c.I, c.W, true), zero);  // rows after row 1
  const expr ta2 = steps::packed_takes_all(pp, open, zero, x2, c.I, c.W, true);
  fact(enc, z3::implies(p2 && !ta2, steps::packed_split_postcondition(pp, open, zero, x2, k2, c.I, c.W, true)), {k2});
  const expr after2 = open + cp::select(ta2, steps::packed_need(zero, x2, c.I, c.W, true),
                                        steps::packed_need(zero, k2 * pp.align, c.I, c.W, true));
  const expr rows =
      cp::select(p1 && !ta1, steps::packed_need(zero, k1 * pp.align, c.I, c.W, true), cp::select(p2, after2, open));
  enc.shown.push_back({tag + "_first_allgather", rows});
  return {rows, p1 || p2};
}

}  // namespace

// P-13 (#53573): under DCP every rank enters the context path alike and issues the same first
// all-gather. One prefill (N, q), P = DCP = 2 (every version accepts DCP = P): rank r's rows are
// pieces r and 3-r at N + offset (present when non-empty), in ascending start on every version's
// order (§1.3), each with context start; PCP-C replicates a short prefill as (N, q) on both
// ranks. A row without context (start 0) enters no chunk. The first chunk of each rank as v6
// plans it (first_chunk); a model where the ranks differ is a P-13 violation (check_P13 compares
// the per-chunk all-gathers), replayed through the planner.
void encode_pcp_P13(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t, Encoding& enc) {
  // B = 16, I = 1 as numerals (the geometry of the bug cases): every division is by a constant,
  // so the search is linear; S, mml, mns, N, q stay symbolic.
  const Triple geometry{16, 2, 1};
  Common c0 = make_common(ctx, enc, d, key.version, true, 2, 2, &geometry);
  enc.unbounded = false;  // one prefill, P = 2, B = 16, I = 1, the first chunk: a bounded encoding
  const EngineCommon c{c0.S, c0.B, c0.W, c0.I, c0.bi};
  const PcpRequest w = pcp_request(ctx, enc, d);
  fact(enc, w.P == 2 && c.W == 2, {w.P});
  const PcpRules& rules = info(key.version).pcp;
  const expr replicated = rules.replicate_short_under_dcp ? steps::pcp_replicates(w.q, w.C) : ctx.bool_val(false);
  const auto pp = steps::packed_params(info(key.version).packed, key.platform, kBuilder, c.S, c.B, c.W, c.I, true);
  std::vector<FirstChunk> fc;
  for (int r = 0; r < 2; ++r) {
    const expr a = ctx.int_val(r), b = w.C - 1 - a;
    const expr xa = w.N + steps::pcp_piece_offset(rules.split, w.q, w.C, a);
    const expr xb = w.N + steps::pcp_piece_offset(rules.split, w.q, w.C, b);
    const expr pa = steps::pcp_piece_len(rules.split, w.q, w.C, a) >= 1 && xa >= 1;
    const expr pb = steps::pcp_piece_len(rules.split, w.q, w.C, b) >= 1 && xb >= 1;
    const std::string tag = "rank" + std::to_string(r);
    fc.push_back(first_chunk(ctx, enc, pp, c, cp::select(replicated, w.N, xa), cp::select(replicated, w.N >= 1, pa), xb,
                             !replicated && pb, tag));
  }
  enc.search_hints.insert(enc.search_hints.end(), {c0.mml <= 1 << 14, c0.mns <= 8});
  engine_goal(enc, sc, "ranks-agree", "both DCP ranks enter the context path alike, with the same first all-gather",
              fc[0].has_context == fc[1].has_context && z3::implies(fc[0].has_context, fc[0].rows == fc[1].rows));
  enc.method =
      "closed query, BOUNDED: one prefill, P = DCP = 2, block 16, interleave 1, the first chunk "
      "(symbolic mml/mns/S/N/q)";
  enc.to_case = [c0, w, key](const z3::model& m) {
    Case k = base_case(m, c0, key.version, key.platform);
    k.pcp = 2;
    k.ctx = {get(m, w.N)};
    k.q = {get(m, w.q)};
    return k;
  };
}

// P-9 (PB-2): on every rank every decode row sorts before every prefill row, so
// split_decodes_and_prefills' boundary (the first prefilling row) leaves no decode behind it.
// Any decode row (request jd, start Nd >= 1, one token) against any prefill row of rank r (request
// jp != jd, piece r or C-1-r of (N, q), non-empty, start N + offset) under the version's sort key
// (pcp_order_class, then request, then start): any pair of rows of any batch.
void encode_pcp_P9(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t, Encoding& enc) {
  const EngineCommon c = make_engine_common(ctx, enc, d, key.version, false);
  const PcpRequest w = pcp_request(ctx, enc, d);
  const PcpRules& rules = info(key.version).pcp;
  const expr jp = ctx.int_const("prefill_request"), jd = ctx.int_const("decode_request");
  const expr nd = ctx.int_const("decode_ctx"), r = ctx.int_const("rank"), far = ctx.int_const("far_piece");
  fact(enc, jp >= 0 && jd >= 0 && jp != jd && jp <= 1 && jd <= 1, {jp, jd});  // the two requests' order
  fact(enc, nd >= 1, {nd});
  fact(enc, r >= 0 && r < w.P && (far == 0 || far == 1), {r, far});
  const expr piece = cp::select(far == 1, w.C - 1 - r, r);
  const expr start = w.N + steps::pcp_piece_offset(rules.split, w.q, w.C, piece);
  fact(enc, steps::pcp_piece_len(rules.split, w.q, w.C, piece) >= 1, {far});  // the row exists
  const expr one = ctx.int_val(1), zero = ctx.int_val(0);
  const expr cd = steps::pcp_order_class(rules.order, zero, zero);
  const expr cp_ = steps::pcp_order_class(rules.order, one, cp::select(start == 0, one, zero));
  const expr before = cd < cp_ || (cd == cp_ && (jd < jp || (jd == jp && nd < start)));
  enc.search_hints.insert(enc.search_hints.end(), {c.W == 1, c.S <= 4096});
  enc.shown.insert(
      enc.shown.end(),
      {{"prefill_request", jp}, {"decode_request", jd}, {"decode_ctx", nd}, {"rank", r}, {"row_start", start}});
  engine_goal(enc, sc, "decode-first", "a decode row sorts before every prefill row of its rank", before);
  enc.method = "closed query, any decode row against any prefill row of any rank (any batch)";
  enc.to_case = [c, w, jp, nd, key](const z3::model& m) {
    Case k = engine_base_case(m, c, key);
    k.pcp = get(m, w.P);
    const bool prefill_first = get(m, jp) == 0;
    const std::int64_t pn = get(m, w.N), pq = get(m, w.q), dn = get(m, nd);
    k.ctx = prefill_first ? std::vector<std::int64_t>{pn, dn} : std::vector<std::int64_t>{dn, pn};
    k.q = prefill_first ? std::vector<std::int64_t>{pq, 1} : std::vector<std::int64_t>{1, pq};
    return k;
  };
}

}  // namespace cp::smt::detail

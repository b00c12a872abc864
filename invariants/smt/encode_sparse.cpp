// vLLM's sparse-MLA planners (vllm-pcp-and-sparse.md §4, §5): the indexer chunker's E-2..E-6 and
// its I-4 (= E-1), the gathered prefill's D-5/D-7, and the sparse builder's profile reservation
// Z-1, each through the family's own steps (reference/planner/families/{indexer,gathered}/steps.h,
// sizing.h) on z3::expr. Each encoding ends in one closed step over every domain fact that is not
// an upper bound and every witness definition (engine_goal): unsat is a proof for every integer
// value of the parameters (UNBOUNDED); a sat answer is re-solved over the whole domain (search
// hints first) and its model replayed through the planner.
#include <algorithm>

#include "invariants/smt/engine_internal.h"
#include "invariants/smt/lemma_chain.h"
#include "invariants/smt/packed_step.h"
#include "reference/dcp/ownership.h"
#include "reference/planner/families/gathered/steps.h"
#include "reference/planner/families/indexer/steps.h"

namespace cp::smt::detail {
namespace {

// The indexer's parameters: WS sized 40*mml by the version (or workspace=), rho (1 on V3.2),
// E = max_logits_mb * 2^20 // 4 (indexer_init's formula), one prefill row (seq, q): q >= 2 (a q <= 1
// request is a decode), seq = ctx + q <= max_model_len where sized (indexer_init refuses longer).
struct IndexerCommon {
  Common c;
  expr rho, mb, E;
};
IndexerCommon indexer_common(z3::context& ctx, Encoding& enc, const Domain& d, Version v) {
  IndexerCommon ic{make_common(ctx, enc, d, v, false, 1, 1), ctx.int_const("compress_ratio"),
                   ctx.int_const("max_logits_mb"), ctx.int_val(0)};
  fact(enc, info(v).indexer.compresses ? ic.rho >= 1 : ic.rho == 1, {ic.rho});
  bound(enc, ic.rho <= ctx.int_val(CaseLimits::max_block), {ic.rho});
  fact(enc, ic.mb >= 1, {ic.mb});
  ic.E = cp::floordiv(ic.mb * ctx.int_val(std::int64_t{1} << 20), ctx.int_val(4));
  enc.search_hints.insert(enc.search_hints.end(), {ic.rho <= 8, ic.mb <= 512, ic.c.mml <= 1 << 12});
  enc.shown.insert(enc.shown.end(), {{"compress_ratio", ic.rho}, {"max_logits_mb", ic.mb}});
  enc.unbounded = true;
  return ic;
}
struct Row {
  expr seq, q;
};
Row indexer_row(z3::context& ctx, Encoding& enc, const IndexerCommon& ic, const std::string& tag) {
  const Row w{ctx.int_const((tag + "_seq").c_str()), ctx.int_const((tag + "_q").c_str())};
  fact(enc, w.q >= 2 && w.seq >= w.q, {w.seq, w.q});
  if (ic.c.sized) fact(enc, w.seq <= ic.c.mml, {w.seq});
  enc.shown.insert(enc.shown.end(), {{tag + "_seq", w.seq}, {tag + "_q", w.q}});
  return w;
}
Case indexer_case(const z3::model& m, const IndexerCommon& ic, const TaskKey& key) {
  Case k = base_case(m, ic.c, key.version, key.platform);
  k.compress_ratio = get(m, ic.rho);
  k.max_logits_mb = get(m, ic.mb);
  return k;
}
void add_request(Case& k, std::int64_t seq, std::int64_t q) {
  k.ctx.push_back(seq - q);
  k.q.push_back(q);
}

}  // namespace

// I-4 (E-1) and E-3: a row slice's K rows fit the chunker's WS (I-4) and the consumer's K buffer
// (E-3), by induction over the inner loop: before the slice's next row the admitted rows hold
// M query tokens and Nn K rows (0, 0 at the slice's start); the row is admitted
// (indexer_admits: Nn + n <= WS and the logits fit E) or, first in its slice, taken alone. The
// slice's K rows are then Nn + n or n. Any slice of any batch.
void encode_indexer_rows(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t,
                         Encoding& enc) {
  const IndexerCommon ic = indexer_common(ctx, enc, d, key.version);
  const expr M = ctx.int_const("slice_q"), Nn = ctx.int_const("slice_k_rows");
  fact(enc, M >= 0 && Nn >= 0, {M, Nn});
  const Row w = indexer_row(ctx, enc, ic, "row");
  const expr n = steps::indexer_k_rows(w.seq, ic.rho);
  const expr admitted = steps::indexer_admits(M, Nn, w.q, n, ic.c.S, ic.E);
  const expr first = M == 0 && Nn == 0;
  const expr rows = cp::select(admitted, Nn + n, n);
  const bool consumer = key.invariant == InvariantId::E3_indexer_consumer_rows;
  const expr target =
      consumer ? steps::indexer_consumer_rows(info(key.version).indexer.consumer, ic.c.S, ic.rho) : ic.c.S;
  // The state as k identical earlier rows (seq_p, q_p), so that a model replays as a batch.
  const expr k = ctx.int_const("earlier_rows"), sp = ctx.int_const("earlier_seq"), qp = ctx.int_const("earlier_q");
  enc.search_hints.insert(enc.search_hints.end(), {k >= 0, k <= 4096, qp == 2, sp >= qp, sp <= ic.c.mml, M == k * qp,
                                                   Nn == k * steps::indexer_k_rows(sp, ic.rho)});
  enc.shown.insert(enc.shown.end(), {{"row_k_rows", n}, {"slice_rows", rows}, {"target", target}});
  LemmaChain lc(ctx, sc, enc);
  const expr mono = lc.mono(n, ic.rho);  // n*rho >= n: a row's K rows are at most its tokens
  engine_goal(enc, sc, consumer ? "slice-fits-consumer" : "slice-fits-ws",
              consumer ? "a slice's K rows (admitted, or one row alone) fit the consumer's K buffer"
                       : "a slice's K rows (admitted, or one row alone) fit the chunker's WS",
              z3::implies(admitted || first, rows <= target), {mono});
  enc.method = "closed query, induction over the chunker's inner loop (any slice of any batch)";
  enc.to_case = [ic, k, sp, qp, w, key](const z3::model& m) {
    Case c = indexer_case(m, ic, key);
    for (std::int64_t i = 0; i < get(m, k); ++i) add_request(c, get(m, sp), get(m, qp));
    add_request(c, get(m, w.seq), get(m, w.q));
    c.max_num_seqs = std::max<std::int64_t>(c.max_num_seqs.value_or(1), static_cast<std::int64_t>(c.q.size()));
    return c;
  };
}

// E-2: a sub-slice of max_q = indexer_max_q(M, Nn, E) query tokens keeps its logits within E
// whenever the slice's Nn K rows do: len <= max_q = E // Nn (>= 1 when Nn <= E), so
// len*Nn <= (E // Nn)*Nn <= E (lemma-monotone). Any sub-slice o of any slice.
void encode_indexer_E2(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t,
                       Encoding& enc) {
  const IndexerCommon ic = indexer_common(ctx, enc, d, key.version);
  const expr M = ctx.int_const("slice_q"), Nn = ctx.int_const("slice_k_rows"), o = ctx.int_const("sub_start");
  fact(enc, M >= 2 && Nn >= 1, {M, Nn});  // a slice with K rows (one without emits no chunk)
  fact(enc, o >= 0 && o < M, {o});
  const expr mq = steps::indexer_max_q(M, Nn, ic.E), len = cp::min(mq, M - o);
  const expr D = cp::max(Nn, ctx.int_val(1)), qE = cp::floordiv(ic.E, D);
  enc.shown.insert(enc.shown.end(), {{"slice_q", M}, {"slice_k_rows", Nn}, {"max_q", mq}, {"sub_len", len}});
  LemmaChain lc(ctx, sc, enc);
  const expr dn = lc.closed("divisor-is-k-rows", "Nn >= 1: max(Nn, 1) = Nn", D == Nn, lc.dom(Nn));
  const expr m1 = lc.mono(D, qE), m2 = lc.mono(D, mq - len);
  engine_goal(enc, sc, "logits-fit", "Nn <= E => sub-slice tokens x K rows <= E",
              z3::implies(Nn <= ic.E, len * Nn <= ic.E), {dn, m1, m2});
  enc.method = "lemma chain (lemma-monotone), any sub-slice of any slice";
  enc.to_case = [ic, M, Nn, key](const z3::model& m) {  // one row: seq = Nn*rho K rows, q = M
    Case c = indexer_case(m, ic, key);
    add_request(c, std::max(get(m, Nn) * get(m, ic.rho), get(m, M)), get(m, M));
    return c;
  };
}

// E-4 and E-5: the sub-slices o = 0, max_q, 2*max_q, ... < M of a slice tile its M tokens in
// order (E-5: each is non-empty and ends where the next starts, the last at M; the slices
// themselves are consecutive row ranges, and K-less ones are kept as empty_token_ranges), and a
// continuation o = j*max_q, j >= 1 (skip_kv_gather) follows the sub-slice of the same rows that
// ends at o (E-4). Any slice, any sub-slice.
void encode_indexer_tiling(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t,
                           Encoding& enc) {
  const IndexerCommon ic = indexer_common(ctx, enc, d, key.version);
  const expr M = ctx.int_const("slice_q"), Nn = ctx.int_const("slice_k_rows"), j = ctx.int_const("sub_index");
  fact(enc, M >= 2 && Nn >= 0, {M, Nn});
  const expr mq = steps::indexer_max_q(M, Nn, ic.E);
  fact(enc, j >= 0 && j * mq < M, {j});  // the loop's o = j*max_q < M
  const expr o = j * mq, len = cp::min(mq, M - o);
  enc.shown.insert(enc.shown.end(), {{"slice_q", M}, {"slice_k_rows", Nn}, {"max_q", mq}, {"sub_index", j}});
  std::vector<expr> earlier;
  expr goal = len >= 1 && o + len == cp::min(o + mq, M) && z3::implies(j == 0, o == 0);
  if (key.invariant == InvariantId::E4_indexer_shared_gather) {
    LemmaChain lc(ctx, sc, enc);
    earlier.push_back(lc.mono(mq, j));  // j >= 1: o = j*max_q >= max_q
    const expr prev = o - mq;
    goal = z3::implies(j >= 1, prev >= 0 && prev + cp::min(mq, M - prev) == o);
  }
  engine_goal(enc, sc, key.invariant == InvariantId::E4_indexer_shared_gather ? "continuation-follows" : "sub-tiling",
              key.invariant == InvariantId::E4_indexer_shared_gather
                  ? "a continuation sub-slice starts where the previous sub-slice of its rows ends"
                  : "sub-slices are non-empty, consecutive, and the last ends at M",
              goal, earlier);
  enc.method = "closed query, an arbitrary sub-slice of an arbitrary slice (any batch)";
  enc.to_case = [ic, M, key](const z3::model& m) {
    Case c = indexer_case(m, ic, key);
    add_request(c, get(m, M), get(m, M));
    return c;
  };
}

// E-6: query token k of a row gets ke - ks = indexer_key_len(seq, q, k, rho) K rows: 0 <= that
// <= n = indexer_k_rows(seq, rho), non-decreasing in k (three lemma-monotone instances over the
// floor-division witnesses). Any row of any slice.
void encode_indexer_E6(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t,
                       Encoding& enc) {
  const IndexerCommon ic = indexer_common(ctx, enc, d, key.version);
  const Row w = indexer_row(ctx, enc, ic, "row");
  const expr k1 = ctx.int_const("token_a"), k2 = ctx.int_const("token_b");
  fact(enc, k1 >= 0 && k1 <= k2 && k2 <= w.q - 1, {k1, k2});
  const expr a1 = steps::indexer_key_len(w.seq, w.q, k1, ic.rho), a2 = steps::indexer_key_len(w.seq, w.q, k2, ic.rho);
  const expr n = steps::indexer_k_rows(w.seq, ic.rho);
  enc.shown.insert(enc.shown.end(), {{"key_len_a", a1}, {"key_len_b", a2}, {"row_k_rows", n}});
  LemmaChain lc(ctx, sc, enc);
  const std::vector<expr> monos{lc.mono(ic.rho, a1), lc.mono(ic.rho, a1 - a2), lc.mono(ic.rho, a2 - n)};
  engine_goal(enc, sc, "key-range", "0 <= ke - ks <= n, non-decreasing in the token", 0 <= a1 && a1 <= a2 && a2 <= n,
              monos);
  enc.method = "lemma chain (lemma-monotone), symbolic seq/q/rho/tokens (any row)";
  enc.to_case = [ic, w, key](const z3::model& m) {
    Case c = indexer_case(m, ic, key);
    add_request(c, get(m, w.seq), get(m, w.q));
    return c;
  };
}

// D-5 and D-7: a region of extent e = ctx + q (e <= max_model_len where sized; its rows per rank
// within the shard budget, else the plan asserts) against rank r's share dcp_local_len(e, W, r, I)
// (ownership.h): D-5 rpr >= the share; D-7 every local slot of rank r's share, remapped to
// r*SR + ws + slot, lies inside the region's rpr rows. cdiv(e, I*W)*I is padded_local_rows(e),
// so the owned-span chain of the packed I-8 (owned_span) proves it for every interleave.
void encode_gathered(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t, Encoding& enc) {
  const Common c = make_common(ctx, enc, d, key.version, true, 2, d.dcp_max);
  enc.unbounded = true;
  const expr cx = ctx.int_const("ctx0"), q = ctx.int_const("q0"), r = ctx.int_const("rank");
  fact(enc, cx >= 0 && q >= 2, {cx, q});
  const expr e = cx + q;
  if (c.sized) fact(enc, e <= c.mml, {cx});
  fact(enc, r >= 0 && r < c.W, {r});
  const expr rpr = steps::gathered_rows_per_rank(info(key.version).gathered.rows_per_rank, e, c.W, c.I);
  fact(enc, rpr <= steps::gathered_shard_budget(c.S, c.W), {cx});  // else plan_gathered asserts
  const expr dl = dcp_local_len(e, c.W, r, c.I);
  enc.search_hints.insert(enc.search_hints.end(), {c.B <= 128, c.W <= 8, e <= 4096});
  enc.shown.insert(enc.shown.end(), {{"ctx0", cx}, {"q0", q}, {"rank", r}, {"rows_per_rank", rpr}, {"share", dl}});
  LemmaChain lc(ctx, sc, enc);
  const expr V = c.I * c.W;
  const expr ppos =
      lc.closed("IW-positive", "I >= 1, W >= 2: I*W >= 1 (and both divisors positive)", V >= 1 && c.I >= 1 && c.W >= 1,
                LemmaChain::cat(LemmaChain::cat(lc.dom(c.I), lc.dom(c.W)), {lc.mono(c.I, c.W - 1)}));
  std::vector<expr> earlier{ppos};
  if (info(key.version).gathered.rows_per_rank == GatheredRowsPerRank::cdiv_e_v_times_i)
    earlier.push_back(owned_span(lc, e, c.W, r, c.I, V, ppos, "extent").share);
  if (key.invariant == InvariantId::D5_gathered_shard_cover) {
    engine_goal(enc, sc, "rpr-covers-share", "rows per rank >= rank r's share of the extent", dl <= rpr, earlier);
  } else {
    const expr slot = ctx.int_const("slot");
    fact(enc, slot >= 0, {slot});
    enc.shown.push_back({"slot", slot});
    engine_goal(enc, sc, "slot-inside-region", "rank r's local slot k < share is one of the region's rpr shard rows",
                z3::implies(slot < dl, slot < rpr), earlier);
  }
  enc.method = "closed query (the owned-span chain), symbolic e/W/I/rank (any region of any batch)";
  enc.to_case = [c, cx, q, key](const z3::model& m) {
    Case k = base_case(m, c, key.version, key.platform);
    k.ctx = {get(m, cx)};
    k.q = {get(m, q)};
    return k;
  };
}

// Z-1 (#57170): the profile run's kv_b_proj dummy is sized with the dense formula (v6-current's
// packed_v6 sizing) whatever the backend; the sparse builder up-projects S_sparse rows.
void encode_sparse_Z1(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t, Encoding& enc) {
  if (info(key.version).sizing != SizingRule::sparse_mla) {
    enc.na = "no profile-run reservation modelled (the dense builder reserves its own S)";
    return;
  }
  if (d.workspace_max != 0) {
    enc.na = "workspace= is explicit: the profile run's reservation comes from max_model_len/max_num_seqs";
    return;
  }
  const Common c = make_common(ctx, enc, d, key.version, true, 1, d.dcp_max);
  enc.unbounded = true;
  const expr profile = steps::workspace_size(SizingRule::packed_v6, c.mml, c.mns, c.B, c.W, c.I);
  enc.search_hints.insert(enc.search_hints.end(), {c.W == 1, c.B <= 1024});  // S_sparse % W == 0 asserts first
  enc.shown.push_back({"profile_rows", profile});
  engine_goal(enc, sc, "profile-covers-sparse", "the dense-formula reservation >= S_sparse", profile >= c.S);
  enc.method = "closed query, symbolic mml/mns/B/W/I (the two sizing rules of sizing.h)";
  enc.to_case = [c, key](const z3::model& m) {
    Case k = base_case(m, c, key.version, key.platform);
    k.ctx = {0};
    k.q = {16};
    return k;
  };
}

}  // namespace cp::smt::detail

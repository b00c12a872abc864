// ATOM (other-engines.md §1): A-7, the DCP window's budget n*W*ch <= S, over the planner's own
// window rules (reference/planner/families/atom/steps.h). ATOM's window (atom-pre2113,
// atom-current) is max(B, round_down(S // (n*W), B)): floored at B, so the promise fails exactly
// when S < n*W*B (A-B1). The fix (atom-fixed) groups at most g = max(1, S // (W*I)) requests with
// context per run of chunks and floors the window at I: n*W*ch <= S whenever S >= W*I, the fix's
// startup check (atom_init refuses the rest). n, S, B, W, I are symbolic: any batch.
#include <algorithm>

#include "invariants/smt/engine_internal.h"
#include "reference/planner/families/atom/steps.h"

namespace cp::smt::detail {

void encode_atom_A7(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t, Encoding& enc) {
  const VersionInfo& vi = info(key.version);
  const EngineCommon c = make_engine_common(ctx, enc, d, key.version, true);
  const expr N = ctx.int_const("n_with_context");  // the step's prefills with context
  fact(enc, N >= 1, {N});
  enc.search_hints.push_back(N <= 64);
  expr ch(ctx), nc(ctx);
  if (vi.atom.window == AtomWindow::block) {
    ch = steps::atom_window(c.S, N, c.B, c.W);
    nc = N;  // every request with context is in every chunk
  } else {
    fact(enc, c.S >= c.W * c.I, {c.S});  // atom-fixed's startup check (atom_init: exit 2 otherwise)
    const expr g = cp::min(steps::atom_fixed_group(c.S, c.W, c.I), N);
    ch = steps::atom_fixed_window(c.S, g, c.W, c.I);
    nc = ctx.int_const("chunk_with_context");  // a group's chunk holds at most g of them
    fact(enc, nc >= 1 && nc <= g, {nc});
    enc.shown.push_back({"chunk_with_context", nc});
  }
  enc.shown.insert(enc.shown.end(), {{"n_with_context", N}, {"window", ch}});
  engine_goal(enc, sc, "window-budget", "a chunk's requests with context times W*ch fit S: n*W*ch <= S",
              nc * c.W * ch <= c.S);
  enc.method = "closed query, symbolic n/S/B/W/I (any batch): the window rule of steps.h";
  // The case: n requests, each with a context that fills its window on every rank (capped so
  // the token-level replay stays small; A-7 counts the requests with context, I-4 the rows).
  enc.to_case = [c, N, ch, key](const z3::model& m) {
    Case k = engine_base_case(m, c, key);
    const std::int64_t fill = std::min<std::int64_t>(get(m, c.W) * get(m, ch), 1 << 14);
    for (std::int64_t i = 0; i < get(m, N); ++i) {
      k.ctx.push_back(fill);
      k.q.push_back(16);
    }
    return k;
  };
}

}  // namespace cp::smt::detail

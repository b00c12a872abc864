// TensorRT-LLM (other-engines.md §4): I-4, the rows of one loop against the context K/V
// workspace S = BBS*max_num_tokens, through the family's steps (rectangular_steps.h before
// #7477, trtllm/steps.h from #7477 on). Per-request columns of chunk_size = S // 4 put up to
// n*chunk_size rows in a loop; the packed loops of T = S rows (#7477, R-1) keep every loop
// <= S; on SM < 100 one pass takes every cached row (R-B1). Split into n requests (a sum over them).
#include "invariants/smt/engine_internal.h"
#include "reference/planner/families/trtllm/steps.h"

namespace cp::smt::detail {

void encode_trtllm_I4(z3::context& ctx, Z3Scope& sc, const TaskKey& key, const Domain& d, std::int64_t n,
                      Encoding& enc) {
  const EngineCommon c = make_engine_common(ctx, enc, d, key.version, false);
  const expr k4 = ctx.int_const("max_num_tokens");
  fact(enc, k4 >= 1 && c.S == ctx.int_val(kTrtllmBufferBatchSize) * k4, {c.S, k4});  // trtllm_init's rule
  const std::vector<expr> cxs = engine_contexts(ctx, enc, d, n, 1, 1 << 12);
  const expr cc = ctx.int_const("loop");
  fact(enc, cc >= 0, {cc});
  expr rows = ctx.int_val(0), exists = ctx.bool_val(true);
  switch (info(key.version).trtllm.split) {
    case TrtllmSplit::per_request_columns: {
      const expr cs = cp::floordiv(c.S, ctx.int_val(kTrtllmBufferBatchSize));
      expr longest = ctx.int_val(0);
      for (const auto& x : cxs) {
        rows = rows + steps::rect_len(x, cc, cs);
        longest = cp::max(longest, x);
      }
      exists = cc * cs < longest;
      break;
    }
    case TrtllmSplit::packed:
    case TrtllmSplit::none: {
      expr total = ctx.int_val(0);
      for (const auto& x : cxs) total = total + x;
      // SM < 100: no chunking, the one pass is a loop of all of it (plan_trtllm: T = max(total, 1)).
      const bool one_pass = info(key.version).trtllm.split == TrtllmSplit::none;
      const expr T = one_pass ? cp::max(total, ctx.int_val(1)) : c.S;
      expr off = ctx.int_val(0);
      for (const auto& x : cxs) {
        rows = rows + steps::trtllm_packed_len(off, x, cc, T);
        off = off + x;
      }
      exists = one_pass ? cc == 0 : cc * T < total;
      break;
    }
  }
  enc.shown.insert(enc.shown.end(), {{"loop", cc}, {"loop_rows", rows}});
  engine_goal(enc, sc, "loop-budget", "an existing loop's rows fit the context K/V workspace: rows <= S",
              z3::implies(exists, rows <= c.S), {}, true);
  enc.method = "closed query per batch size n (bounded batch), symbolic S/contexts/loop";
  enc.to_case = engine_batch_case(c, cxs, key);
}

}  // namespace cp::smt::detail

// The TensorRT-LLM planner (tensorrt_llm/_torch/attention_backend/trtllm.py and
// modules/attention.py; other-engines.md §4.1-§4.3). S (workspace=) is the context K/V
// workspace T = BBS * max_num_tokens rows (R5's floor BBS * max_num_tokens, R3's BBS = 4) and
// chunk_size = max_num_tokens = S / 4 (R6). Every context request is in every loop (len 0 where
// it has nothing: merge op 0 skips it, R-4); each loop gathers its pieces token-granular from
// the paged cache (load_chunked_kv_cache_for_mla with chunked_global_offset). On SM < 100 there
// is no chunking (R4): one pass gathers every cached row, with no workspace reserved for it
// before #19269 (R-B1).
#include <algorithm>

#include "reference/planner/families/rectangular_plan.h"
#include "reference/planner/families/trtllm/family.h"
#include "reference/planner/families/vllm/movement.h"
#include "reference/planner/planner_internal.h"

namespace cp::detail {
namespace {

// R2 (#7477): nch = cdiv(sum c_i, T), loop c holds [c*T, (c+1)*T) of the concatenated contexts.
// With K = 1 (the SM < 100 path) it is the single pass over everything.
void plan_packed_loops(const Case& c, Plan& plan, Int T) {
  const auto& qsl = query_start_loc_scratch(c);
  const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];
  const Int K = cdiv(sum_of_contexts(c, plan), T);
  if (K > kMaxChunks || K * static_cast<std::int64_t>(plan.prefills.size()) > kMaxEntries)
    throw CaseError("ctx", "plan would have " + std::to_string(K.get()) + " loops x " +
                               std::to_string(plan.prefills.size()) +
                               " contexts, over the simulation limit; raise workspace or shorten ctx");
  plan.chunk_width = T.get();
  for (Int ci = 0; ci < K; ci = ci + 1) {
    Chunk ch = take_chunk();
    Int off = 0;
    for (int r : plan.prefills) {
      const Int ctx = c.ctx[static_cast<std::size_t>(r)];
      ChunkEntry e;
      e.request = r;
      e.len = steps::trtllm_packed_len(off, ctx, ci, T).get();
      e.start = e.len > 0 ? (max(off, ci * T) - off).get() : 0;  // chunked_global_offset
      ch.entries.push_back(std::move(e));
      off = off + ctx;
    }
    finish_chunk(ch, false, qsl, base);
    plan.chunks.push_back(std::move(ch));
  }
}

void plan_trtllm(const Case& c, Plan& plan) {
  const Int S = plan.workspace, chunk_size = floordiv(S, Int(kTrtllmBufferBatchSize));
  switch (plan.version_info().trtllm.split) {
    case TrtllmSplit::per_request_columns:
      plan_rectangular(c, plan, chunk_size, [](ChunkEntry&, Int) {});
      for (std::size_t ci = 0; ci < plan.chunks.size(); ++ci)
        if (plan.chunks[ci].total_tokens() > plan.workspace) {
          add_note(plan, [&] {
            return "loop " + std::to_string(ci) + ": " + std::to_string(plan.chunks[ci].total_tokens()) +
                   " rows > BBS*chunk_size = " + std::to_string(plan.workspace) +
                   " (up to num_contexts*chunk_size, R-2); the pre-#7477 C++ buffer size was not read: whether "
                   "this overruns it is not established";
          });
          break;
        }
      break;
    case TrtllmSplit::packed: plan_packed_loops(c, plan, S); break;
    case TrtllmSplit::none: {
      const Int total = sum_of_contexts(c, plan);
      plan_packed_loops(c, plan, max(total, Int(1)));
      if (total > S)
        add_note(plan, [&] {
          return "SM < 100: no chunking, one pass of " + std::to_string(total.get()) + " cached rows > the " +
                 std::to_string(plan.workspace) +
                 "-row workspace; before #19269 no workspace was reserved and no attended-KV cap applied (R-B1)";
        });
      break;
    }
  }
  plan.built = true;
}

// The K/V workspace is a multiple of BBS rows: chunk_size = max_num_tokens = S / BBS.
void trtllm_init(const Case& c, Plan& plan) {
  plan.workspace_rows = plan.workspace;
  if (c.workspace && *c.workspace % kTrtllmBufferBatchSize != 0)
    throw CaseError("workspace",
                    "TensorRT-LLM's context K/V workspace is chunked_prefill_buffer_batch_size (4) x "
                    "max_num_tokens rows: a multiple of 4, got " +
                        std::to_string(*c.workspace));
}

}  // namespace
}  // namespace cp::detail

namespace cp {
const FamilyInfo trtllm_family{
    .name = "trtllm",
    .summary =
        "no DCP; before #7477 per-request columns of chunk_size, from #7477 the contexts packed into "
        "loops of T = 4 * chunk_size rows; on SM < 100 no chunking",
    .models = "TensorRT-LLM _torch/attention_backend/trtllm.py, modules/attention.py (other-engines.md §4)",
    .init = &detail::trtllm_init,
    .plan = &detail::plan_trtllm,
    .movement = &vllm_chunk_movement,  // one token-granular gather per piece, no exchange
    .interval_level = true,            // vLLM's movement: I-9's closed form (invariants/interval/) is its exact walk
    .smt_encoded = true,               // invariants/smt/encode_trtllm.cpp
};
}  // namespace cp

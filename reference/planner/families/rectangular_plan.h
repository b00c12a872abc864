// The rectangular planner's chunks (rectangular_steps.h), shared by the SGLang and TokenSpeed
// families (chunk_len = C // bs) and TensorRT-LLM's per-request columns before #7477 (chunk_len
// = chunk_size): every prefill in every chunk (a zero-length entry where its context has ended,
// start c * chunk_len still: the engines' starts[c][i]), and under DCP each family's own local
// rows per entry (`dcp_rows(entry, W)` fills padded_local_len and kept). Included by plan.cpp
// files only.
#pragma once

#include <string>

#include "reference/planner/families/rectangular_steps.h"
#include "reference/planner/planner_internal.h"

namespace cp::detail {

// chunk_len = C // bs (bs: every prefill of the step); 0 (a crash recorded) when bs > C:
// cdiv(max prefix, 0) raises ZeroDivisionError in the engine's Python (G-1).
inline Int rect_chunk_len_or_crash(Plan& plan) {
  const Int bs = static_cast<std::int64_t>(plan.prefills.size());
  const Int chunk_len = steps::rect_chunk_len(Int(plan.workspace), bs);
  if (chunk_len == 0) {
    add_assert(plan, "plan", "ZeroDivisionError: integer division or modulo by zero", [&] {
      return "chunk_len = C // bs = " + std::to_string(plan.workspace) + " // " + std::to_string(bs.get()) +
             " = 0, then cdiv(max prefix, chunk_len) (G-1: needs bs <= C)";
    });
    plan.asserts.back().kind = FailureKind::crash;
  }
  return chunk_len;
}

// nch = cdiv(longest context, chunk_len) chunks (chunk_len > 0).
template <class DcpRows>
void plan_rectangular(const Case& c, Plan& plan, Int chunk_len, DcpRows&& dcp_rows) {
  const auto& qsl = query_start_loc_scratch(c);
  const std::int64_t base = qsl[static_cast<std::size_t>(plan.num_decodes)];
  plan.chunk_width = chunk_len.get();
  Int longest = 0;
  for (int r : plan.prefills) longest = max(longest, Int(c.ctx[static_cast<std::size_t>(r)]));
  const Int K = cdiv(longest, chunk_len);
  if (K > kMaxChunks || K * static_cast<std::int64_t>(plan.prefills.size()) > kMaxEntries)
    throw CaseError("ctx", "plan would have " + std::to_string(K.get()) + " chunks x " +
                               std::to_string(plan.prefills.size()) +
                               " prefills, over the simulation limit; raise workspace or shorten ctx");
  for (Int ci = 0; ci < K; ci = ci + 1) {
    Chunk ch = take_chunk();
    for (int r : plan.prefills) {
      ChunkEntry e;
      e.request = r;
      e.start = (ci * chunk_len).get();
      e.len = steps::rect_len(Int(c.ctx[static_cast<std::size_t>(r)]), ci, chunk_len).get();
      if (plan.is_dcp()) dcp_rows(e, Int(plan.dcp));
      ch.entries.push_back(std::move(e));
    }
    finish_chunk(ch, plan.is_dcp(), qsl, base);
    plan.chunks.push_back(std::move(ch));
  }
}

}  // namespace cp::detail

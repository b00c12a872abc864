// Workspace sizing and row budgets: I-1, I-2, I-4, I-7.
#include "invariants/checks.h"

namespace cp::detail {

InvariantResult check_I1(const Batch&, const Plan& p) {
  Sink s(InvariantId::I1_workspace_div_dcp);
  if (p.workspace % p.dcp != 0)
    s.add([&] {
      return Violation{.expected = "S mod W == 0",
                       .got = "S=" + str(p.workspace) + " mod W=" + str(p.dcp) + " = " + str(p.workspace % p.dcp),
                       .reason = "allgather_offset = R // (W+1) is not S/W; the builder's init assert fails"};
    });
  return s.done();
}

InvariantResult check_I2(const Batch&, const Plan& p) {
  Sink s(InvariantId::I2_nonempty_chunk_width);
  if (p.num_with_context == 0) return s.not_applicable("no prefill has context");
  if (p.chunk_width <= 0)
    s.add([&] {
      return Violation{
          .expected = p.packed ? "Mmax = round_down(S, align) > 0" : "M = round_down(S // n, round_to) > 0",
          .got = (p.packed ? "Mmax=" : "M=") + str(p.chunk_width) + " (S=" + str(p.workspace) +
                 ", n=" + str(p.num_with_context) + ", align=" + str(p.align) + ")",
          .reason = "the workspace cannot hold one aligned piece per prefill"};
    });
  return s.done();
}

InvariantResult check_I4(const Batch&, const Plan& p) {
  Sink s(InvariantId::I4_global_row_budget);
  if (!p.built) return s.not_evaluated();
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    if (p.chunks[ci].total_tokens() > p.workspace)
      s.add([&] {
        return Violation{.chunk = static_cast<int>(ci),
                         .expected = "sum of span lengths <= S=" + str(p.workspace),
                         .got = str(p.chunks[ci].total_tokens()),
                         .reason = "the chunk's gathered rows and kv_b_proj output exceed the workspace"};
      });
  return s.done();
}

InvariantResult check_I7(const Batch&, const Plan& p) {
  Sink s(InvariantId::I7_local_row_budget);
  if (p.version_info().family->send_buffers_per_chunk)
    return s.not_applicable([&] {
      return "the " + std::string(p.version_info().family->name) +
             " engine allocates each chunk's send and all-gather buffers from the plan (no S/W slice per rank): "
             "the rows attention reads are I-4's";
    });
  if (!p.built) return s.not_evaluated();
  const std::int64_t budget = p.workspace / p.dcp;
  for (std::size_t ci = 0; ci < p.chunks.size(); ++ci)
    if (p.chunks[ci].local_tokens() > budget)
      s.add([&] {
        return Violation{.chunk = static_cast<int>(ci),
                         .expected = "toks = sum of padded local lengths <= S/W=" + str(budget),
                         .got = str(p.chunks[ci].local_tokens()),
                         .reason = "every rank's gather overruns its S/W slice; the all-gather destination overflows"};
      });
  return s.done();
}

}  // namespace cp::detail

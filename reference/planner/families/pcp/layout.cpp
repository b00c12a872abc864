// The PCP manager's gathered token layout (vllm-pcp-and-sparse.md §1.5), read from vLLM
// 0036d38d vllm/v1/worker/gpu/pcp_manager.py (_build_batch_layout, partition_batch,
// _convert_to_gathered_slot_mappings) for PCP-B/C and from PCP-A's tests (Q3: the compacted
// all-gather, test_padded_allgather_compacts_uneven_rank_tokens): slot g of the all-gathered
// new tokens holds global token gather_idx[g]; the KV write keeps the slots of prefill rows and
// rank 0's decode rows (write_mask; "cache insertion pairs one slot entry with each rank's local
// decode"), and hidden_restore_idx[t] is the written slot that holds global token t.
#include <algorithm>

#include "reference/planner/families/pcp/family.h"

namespace cp {

PcpGathered pcp_gathered_layout(std::span<const std::vector<PcpRow>> rows_by_rank, std::span<const std::int64_t> ctx,
                                std::span<const std::int64_t> q, PcpGather gather, std::optional<std::int64_t> padded) {
  PcpGathered g;
  std::vector<std::int64_t> qsl(q.size() + 1, 0);
  for (std::size_t j = 0; j < q.size(); ++j) qsl[j + 1] = qsl[j] + q[j];
  const std::int64_t total = qsl.back();
  g.global_request.resize(static_cast<std::size_t>(total));
  g.global_position.resize(static_cast<std::size_t>(total));
  for (std::size_t j = 0; j < q.size(); ++j)
    for (std::int64_t k = 0; k < q[j]; ++k) {
      g.global_request[static_cast<std::size_t>(qsl[j] + k)] = static_cast<std::int64_t>(j);
      g.global_position[static_cast<std::size_t>(qsl[j] + k)] = ctx[j] + k;
    }
  std::vector<std::int64_t> T;
  for (const auto& rows : rows_by_rank) {
    std::int64_t t = 0;
    for (const auto& w : rows) t += w.len;
    T.push_back(t);
  }
  g.t_pad = padded.value_or(T.empty() ? 0 : *std::max_element(T.begin(), T.end()));
  std::int64_t slots = 0;
  for (const std::int64_t t : T) {
    g.rank_offset.push_back(gather == PcpGather::compacted ? slots
                                                           : static_cast<std::int64_t>(g.rank_offset.size()) * g.t_pad);
    slots += gather == PcpGather::compacted ? t : g.t_pad;
  }
  // Padding: token 0, position 0 (partition_batch masks input_ids and positions), no request, no write.
  g.gather_idx.assign(static_cast<std::size_t>(slots), 0);
  g.position.assign(static_cast<std::size_t>(slots), 0);
  g.request.assign(static_cast<std::size_t>(slots), -1);
  g.write_mask.assign(static_cast<std::size_t>(slots), 0);
  g.restore.assign(static_cast<std::size_t>(total), -1);
  for (std::size_t r = 0; r < rows_by_rank.size(); ++r) {
    std::int64_t k = g.rank_offset[r];
    const std::int64_t end = k + (gather == PcpGather::compacted ? T[r] : g.t_pad);
    for (const auto& w : rows_by_rank[r]) {
      const std::int64_t t0 =
          qsl[static_cast<std::size_t>(w.request)] + w.start - ctx[static_cast<std::size_t>(w.request)];
      // A replicated row (a decode; PCP-C's unsplit short prefill, taken to be written as decodes
      // are: its manager code was not found) is written and restored from rank 0's copy only.
      const bool write = !w.replicated || r == 0;
      for (std::int64_t i = 0; i < w.len; ++i, ++k) {
        const auto gi = static_cast<std::size_t>(k);
        if (k >= end) continue;  // T_r > T_pad: the caller recorded the ValueError
        g.gather_idx[gi] = t0 + i;
        g.position[gi] = w.start + i;
        g.request[gi] = w.request;
        g.write_mask[gi] = write ? 1 : 0;
        if (write) g.restore[static_cast<std::size_t>(t0 + i)] = k;
      }
    }
  }
  return g;
}

std::vector<std::int64_t> pcp_gathered_slot_mapping(const PcpGathered& g, std::span<const std::int64_t> global_slots) {
  std::vector<std::int64_t> out(g.gather_idx.size(), kPadSlot);
  for (std::size_t i = 0; i < out.size(); ++i)
    if (g.write_mask[i]) out[i] = global_slots[static_cast<std::size_t>(g.gather_idx[i])];
  return out;
}

}  // namespace cp

// The query-token groups of a plan's batch (token_groups.h).
#include "reference/mla/token_groups.h"

namespace cp::mla {

TokenGroups token_groups(const Case& c, const Plan& plan, bool chunked) {
  const Batch batch = batch_of(c, plan);
  TokenGroups g;
  g.first.assign(batch.size(), 0);
  g.count.assign(batch.size(), 0);
  g.merged.assign(batch.size(), 0);
  std::int64_t T = 0;
  auto add = [&](const TokenGroup& k) {
    g.groups.push_back(k);
    T += k.qn;
  };
  for (int r : plan.prefills) {
    const auto i = static_cast<std::size_t>(r);
    g.first[i] = static_cast<int>(g.groups.size());
    const int q = static_cast<int>(batch.q[i]);
    if (!batch.merged(i)) {
      add({.request = r, .qn = q, .q_offset = 0, .ctx = batch.ctx[i], .token0 = T});
    } else {
      const int qa = static_cast<int>(batch.lead_q[i]);
      g.merged[i] = 1;
      add({.request = r, .qn = qa, .q_offset = 0, .ctx = batch.lead_ctx[i], .token0 = T});
      TokenGroup b{.request = r, .qn = q - qa, .q_offset = qa, .ctx = batch.ctx[i], .token0 = T};
      if (chunked) b.lead_ctx = batch.lead_ctx[i], b.lead_q = qa;
      add(b);
    }
    g.count[i] = static_cast<int>(g.groups.size()) - g.first[i];
  }
  return g;
}

std::vector<int> TokenGroups::served(const Chunk& ch, std::size_t b) const {
  const auto r = static_cast<std::size_t>(ch.entries[b].request);
  std::vector<int> out;
  for (int k = first[r]; k < first[r] + count[r]; ++k) {
    const TokenGroup& t = groups[static_cast<std::size_t>(k)];
    // A merged row's chunk names its tokens (the tail: b's, token_end - q_b); other chunks serve
    // every token of their requests.
    if (!merged[r] || (t.token0 >= ch.token_start && t.token0 + t.qn <= ch.token_end)) out.push_back(k);
  }
  return out;
}

}  // namespace cp::mla

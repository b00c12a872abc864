#include "reference/io/plan_corruption.h"

#include <cmath>
#include <cstring>
#include <map>

namespace cp::io {

namespace {

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Adds token t to the request's ranges (tokens arrive in order).
void add_token(RequestDamage& d, std::int64_t t) {
  if (!d.tokens.empty() && d.tokens.back().second >= t) {
    d.tokens.back().second = std::max(d.tokens.back().second, t + 1);
    return;
  }
  d.tokens.emplace_back(t, t + 1);
}

std::string ranges(const std::vector<std::pair<std::int64_t, std::int64_t>>& r) {
  std::string s;
  for (const auto& [lo, hi] : r)
    s += (s.empty() ? "" : ",") + std::to_string(lo) + (hi - lo > 1 ? "-" + std::to_string(hi - 1) : "");
  return s;
}

}  // namespace

PlanCorruption diff_plan_outputs(const std::vector<float>& unchunked, const std::vector<float>& chunked,
                                 const std::vector<float>& vllm, const std::vector<TokenOwner>& owners,
                                 std::int64_t per_token) {
  const auto n = static_cast<std::size_t>(per_token) * owners.size();
  if (unchunked.size() != n || chunked.size() != n || (!vllm.empty() && vllm.size() != n))
    throw IoError("reference tensors do not match the manifest's " + std::to_string(owners.size()) +
                  " prefill tokens x " + std::to_string(per_token) + " elements");
  PlanCorruption p;
  p.checked = true;
  p.elements = static_cast<std::int64_t>(n);
  std::map<int, RequestDamage> by_request;
  for (std::size_t t = 0; t < owners.size(); ++t) {
    std::int64_t diff = 0, nan = 0;
    for (std::size_t k = t * static_cast<std::size_t>(per_token); k < (t + 1) * static_cast<std::size_t>(per_token);
         ++k) {
      if (!same_bits(unchunked[k], chunked[k])) ++diff;
      if (!vllm.empty() && std::isnan(vllm[k]) && !std::isnan(unchunked[k])) ++nan;
    }
    if (diff == 0 && nan == 0) continue;
    auto& d = by_request[owners[t].request];
    d.request = owners[t].request;
    d.differing += diff;
    d.merge_nan += nan;
    add_token(d, owners[t].token_in_request);
    p.differing += diff;
    p.merge_nan += nan;
  }
  for (auto& [r, d] : by_request) p.requests.push_back(std::move(d));
  return p;
}

PlanCorruption plan_corruption(const Export& e) {
  if (!e.reference.has("out") || !e.reference.has("chunked_out")) return {};
  const auto& shape = e.manifest.at("shape");
  const std::int64_t per_token = shape.value("heads", 0) * shape.value("v_dim", 0);
  const std::vector<float> vllm =
      e.reference.has("vllm_out") ? e.reference.at("vllm_out").to_f32() : std::vector<float>{};
  return diff_plan_outputs(e.reference.at("out").to_f32(), e.reference.at("chunked_out").to_f32(), vllm,
                           token_owners(e.manifest), per_token);
}

std::string PlanCorruption::summary() const {
  std::string s;
  if (differing)
    s = std::to_string(differing) + " of " + std::to_string(elements) +
        " elements differ (exact chunked vs unchunked reference)";
  if (merge_nan)
    s += (s.empty() ? "" : "; ") + std::to_string(merge_nan) + " NaN elements in the vLLM-style merge path";
  for (std::size_t i = 0; i < requests.size(); ++i)
    s += std::string(i ? ", " : ": ") + "request " + std::to_string(requests[i].request) + " tokens " +
         ranges(requests[i].tokens);
  return s;
}

}  // namespace cp::io

// Does an export's plan corrupt outputs (issue 22 item 5)? A finding of the plan alone,
// whatever a kernel's error: its exact chunked reference (`chunked_out`, the exact arithmetic
// through the plan's data path) against its exact unchunked one (`out`), bit for bit, and the
// export's vLLM-style path (`vllm_out`, the platform's merge flavour) for NaN where the
// reference is finite (the empty + empty merge of I-12: no data path error, the merge's).
//
//   PlanCorruption p = plan_corruption(export);  // p.corrupts(), p.summary()
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "reference/io/export.h"

namespace cp::io {

// One request's damage: which of its new tokens carry a wrong element.
struct RequestDamage {
  int request = -1;
  std::int64_t differing = 0;  // elements whose exact chunked bits differ from the reference
  std::int64_t merge_nan = 0;  // NaN elements of the vLLM-style path (finite reference)
  std::vector<std::pair<std::int64_t, std::int64_t>> tokens;  // [lo, hi) token_in_request ranges
};

struct PlanCorruption {
  bool checked = false;  // the export holds chunked_out (no assert fired)
  std::int64_t elements = 0, differing = 0, merge_nan = 0;
  std::vector<RequestDamage> requests;  // damaged requests only, in request order
  bool corrupts() const { return differing > 0 || merge_nan > 0; }
  // "768 elements differ (exact chunked vs unchunked): request 0 tokens 0-7, request 1 ..."
  std::string summary() const;
};

// The comparison itself (tensors [token][head][dim]; owners from token_owners()).
PlanCorruption diff_plan_outputs(const std::vector<float>& unchunked, const std::vector<float>& chunked,
                                 const std::vector<float>& vllm, const std::vector<TokenOwner>& owners,
                                 std::int64_t per_token);
// From an export's reference.safetensors; unchecked when it holds no reference. Throws IoError
// on tensors of the wrong size.
PlanCorruption plan_corruption(const Export& e);

}  // namespace cp::io

// The causal mask of a causal-suffix piece, shared by the CPU engine and the GPU kernels: n key
// rows for qn query tokens, aligned bottom-right as flash-attention's causal=True is when there
// are more keys than queries. Token t sees keys i < causal_end(t, n, qn) = t + 1 + (n - qn).
// With n == qn (a request's own new tokens) that is i <= t. With n > qn (the b group of a PCP
// context-reuse merged row, reference/mla/token_groups.h) the first n - qn keys are the leading
// row's tokens, which every token of b sees, as in the merged row's single causal call.
#pragma once

#include <cstdint>

#include "reference/mla/math/hd.h"

namespace cp::mla {

CP_HD inline std::int64_t causal_end(std::int64_t t, std::int64_t n, std::int64_t qn) { return t + 1 + (n - qn); }
// The first token that sees key i (the same mask, read by key).
CP_HD inline std::int64_t causal_first_token(std::int64_t i, std::int64_t n, std::int64_t qn) {
  return i - (n - qn) > 0 ? i - (n - qn) : 0;
}

}  // namespace cp::mla

// The SGLang family's steps (DeepSeek MHA chunked-prefix path, forward_batch_info.py /
// forward_batch_deepseek_mha_mixin.py, DCP in python/sglang/srt/layers/dcp/; other-engines.md
// §2): the rectangular split (rectangular_steps.h) and, under DCP (I = 1, rank r owns the widened
// slot loc iff loc mod W = r), all_gather_kv_cache_for_dcp's padded send: request i of a chunk
// starting at s sends padded = (L + m + W - 1) // W rows, m = s mod W, on every rank; the
// transposed all-gather puts rank r's send row t at t*W + r and the slice [cu_pad*W + m, +L)
// is the span in position order (G-8). Python/PyTorch integers: floor semantics throughout (G-9).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "reference/arith/ops.h"
#include "reference/planner/families/rectangular_steps.h"

namespace cp {

// Which prefix read an SGLang version's DCP path runs (other-engines.md §2.3, G-10).
enum class SGLangPrefixRead : std::uint8_t {
  owner_mask,      // chunked path: kv_indices filtered by loc mod W == r, collapsed to loc // W
  strided_concat,  // one-shot path (G3): every W-th element of the concatenated prefix indices from r
};
inline constexpr std::array kSGLangPrefixReads{SGLangPrefixRead::owner_mask, SGLangPrefixRead::strided_concat};
constexpr std::string_view name(SGLangPrefixRead r) {
  return r == SGLangPrefixRead::owner_mask ? "owner_mask" : "strided_concat";
}

// An SGLang version's rules (versions.h: VersionInfo::sglang).
struct SGLangRules {
  SGLangPrefixRead read = SGLangPrefixRead::owner_mask;
  bool zero_kv_flag = false;  // prefix_chunk_has_zero_kv (G2, with the #22688 fix)
};

namespace steps {

// padded_i = (L + m + W - 1) // W, m = s mod W: the rows every rank sends for the request.
template <class N>
N sglang_padded(const N& s, const N& L, const N& W) {
  return floordiv(L + floormod(s, W) + W - lit(L, 1), W);
}

// Rows rank r holds after the one-shot path's strided read of `total` concatenated prefix
// indices: offsets r, r + W, ... < total.
template <class N>
N sglang_strided_rows(const N& rank, const N& total, const N& W) {
  return floordiv(total, W) + select(rank < floormod(total, W), lit(W, 1), lit(W, 0));
}

}  // namespace steps
}  // namespace cp

// The gathered prefill family's steps (vllm-pcp-and-sparse.md §4; vLLM #56157,
// flashmla_sparse.py plan_gathered_prefill): every prefill request is a region of extent
// e = N + q; every DCP rank contributes rpr rows of each region to a shard of SR rows, the
// rank-major all-gather lays the shards out, and a top-k position p of the region is read at row
// owner(p) * SR + ws + local(p).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "reference/arith/ops.h"

namespace cp {

// How a version sizes a region's rows per rank (versions.h: VersionInfo::gathered; DB-2).
enum class GatheredRowsPerRank : std::uint8_t {
  cdiv_e_w,          // #56157's code copy: cdiv(e, W), the busiest rank's rows only when I = 1
  cdiv_e_v_times_i,  // cdiv(e, V) * I: the busiest rank's rows for every interleave (#56715's indexer-side fix)
};
inline constexpr std::array kGatheredRowsPerRank{GatheredRowsPerRank::cdiv_e_w, GatheredRowsPerRank::cdiv_e_v_times_i};
constexpr std::string_view name(GatheredRowsPerRank r) {
  switch (r) {
    case GatheredRowsPerRank::cdiv_e_w: return "cdiv(e,W)";
    case GatheredRowsPerRank::cdiv_e_v_times_i: return "cdiv(e,V)*I";
  }
  return "?";
}

struct GatheredRules {
  GatheredRowsPerRank rows_per_rank = GatheredRowsPerRank::cdiv_e_w;
};

namespace steps {

template <class N>
N gathered_rows_per_rank(GatheredRowsPerRank r, const N& e, const N& W, const N& I) {
  return r == GatheredRowsPerRank::cdiv_e_w ? cdiv(e, W) : cdiv(e, I * W) * I;
}
// Each rank's shard budget: floor(max_gathered_rows / W).
template <class N>
N gathered_shard_budget(const N& max_gathered_rows, const N& W) {
  return floordiv(max_gathered_rows, W);
}

}  // namespace steps
}  // namespace cp

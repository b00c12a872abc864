// Raw-bit comparison of two float tensors, shared by the single-GPU check (check.cpp) and the
// multi-rank check (multi/multi_rank.cpp): the GPU contract is bit for bit, so two elements
// are equal only when their 32 bits are (a NaN equals only the same NaN bits).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cp::gpu {

struct BitDiff {
  std::int64_t elements = 0, differing = 0, nan_payload = 0;  // nan_payload: both NaN, other bits
  bool size_mismatch = false;
  std::int64_t first = -1;
  std::uint32_t a_bits = 0, b_bits = 0;
};

BitDiff bit_diff(const std::vector<float>& a, const std::vector<float>& b);

// Elements that differ in bits or are NaN on either side (a NaN never counts as "the same
// result" when the two paths must agree); *first = the first such index.
std::int64_t count_nonequal(const std::vector<float>& a, const std::vector<float>& b, std::int64_t* first = nullptr);

// "name: 0 of E differ" or "name: K of E differ, first at (token t, head h, dim d): A vs B" for
// a [token][N][vd] tensor (vd = 1 for lse).
std::string describe(const char* name, const BitDiff& d, std::int64_t N, std::int64_t vd);

}  // namespace cp::gpu

// Shared by the MLA kernel files (mla_data.hip, mla_up_project.hip, mla_attend.hip): the
// includes of the kernel + launcher layers and the grid arithmetic.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "kernels/gpu_compat.h"
#include "kernels/mla_launch.h"
#include "reference/mla/math/all.h"

namespace cp::gpu {

// Blocks of `threads` covering n items.
inline unsigned blocks_for(std::int64_t n, int threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

__device__ inline std::int64_t min64(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

}  // namespace cp::gpu

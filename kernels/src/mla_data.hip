// Data path: gather (dcp=1 and per rank), the stale rows, the reorg copy.
// Kernel + launcher layers of the MLA reference pipeline (the stages of reference/mla/stages.h):
// each kernel mirrors one stage of the CPU reference and uses the same CP_HD math
// (reference/mla/math), so the bits match.
#include "kernels/src/mla_common.h"
#include "reference/mla/math/generator.h"

namespace cp::gpu {
namespace {

// The generator's garbage rows (stale workspace rows, slots past the block table) come from
// reference/mla/math/generator.h, the same CP_HD code the CPU reference runs.
using mla::garbage_elem;
using mla::pos_key;

// Inputs::local_row: nullptr past the block table.
__device__ const std::uint16_t* local_row(const CacheView& cv, int request, std::int64_t rank, std::int64_t local) {
  const std::int64_t v = local / cv.B;
  if (local < 0 || v >= cv.bt_len[request]) return nullptr;
  const std::int64_t slot = cv.bt[cv.bt_off[request] + v] * cv.B + local % cv.B;
  return cv.shards[rank] + slot * cv.row;
}

// Entry of row `t`: the last entry whose cu <= t (vLLM's token_to_seq, by binary search).
__device__ int entry_of(const GatherEntry* e, int n, std::int64_t t) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (e[mid].cu <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// One block per output row, threads over the row's elements.
__global__ void gather_positions_kernel(CacheView cv, const GatherEntry* entries, int n_entries, std::int64_t rows,
                                        std::uint16_t* out) {
  const std::int64_t t = blockIdx.x;
  if (t >= rows) return;
  const GatherEntry e = entries[entry_of(entries, n_entries, t)];
  const std::int64_t k = t - e.cu;
  if (k < 0 || k >= e.len) return;
  const std::int64_t p = e.first + k;
  const std::int64_t Iw = cv.I * cv.W;
  const std::int64_t rank = (p / cv.I) % cv.W;            // owner_rank (p >= 0)
  const std::int64_t local = (p / Iw) * cv.I + p % cv.I;  // local_index
  const std::uint16_t* src = p < 0 ? nullptr : local_row(cv, e.request, rank, local);
  std::uint16_t* dst = out + t * cv.row;
  for (int i = threadIdx.x; i < cv.row; i += blockDim.x)
    dst[i] = src ? src[i] : garbage_elem(cv.seed, 1, pos_key(e.request, p), i);
}

__global__ void gather_local_kernel(CacheView cv, std::int64_t rank, const GatherEntry* entries, int n_entries,
                                    std::int64_t rows, std::uint16_t* out) {
  const std::int64_t t = blockIdx.x;
  if (t >= rows) return;
  const GatherEntry e = entries[entry_of(entries, n_entries, t)];
  const std::int64_t k = t - e.cu;
  if (k < 0 || k >= e.len) return;
  const std::int64_t local = e.first + k;
  const std::uint16_t* src = local_row(cv, e.request, rank, local);
  std::uint16_t* dst = out + t * cv.row;
  const std::uint64_t key = (static_cast<std::uint64_t>(e.request) << 40) ^ static_cast<std::uint64_t>(local);
  for (int i = threadIdx.x; i < cv.row; i += blockDim.x)
    dst[i] = src ? src[i] : garbage_elem(cv.seed, 2 + static_cast<std::uint64_t>(rank), key, i);
}

__global__ void fill_garbage_kernel(CacheView cv, std::uint64_t stream, std::int64_t rows, std::uint16_t* out) {
  const std::int64_t t = blockIdx.x;
  if (t >= rows) return;
  for (int i = threadIdx.x; i < cv.row; i += blockDim.x)
    out[t * cv.row + i] = garbage_elem(cv.seed, stream, static_cast<std::uint64_t>(t), i);
}

__global__ void copy_rows_kernel(const CopySegment* segs, int row, const std::uint16_t* src, std::uint16_t* dst) {
  const CopySegment s = segs[blockIdx.y];
  for (std::int64_t k = blockIdx.x; k < s.count; k += gridDim.x)
    for (int i = threadIdx.x; i < row; i += blockDim.x) dst[(s.dst + k * s.dst_stride) * row + i] = src[(s.src + k) * row + i];
}

}  // namespace

void launch_gather_positions(const CacheView& cv, const GatherEntry* entries, int n_entries, std::int64_t rows,
                             std::uint16_t* out) {
  if (rows <= 0 || n_entries <= 0) return;
  CP_LAUNCH(gather_positions_kernel, static_cast<unsigned>(rows), 128, 0, 0, cv, entries, n_entries, rows, out);
}
void launch_gather_local(const CacheView& cv, std::int64_t rank, const GatherEntry* entries, int n_entries,
                         std::int64_t rows, std::uint16_t* out) {
  if (rows <= 0 || n_entries <= 0) return;
  CP_LAUNCH(gather_local_kernel, static_cast<unsigned>(rows), 128, 0, 0, cv, rank, entries, n_entries, rows, out);
}
void launch_fill_garbage(const CacheView& cv, std::uint64_t stream, std::int64_t rows, std::uint16_t* out) {
  if (rows <= 0) return;
  CP_LAUNCH(fill_garbage_kernel, static_cast<unsigned>(rows), 128, 0, 0, cv, stream, rows, out);
}
void launch_copy_rows(const CopySegment* segs, int n_segs, std::int64_t max_count, int row, const std::uint16_t* src,
                      std::uint16_t* dst) {
  if (n_segs <= 0 || max_count <= 0) return;
  const dim3 grid(static_cast<unsigned>(std::min<std::int64_t>(max_count, 4096)), static_cast<unsigned>(n_segs));
  CP_LAUNCH(copy_rows_kernel, grid, 128, 0, 0, segs, row, src, dst);
}

}  // namespace cp::gpu

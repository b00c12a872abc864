// Up-projection: kv_b_proj on the latent rows (the portable kernels and --mode fast), and k_pe.
// Kernel + launcher layers of the MLA reference pipeline (the stages of reference/mla/stages.h):
// each kernel mirrors one stage of the CPU reference and uses the same CP_HD math
// (reference/mla/math), so the bits match.
#include "kernels/src/mla_common.h"

namespace cp::gpu {
namespace {

// Up-projection: a tile of kRows rows per block, one output column per thread; per output
// the order over L is that of dot()/axpy_rows (acc = +0, then l = 0..L-1), never fused.
constexpr int kUpRows = 8;
constexpr int kUpThreads = 128;
__global__ void up_project_kernel(const std::uint16_t* rows, std::int64_t n, int L, int rowlen, int width,
                                  const float* w, float* out) {
  extern __shared__ float xs[];  // [kUpRows][L]
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.y) * kUpRows;
  for (int k = threadIdx.x; k < kUpRows * L; k += blockDim.x) {
    const std::int64_t i = i0 + k / L;
    xs[k] = i < n ? mla::bf16_to_float(rows[i * rowlen + k % L]) : 0.0f;
  }
  __syncthreads();
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= width) return;
  float acc[kUpRows];
#pragma unroll
  for (int r = 0; r < kUpRows; ++r) acc[r] = 0.0f;
  for (int l = 0; l < L; ++l) {
    const float wl = w[static_cast<std::int64_t>(l) * width + j];
#pragma unroll
    for (int r = 0; r < kUpRows; ++r) acc[r] = mla::dot_step(acc[r], xs[r * L + l], wl);
  }
#pragma unroll
  for (int r = 0; r < kUpRows; ++r)
    if (i0 + r < n) out[(i0 + r) * width + j] = mla::round_to_bf16(acc[r]);
}

// Up-projection, register- and shared-memory-tiled (issue 15 part 3): a block computes a tile
// of kTm x kTn outputs (rows x columns), 256 threads, each an 8 x 8 register tile (rows
// {ty*4 + 0..3, 64 + ty*4 + 0..3}, columns likewise from tx: conflict-free 16-byte shared loads).
// The L loop runs in steps of kTk: the step's x values (bf16 -> fp32, stored transposed
// [l][row]) and W values ([l][column]) are staged in shared memory, then every thread runs
// acc = dot_step(acc, x, w) for l = l0 .. l0 + kTk - 1 in order. Each output therefore has the
// order of dot()/axpy_rows (acc = +0, then l = 0..L-1, mul then add, never fused): the same bits
// as the CPU and the simple kernel; only how many outputs share a load changed.
constexpr int kTm = 128, kTn = 128, kTk = 16, kTThreads = 256;
constexpr int kTPad = 4;  // row padding of the transposed x tile (keeps 16-byte alignment)
__global__ void __launch_bounds__(kTThreads)
    up_project_tiled_kernel(const std::uint16_t* rows, std::int64_t n, int L, int rowlen, int width, const float* w,
                            float* out) {
  alignas(16) __shared__ float xs[kTk][kTm + kTPad];
  alignas(16) __shared__ float ws[kTk][kTn];
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % 16, ty = tid / 16;
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.y) * kTm;
  const int j0 = static_cast<int>(blockIdx.x) * kTn;
  float acc[8][8];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int c = 0; c < 8; ++c) acc[r][c] = 0.0f;
  for (int l0 = 0; l0 < L; l0 += kTk) {
    const int kk = min(kTk, L - l0);
    // x: 16 consecutive l of one row per 16 threads (32 contiguous bytes), 16 rows per pass.
    for (int e = tid; e < kTm * kTk; e += kTThreads) {
      const int l = e % kTk, r = e / kTk;
      const std::int64_t i = i0 + r;
      xs[l][r] = (i < n && l < kk) ? mla::bf16_to_float(rows[i * rowlen + l0 + l]) : 0.0f;
    }
    // W: 128 consecutive columns of one l per 128 threads (coalesced).
    for (int e = tid; e < kTk * kTn; e += kTThreads) {
      const int c = e % kTn, l = e / kTn;
      const int j = j0 + c;
      ws[l][c] = (j < width && l < kk) ? w[static_cast<std::int64_t>(l0 + l) * width + j] : 0.0f;
    }
    __syncthreads();
    if (kk == kTk) {
#pragma unroll
      for (int l = 0; l < kTk; ++l) {
        const float4 a0 = *reinterpret_cast<const float4*>(&xs[l][ty * 4]);
        const float4 a1 = *reinterpret_cast<const float4*>(&xs[l][64 + ty * 4]);
        const float4 b0 = *reinterpret_cast<const float4*>(&ws[l][tx * 4]);
        const float4 b1 = *reinterpret_cast<const float4*>(&ws[l][64 + tx * 4]);
        const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
          for (int c = 0; c < 8; ++c) acc[r][c] = mla::dot_step(acc[r][c], a[r], b[c]);
      }
    } else {  // the last, partial step: exactly L terms per output, no padding terms
      for (int l = 0; l < kk; ++l) {
        float a[8], b[8];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          a[q] = xs[l][ty * 4 + q];
          a[4 + q] = xs[l][64 + ty * 4 + q];
          b[q] = ws[l][tx * 4 + q];
          b[4 + q] = ws[l][64 + tx * 4 + q];
        }
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
          for (int c = 0; c < 8; ++c) acc[r][c] = mla::dot_step(acc[r][c], a[r], b[c]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const std::int64_t i = i0 + (r < 4 ? ty * 4 + r : 64 + ty * 4 + (r - 4));
    if (i >= n) continue;
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      const int j = j0 + (c < 4 ? tx * 4 + c : 64 + tx * 4 + (c - 4));
      if (j < width) out[i * width + j] = mla::round_to_bf16(acc[r][c]);
    }
  }
}

#if defined(CP_BF16_MMA_BACKEND)
// Up-projection for `--mode fast` (issue 15 part 4): bf16 x bf16 products accumulated in fp32 by
// the matrix units (wmma 16 x 16 x 16), then rounded to bf16 like every up-projection. A block
// computes a kFm x kFn output tile with kFWarps warps (4 x 2, each 32 rows x 64 columns = 2 x 4
// fragments); the L loop runs in steps of kFk (x and W staged in shared memory, zero past the
// ends), two MMA steps each, in order l = 0, 16, 32, ... So an output's arithmetic is the same
// sequence of MMAs on its own row of x and column of W wherever the row sits in the workspace:
// fixed by L, not by how the context was chunked (chunked == unchunked on one device). It is
// not the CPU's sequential fp32 chain (the matrix units' summation order and internal rounding
// are their own), so CPU == GPU does not hold in this mode (docs/gpu.md: the stated bound).
constexpr int kFm = 128, kFn = 128, kFk = 32, kFWarps = 8;
constexpr int kFxLd = kFk + 8, kFwLd = kFn + 8;  // 16-bit elements; rows stay 32-byte aligned
__device__ void mma_stage(std::uint16_t (*xs)[kFxLd], std::uint16_t (*ws)[kFwLd], const std::uint16_t* rows,
                          std::int64_t n, int L, int rowlen, int width, const std::uint16_t* wb, std::int64_t i0,
                          int j0, int l0, bool vec) {
  const int tid = static_cast<int>(threadIdx.x), nthr = static_cast<int>(blockDim.x);
  if (vec) {  // 8 elements (16 bytes) per load; L, rowlen, width multiples of 8, pointers aligned
    for (int e = tid; e < kFm * kFk / 8; e += nthr) {
      const int r = e / (kFk / 8), c8 = (e % (kFk / 8)) * 8;
      uint4 x = make_uint4(0u, 0u, 0u, 0u);
      if (i0 + r < n && l0 + c8 < L) x = *reinterpret_cast<const uint4*>(rows + (i0 + r) * rowlen + l0 + c8);
      *reinterpret_cast<uint4*>(&xs[r][c8]) = x;
    }
    for (int e = tid; e < kFk * kFn / 8; e += nthr) {
      const int l = e / (kFn / 8), c8 = (e % (kFn / 8)) * 8;
      uint4 x = make_uint4(0u, 0u, 0u, 0u);
      if (l0 + l < L && j0 + c8 < width)
        x = *reinterpret_cast<const uint4*>(wb + static_cast<std::int64_t>(l0 + l) * width + j0 + c8);
      *reinterpret_cast<uint4*>(&ws[l][c8]) = x;
    }
    return;
  }
  for (int e = tid; e < kFm * kFk; e += nthr) {
    const int r = e / kFk, l = e % kFk;
    xs[r][l] = (i0 + r < n && l0 + l < L) ? rows[(i0 + r) * rowlen + l0 + l] : std::uint16_t{0};
  }
  for (int e = tid; e < kFk * kFn; e += nthr) {
    const int l = e / kFn, c = e % kFn;
    ws[l][c] =
        (l0 + l < L && j0 + c < width) ? wb[static_cast<std::int64_t>(l0 + l) * width + j0 + c] : std::uint16_t{0};
  }
}

__global__ void up_project_mma_kernel(const std::uint16_t* rows, std::int64_t n, int L, int rowlen, int width,
                                      const std::uint16_t* wb, float* out, bool vec) {
#if defined(CP_DEVICE_BF16_MMA)
  namespace wm = nvcuda::wmma;
  alignas(32) __shared__ std::uint16_t xs[kFm][kFxLd];
  alignas(32) __shared__ std::uint16_t ws[kFk][kFwLd];
  alignas(32) __shared__ float cs[kFWarps][16 * 16];
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / cp_wave_size(), lane = tid % cp_wave_size();
  const int wr = warp / 2, wc = warp % 2;
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.y) * kFm;
  const int j0 = static_cast<int>(blockIdx.x) * kFn;
  wm::fragment<wm::accumulator, 16, 16, 16, float> acc[2][4];
#pragma unroll
  for (int a = 0; a < 2; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) wm::fill_fragment(acc[a][b], 0.0f);
  for (int l0 = 0; l0 < L; l0 += kFk) {
    mma_stage(xs, ws, rows, n, L, rowlen, width, wb, i0, j0, l0, vec);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kFk; kk += 16) {
      wm::fragment<wm::matrix_a, 16, 16, 16, __nv_bfloat16, wm::row_major> fa[2];
      wm::fragment<wm::matrix_b, 16, 16, 16, __nv_bfloat16, wm::row_major> fb[4];
#pragma unroll
      for (int a = 0; a < 2; ++a)
        wm::load_matrix_sync(fa[a], reinterpret_cast<const __nv_bfloat16*>(&xs[wr * 32 + a * 16][kk]), kFxLd);
#pragma unroll
      for (int b = 0; b < 4; ++b)
        wm::load_matrix_sync(fb[b], reinterpret_cast<const __nv_bfloat16*>(&ws[kk][wc * 64 + b * 16]), kFwLd);
#pragma unroll
      for (int a = 0; a < 2; ++a)
#pragma unroll
        for (int b = 0; b < 4; ++b) wm::mma_sync(acc[a][b], fa[a], fb[b], acc[a][b]);
    }
    __syncthreads();
  }
  float* c = cs[warp];
#pragma unroll
  for (int a = 0; a < 2; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      wm::store_matrix_sync(c, acc[a][b], 16, wm::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 16 * 16; e += cp_wave_size()) {
        const std::int64_t i = i0 + wr * 32 + a * 16 + e / 16;
        const int j = j0 + wc * 64 + b * 16 + e % 16;
        if (i < n && j < width) out[i * width + j] = mla::round_to_bf16(c[e]);
      }
      __syncwarp();
    }
#else
  __trap();  // the host launches this kernel only on sm_80 and later (launch_up_project_fast)
#endif
}
#endif  // CP_BF16_MMA_BACKEND

__global__ void kpe_kernel(const std::uint16_t* rows, std::int64_t n, int L, int Rr, int rowlen, float* kpe) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n * Rr) return;
  kpe[k] = mla::bf16_to_float(rows[(k / Rr) * rowlen + L + k % Rr]);
}

}  // namespace

UpKernel up_project_kernel_choice() {
  // CHUNKPROOF_GPU_UPPROJ=rows8: the previous kernel (8 rows per block, one column per thread),
  // for A/B timing in `bench --device gpu`; both give the same bits.
  static const UpKernel k = [] {
    const char* e = std::getenv("CHUNKPROOF_GPU_UPPROJ");
    return e != nullptr && std::string(e) == "rows8" ? UpKernel::rows8 : UpKernel::tiled;
  }();
  return k;
}

void launch_up_project(const std::uint16_t* rows, std::int64_t n, int L, int Rr, int N, int cols, const float* w,
                       float* out, float* kpe) {
  if (n <= 0) return;
  const int width = N * cols;
  if (up_project_kernel_choice() == UpKernel::tiled) {
    const dim3 tgrid(blocks_for(width, kTn), blocks_for(n, kTm));
    CP_LAUNCH(up_project_tiled_kernel, tgrid, kTThreads, 0, 0, rows, n, L, L + Rr, width, w, out);
    if (kpe) CP_LAUNCH(kpe_kernel, blocks_for(n * Rr, 256), 256, 0, 0, rows, n, L, Rr, L + Rr, kpe);
    return;
  }
  const dim3 grid(blocks_for(width, kUpThreads), blocks_for(n, kUpRows));
  const std::size_t shmem = sizeof(float) * kUpRows * static_cast<std::size_t>(L);
  if (shmem > 48 * 1024)
    throw GpuError("launch_up_project: L = " + std::to_string(L) + " needs more than 48 KiB of shared memory", 0);
  CP_LAUNCH(up_project_kernel, grid, kUpThreads, shmem, 0, rows, n, L, L + Rr, width, w, out);
  if (kpe) CP_LAUNCH(kpe_kernel, blocks_for(n * Rr, 256), 256, 0, 0, rows, n, L, Rr, L + Rr, kpe);
}
bool fast_mode_supported(std::string& why) {
#if defined(CP_BF16_MMA_BACKEND)
  int dev = 0;
  CP_GPU_CHECK(hipGetDevice(&dev));
  hipDeviceProp_t prop{};
  CP_GPU_CHECK(hipGetDeviceProperties(&prop, dev));
  if (prop.major < 8) {
    why = "--mode fast: bf16 MMA needs compute capability 8.0 or later (this GPU: " + std::to_string(prop.major) + "." +
          std::to_string(prop.minor) + ")";
    return false;
  }
  why = CP_BF16_MMA_BACKEND;
  return true;
#else
  why = std::string("--mode fast: not supported on this target (") + CP_GPU_VENDOR +
        " build: the bf16 matrix-unit up-projection exists for NVIDIA wmma only; AMD MFMA is not wired up)";
  return false;
#endif
}

void launch_up_project_fast(const std::uint16_t* rows, std::int64_t n, int L, int Rr, int N, int cols,
                            const std::uint16_t* wb, float* out, float* kpe) {
  if (n <= 0) return;
#if defined(CP_BF16_MMA_BACKEND)
  const int width = N * cols, rowlen = L + Rr;
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool vec = L % 8 == 0 && rowlen % 8 == 0 && width % 8 == 0 && aligned(rows) && aligned(wb);
  hipDeviceProp_t prop{};
  int dev = 0;
  CP_GPU_CHECK(hipGetDevice(&dev));
  CP_GPU_CHECK(hipGetDeviceProperties(&prop, dev));
  const dim3 grid(blocks_for(width, kFn), blocks_for(n, kFm));
  CP_LAUNCH(up_project_mma_kernel, grid, kFWarps * prop.warpSize, 0, 0, rows, n, L, rowlen, width, wb, out, vec);
  if (kpe) CP_LAUNCH(kpe_kernel, blocks_for(n * Rr, 256), 256, 0, 0, rows, n, L, Rr, L + Rr, kpe);
#else
  (void)rows, (void)L, (void)Rr, (void)N, (void)cols, (void)wb, (void)out, (void)kpe;
  std::string why;
  fast_mode_supported(why);
  throw GpuError(why, 0);
#endif
}

}  // namespace cp::gpu

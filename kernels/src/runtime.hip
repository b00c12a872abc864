// Runtime layer: every vendor runtime call of the harness lives here, each one checked.
#include <algorithm>

#include "kernels/gpu_compat.h"
#include "reference/mla/math/all.h"
#include "reference/mla/math/exact_bins.h"

namespace cp::gpu {

const char* backend_name() { return CP_GPU_VENDOR; }

std::optional<DeviceInfo> probe(std::string& why) {
  int count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess) {
    (void)hipGetLastError();  // clear the sticky error so later calls report their own
    why = std::string("no usable GPU: ") + CP_GPU_VENDOR + " runtime says " + hipGetErrorName(e) + " (" +
          hipGetErrorString(e) + ")";
    return std::nullopt;
  }
  if (count == 0) {
    why = std::string("no usable GPU: the ") + CP_GPU_VENDOR + " runtime found 0 devices";
    return std::nullopt;
  }
  CP_GPU_CHECK(hipSetDevice(0));
  hipDeviceProp_t prop{};
  CP_GPU_CHECK(hipGetDeviceProperties(&prop, 0));
  DeviceInfo d;
  d.backend = CP_GPU_VENDOR;
  d.name = prop.name;
#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
  d.arch = prop.gcnArchName;
#else
  d.arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
#endif
  CP_GPU_CHECK(hipRuntimeGetVersion(&d.runtime_version));
  CP_GPU_CHECK(hipDriverGetVersion(&d.driver_version));
  d.multiprocessors = prop.multiProcessorCount;
  d.wave_size = prop.warpSize;
  d.global_mem = static_cast<std::int64_t>(prop.totalGlobalMem);
  return d;
}

int device_count(std::string& why) {
  int n = 0;
  const hipError_t e = hipGetDeviceCount(&n);
  if (e != hipSuccess) {
    (void)hipGetLastError();
    why = std::string(CP_GPU_VENDOR) + " runtime says " + hipGetErrorName(e) + " (" + hipGetErrorString(e) + ")";
    return 0;
  }
  if (n == 0) why = std::string("the ") + CP_GPU_VENDOR + " runtime found 0 devices";
  return n;
}

void set_device(int device) { CP_GPU_CHECK(hipSetDevice(device)); }

void* raw_alloc(std::size_t bytes) {
  void* p = nullptr;
  CP_GPU_CHECK(hipMalloc(&p, bytes));
  return p;
}
void raw_free(void* p) noexcept {
  if (p) (void)hipFree(p);  // destructor path: nothing sensible to do with an error here
}
void upload(void* dst, const void* src, std::size_t bytes) {
  CP_GPU_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice));
}
void download(void* dst, const void* src, std::size_t bytes) {
  CP_GPU_CHECK(hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost));
}
void copy_d2d(void* dst, const void* src, std::size_t bytes) {
  CP_GPU_CHECK(hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, 0));
}
void fill_bytes(void* dst, unsigned char byte, std::size_t bytes) { CP_GPU_CHECK(hipMemsetAsync(dst, byte, bytes, 0)); }
void synchronize() { CP_GPU_CHECK(hipDeviceSynchronize()); }

Timer::Timer() {
  hipEvent_t a = nullptr, b = nullptr;
  CP_GPU_CHECK(hipEventCreate(&a));
  CP_GPU_CHECK(hipEventCreate(&b));
  a_ = a;
  b_ = b;
}
Timer::~Timer() {
  (void)hipEventDestroy(static_cast<hipEvent_t>(a_));
  (void)hipEventDestroy(static_cast<hipEvent_t>(b_));
}
void Timer::start() { CP_GPU_CHECK(hipEventRecord(static_cast<hipEvent_t>(a_), 0)); }
double Timer::stop_ms() {
  CP_GPU_CHECK(hipEventRecord(static_cast<hipEvent_t>(b_), 0));
  CP_GPU_CHECK(hipEventSynchronize(static_cast<hipEvent_t>(b_)));
  float ms = 0;
  CP_GPU_CHECK(hipEventElapsedTime(&ms, static_cast<hipEvent_t>(a_), static_cast<hipEvent_t>(b_)));
  return static_cast<double>(ms);
}

namespace {

// Arithmetic ceiling: kChains independent FMA chains per thread (enough to hide the FMA
// latency), explicit fmaf so no flag can split them. The result is stored so nothing is dead.
constexpr int kChains = 8;
constexpr int kFmaIters = 4096;

__global__ void fma_ceiling_kernel(float* out, float a, float b) {
  float x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = static_cast<float>(threadIdx.x + c);
  for (int i = 0; i < kFmaIters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = fmaf(x[c], a, b);
  }
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// The up-projection's ceiling (issue 15): the contract forbids contracting its multiply and add
// into an FMA, so its rate is that of a separate fp32 multiply and add per pair — the same
// mla::dot_step the kernel runs, kChains independent chains per thread, 2 flops per step.
__global__ void mul_add_ceiling_kernel(float* out, float a, float b) {
  float x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = static_cast<float>(threadIdx.x + c);
  for (int i = 0; i < kFmaIters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = mla::dot_step(b, x[c], a);
  }
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// The exact accumulation's integer ceiling (issue 15): the numerator kernel's per-term integer
// work with the operands in registers. kChains independent mla::ExactWin accumulators per
// thread; a step of a chain is what exact_tile_kernel does per term once p and v are
// decomposed: the 24 x 8-bit mantissa product (mask, or, multiply), the exponent sum, the sign,
// and ExactWin::add_short (window test, 64-bit shift, conditional negate, 64-bit add into one of
// two windows). `base` is a kernel argument so the compiler cannot prove the window test; the
// exponents cycle through both windows. No memory traffic, no exp, no decomposition.
constexpr int kTermIters = 2048;
__global__ void exact_term_ceiling_kernel(std::uint64_t* out, std::uint32_t seed, int base) {
  mla::ExactWin acc[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) acc[c].clear();
  std::uint32_t mp = seed ^ threadIdx.x;
  for (int i = 0; i < kTermIters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      const std::uint32_t w = ((mp + static_cast<std::uint32_t>(c) * 0x9e3779b9u) & 0xffffffu) | 0x800000u;
      const std::uint32_t vm8 = 0x80u | static_cast<std::uint32_t>((i + c) & 0x7f);
      acc[c].add_short(((i ^ c) & 1) != 0, w * vm8, base + ((i * 7 + c * 3) & 31));
    }
    mp += 0x3c6ef372u;
  }
  std::uint64_t s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s ^= acc[c].w0 ^ (acc[c].w1 << 1) ^ acc[c].wcount;
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

}  // namespace

Ceilings measure_ceilings(std::size_t copy_bytes) {
  Ceilings c;
  c.copy_bytes = copy_bytes;
  {
    DeviceBuffer<unsigned char> src(copy_bytes), dst(copy_bytes);
    src.zero();
    copy_d2d(dst.data(), src.data(), copy_bytes);  // warm-up
    Timer t;
    constexpr int kReps = 10;
    double best = 1e30;
    for (int r = 0; r < kReps; ++r) {
      t.start();
      copy_d2d(dst.data(), src.data(), copy_bytes);
      best = std::min(best, t.stop_ms());
    }
    c.copy_bytes_per_s = 2.0 * static_cast<double>(copy_bytes) / (best * 1e-3);
  }
  {
    hipDeviceProp_t prop{};
    CP_GPU_CHECK(hipGetDeviceProperties(&prop, 0));
    const int threads = 256;
    const int blocks = prop.multiProcessorCount * 16;
    DeviceBuffer<float> out(static_cast<std::size_t>(blocks) * threads);
    CP_LAUNCH(fma_ceiling_kernel, blocks, threads, 0, 0, out.data(), 0.999f, 0.001f);  // warm-up
    Timer t;
    double best = 1e30;
    for (int r = 0; r < 5; ++r) {
      t.start();
      CP_LAUNCH(fma_ceiling_kernel, blocks, threads, 0, 0, out.data(), 0.999f, 0.001f);
      best = std::min(best, t.stop_ms());
    }
    const double fmas = static_cast<double>(blocks) * threads * kChains * kFmaIters;
    c.fp32_flops_per_s = 2.0 * fmas / (best * 1e-3);
    CP_LAUNCH(mul_add_ceiling_kernel, blocks, threads, 0, 0, out.data(), 0.999f, 0.001f);  // warm-up
    best = 1e30;
    for (int r = 0; r < 5; ++r) {
      t.start();
      CP_LAUNCH(mul_add_ceiling_kernel, blocks, threads, 0, 0, out.data(), 0.999f, 0.001f);
      best = std::min(best, t.stop_ms());
    }
    c.fp32_mul_add_flops_per_s = 2.0 * fmas / (best * 1e-3);
    DeviceBuffer<std::uint64_t> iout(static_cast<std::size_t>(blocks) * threads);
    const int base = mla::ExactWin::kU0 - 20;
    CP_LAUNCH(exact_term_ceiling_kernel, blocks, threads, 0, 0, iout.data(), 12345u, base);  // warm-up
    best = 1e30;
    for (int r = 0; r < 5; ++r) {
      t.start();
      CP_LAUNCH(exact_term_ceiling_kernel, blocks, threads, 0, 0, iout.data(), 12345u, base);
      best = std::min(best, t.stop_ms());
    }
    c.exact_terms_per_s = static_cast<double>(blocks) * threads * kChains * kTermIters / (best * 1e-3);
  }
  return c;
}

}  // namespace cp::gpu

// CP_HD: marks the per-element math shared by the CPU reference and the GPU kernels.
//
// Under nvcc (__CUDACC__) or hipcc (__HIPCC__) it expands to `__host__ __device__`, else to
// nothing. Everything behind it is header-only, allocation-free and exception-free, so the
// same source gives the same bits on the CPU, an H200 and an MI300X (DESIGN §6) as long as
// the build keeps IEEE semantics: host `-ffp-contract=off -fno-fast-math` (chunkproof::options),
// nvcc `--fmad=false` (and no `--use_fast_math`), hipcc `-ffp-contract=off`.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define CP_HD __host__ __device__
#else
#define CP_HD
#endif

// True while compiling device code (where the *_rn intrinsics exist).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define CP_DEVICE_PASS 1
#else
#define CP_DEVICE_PASS 0
#endif

namespace cp::mla {

// Bit casts that work in host and device code (memcpy is supported in both).
CP_HD inline std::uint32_t bits_of(float x) {
  std::uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}
CP_HD inline float float_of(std::uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}
CP_HD inline std::uint64_t bits_of(double x) {
  std::uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}
CP_HD inline double double_of(std::uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

// One IEEE multiply and one IEEE add, each rounded to nearest even, never fused into an FMA.
// On the device the _rn intrinsics are never contracted, whatever --fmad says; on the host
// -ffp-contract=off (chunkproof::options) gives the same guarantee for plain operators.
CP_HD inline float mul_rn(float a, float b) {
#if CP_DEVICE_PASS
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
CP_HD inline float add_rn(float a, float b) {
#if CP_DEVICE_PASS
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
CP_HD inline float sub_rn(float a, float b) {
#if CP_DEVICE_PASS
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
CP_HD inline float div_rn(float a, float b) {
#if CP_DEVICE_PASS
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

CP_HD inline bool is_nan(float x) { return (bits_of(x) & 0x7fffffffu) > 0x7f800000u; }
CP_HD inline bool is_inf(float x) { return (bits_of(x) & 0x7fffffffu) == 0x7f800000u; }
CP_HD inline bool is_finite(float x) { return (bits_of(x) & 0x7f800000u) != 0x7f800000u; }
CP_HD inline float pos_inf() { return float_of(0x7f800000u); }
CP_HD inline float neg_inf() { return float_of(0xff800000u); }
CP_HD inline float quiet_nan() { return float_of(0x7fc00000u); }
// The bits of a NaN produced by arithmetic are vendor-defined (x86 SSE: 0xffc00000 or the
// operand's payload; NVIDIA: 0x7fffffff). Every value a check compares bit for bit goes through
// this, so a NaN is the same NaN on every device.
CP_HD inline float canonical_nan(float x) { return is_nan(x) ? quiet_nan() : x; }
// max that returns `b` when `a` is NaN and `a` when `b` is NaN is NOT what we want anywhere:
// this one is the plain `a > b ? a : b` (a NaN in `a` yields `b`), documented where used.
CP_HD inline float max_sel(float a, float b) { return a > b ? a : b; }

}  // namespace cp::mla

// The one portability header of kernels/ (DESIGN §7, STYLE: thin vendor header).
//
// Kernels are written in HIP spelling. Under nvcc this header maps the few HIP runtime names
// we use to CUDA (a minimal alias table, as llama.cpp's vendors/hip.h does in the other
// direction); behaviour that differs between vendors goes through `cp_`-prefixed wrappers
// (wave size, 64-bit atomics, the launch macro). Compiler macros are never redefined, so
// arch checks and grep keep telling the truth.
#pragma once

#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime.h>
#define CP_GPU_VENDOR "HIP"
#elif defined(__CUDACC__)
#include <cuda_runtime.h>
#define CP_GPU_VENDOR "CUDA"
// Spelling only: HIP runtime names -> CUDA runtime names.
#define hipError_t cudaError_t
#define hipSuccess cudaSuccess
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInsufficientDriver cudaErrorInsufficientDriver
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipGetLastError cudaGetLastError
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceProp_t cudaDeviceProp
#define hipSetDevice cudaSetDevice
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipStream_t cudaStream_t
#define hipEvent_t cudaEvent_t
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventQuery cudaEventQuery
#define hipEventElapsedTime cudaEventElapsedTime
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipDriverGetVersion cudaDriverGetVersion
#define hipGetDevice cudaGetDevice
#define hipStreamQuery cudaStreamQuery
#define hipErrorNotReady cudaErrorNotReady
#define hipDeviceCanAccessPeer cudaDeviceCanAccessPeer
#define hipDeviceEnablePeerAccess cudaDeviceEnablePeerAccess
#define hipErrorPeerAccessAlreadyEnabled cudaErrorPeerAccessAlreadyEnabled
#define hipMemcpyPeerAsync cudaMemcpyPeerAsync
#else
#error "kernels/gpu_compat.h: compile GPU sources with hipcc/clang -x hip (AMD) or nvcc (NVIDIA)"
#endif

// Supported device targets. Anything else is refused at compile time rather than run with
// untested wave/atomic behaviour.
#if defined(__HIP_DEVICE_COMPILE__)
#if !(defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) ||    \
      defined(__gfx950__) || defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1200__) || \
      defined(__gfx1201__))
#error "kernels/gpu_compat.h: unsupported AMD target (supported: gfx90a, gfx940-942, gfx950, gfx11, gfx12)"
#endif
#elif defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ < 700
#error "kernels/gpu_compat.h: NVIDIA targets below sm_70 are not supported"
#endif
#endif

#include <cstdint>
#include <cstdio>
#include <string>

#include "kernels/runtime.h"

// Every runtime call goes through CP_GPU_CHECK: on failure it throws cp::gpu::GpuError naming
// the statement, the file and the line (callers turn it into exit 2 / a skipped test).
namespace cp::gpu {
[[noreturn]] inline void gpu_fail(hipError_t e, const char* stmt, const char* file, int line) {
  throw GpuError(std::string(CP_GPU_VENDOR) + " error " + hipGetErrorName(e) + " (" + hipGetErrorString(e) + ") in `" +
                     stmt + "` at " + file + ":" + std::to_string(line),
                 static_cast<int>(e));
}
}  // namespace cp::gpu

#define CP_GPU_CHECK(stmt)                                                                                  \
  do {                                                                                                      \
    const hipError_t cp_gpu_check_err_ = (stmt);                                                            \
    if (cp_gpu_check_err_ != hipSuccess) ::cp::gpu::gpu_fail(cp_gpu_check_err_, #stmt, __FILE__, __LINE__); \
  } while (0)

// Launch + immediate launch-error check (a bad configuration is reported at its launch site).
#define CP_LAUNCH(kernel, grid, block, shmem, stream, ...)       \
  do {                                                           \
    kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__); \
    CP_GPU_CHECK(hipGetLastError());                             \
  } while (0)

// bf16 matrix units for `--mode fast` (the up-projection as bf16 MMA with fp32 accumulation).
// NVIDIA: wmma (tensor cores, sm_80 and later: CP_DEVICE_BF16_MMA in the device pass). AMD:
// not wired up (MFMA would go here); launch_up_project_fast then says so.
#if defined(__CUDACC__) && !(defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__))
#include <cuda_bf16.h>
#include <mma.h>
#define CP_BF16_MMA_BACKEND "wmma bf16 (NVIDIA tensor cores)"
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CP_DEVICE_BF16_MMA 1
#endif
#endif

// Launch bounds with a minimum of resident blocks per multiprocessor (register budget) on NVIDIA;
// HIP reads the second argument as waves per execution unit (a different budget, an error when
// it cannot be met), so there only the thread count is given.
#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
#define CP_LAUNCH_BOUNDS_MIN_BLOCKS(threads, blocks) __launch_bounds__(threads)
#else
#define CP_LAUNCH_BOUNDS_MIN_BLOCKS(threads, blocks) __launch_bounds__(threads, blocks)
#endif

// ---- behaviour wrappers (device side) ----

// Wave (warp) size, by function: never a literal. warpSize is a device-side builtin on both.
__device__ __forceinline__ int cp_wave_size() { return warpSize; }

// Order-free 64-bit integer accumulation (two's complement add is associative and
// commutative, so the result does not depend on the order the atomics land in).
__device__ __forceinline__ void cp_atomic_add_u64(std::uint64_t* addr, std::uint64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
}
__device__ __forceinline__ void cp_atomic_add_i64(std::int64_t* addr, std::int64_t v) {
  cp_atomic_add_u64(reinterpret_cast<std::uint64_t*>(addr), static_cast<std::uint64_t>(v));
}
__device__ __forceinline__ void cp_atomic_or_u32(std::uint32_t* addr, std::uint32_t v) {
  atomicOr(reinterpret_cast<unsigned int*>(addr), static_cast<unsigned int>(v));
}
// Max of non-negative-or-any float through its order-preserving integer image is done by the
// callers on an integer key; a float atomic max is not portable.
__device__ __forceinline__ void cp_atomic_max_u32(std::uint32_t* addr, std::uint32_t v) {
  atomicMax(reinterpret_cast<unsigned int*>(addr), static_cast<unsigned int>(v));
}

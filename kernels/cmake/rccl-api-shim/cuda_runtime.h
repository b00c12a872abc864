// RCCL-API compile check (kernels/cmake/compile_checks.cmake): lets NCCL's nccl.h, whose API
// RCCL's rccl.h reproduces, be read by a HIP compile where no rccl.h is installed (Debian).
// Compile-only: nothing built with it is linked.
#pragma once
#include <hip/hip_runtime.h>
typedef hipStream_t cudaStream_t;

# Compile-only checks of every kernel source for targets this machine cannot run (ctest label
# gpu-compile): AMD gfx90a through hipcc, AMD gfx942 through clang-19 (+ an aliased device
# library, see compile_check.cmake), NVIDIA sm_90 through nvcc when the build is not CUDA
# already. Each check is skipped (not failed) when its compiler is not installed.
# Included from tests/gpu/CMakeLists.txt.
file(GLOB CHUNKPROOF_GPU_DEVICE_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/src/*.hip)
find_program(CHUNKPROOF_HIPCC hipcc)
find_program(CHUNKPROOF_CLANG19 NAMES clang++ PATHS /usr/lib/llvm-19/bin NO_DEFAULT_PATH)
find_program(CHUNKPROOF_NVCC nvcc)
find_path(CHUNKPROOF_ROCM_BITCODE oclc_isa_version_940.bc
          PATHS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /opt/rocm/amdgcn/bitcode NO_DEFAULT_PATH)

set(_cp_cc_script ${CMAKE_CURRENT_LIST_DIR}/compile_check.cmake)
set(_cp_cc_dir ${PROJECT_BINARY_DIR}/kernels/compile-check)
string(REPLACE ";" "|" _cp_cc_sources "${CHUNKPROOF_GPU_DEVICE_SOURCES}")

function(_cp_compile_check name compiler kind arch)
  set(sources "${_cp_cc_sources}")
  set(extra "")
  set(out ${_cp_cc_dir}/${arch})
  if(ARGC GREATER 4)  # the collective layer: its source and include flags
    set(sources "${ARGV4}")
    set(extra "${ARGV5}")
    set(out ${_cp_cc_dir}/${arch}-collective)
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DCOMPILER=${compiler} -DKIND=${kind} -DARCH=${arch}
                   "-DSOURCES=${sources}" -DROOT=${PROJECT_SOURCE_DIR} -DOUT=${out}
                   -DBITCODE=${CHUNKPROOF_ROCM_BITCODE} "-DEXTRA=${extra}" -P ${_cp_cc_script})
  set_tests_properties(${name} PROPERTIES LABELS gpu-compile SKIP_RETURN_CODE 77 TIMEOUT 300 COST 40)
endfunction()

_cp_compile_check(gpu_compile_hip_gfx90a "${CHUNKPROOF_HIPCC}" hipcc gfx90a)
_cp_compile_check(gpu_compile_hip_gfx942 "${CHUNKPROOF_CLANG19}" clang19 gfx942)
if(NOT CHUNKPROOF_GPU STREQUAL "CUDA")
  _cp_compile_check(gpu_compile_cuda_sm90 "${CHUNKPROOF_NVCC}" nvcc 90)
endif()

# The collective layer (kernels/multi/collective.hip) for the targets the build does not compile
# it for. AMD: RCCL is not packaged in Debian, so the HIP compiles read NCCL's nccl.h (RCCL's
# rccl.h is the same API) through kernels/cmake/rccl-api-shim (`rccl/rccl.h` -> nccl.h, and a
# cuda_runtime.h that maps cudaStream_t to hipStream_t): the API is checked, nothing is linked.
# Skipped when no nccl.h is installed.
find_path(CHUNKPROOF_NCCL_HEADER_DIR nccl.h HINTS ${NCCL_ROOT}/include $ENV{NCCL_ROOT}/include /usr/local/cuda/include)
if(CHUNKPROOF_NCCL_HEADER_DIR)
  set(_cp_coll ${PROJECT_SOURCE_DIR}/kernels/multi/collective.hip)
  set(_cp_shim "-isystem|${CMAKE_CURRENT_LIST_DIR}/rccl-api-shim|-idirafter|${CHUNKPROOF_NCCL_HEADER_DIR}")
  _cp_compile_check(gpu_compile_hip_gfx90a_rccl_api "${CHUNKPROOF_HIPCC}" hipcc gfx90a ${_cp_coll} "${_cp_shim}")
  _cp_compile_check(gpu_compile_hip_gfx942_rccl_api "${CHUNKPROOF_CLANG19}" clang19 gfx942 ${_cp_coll} "${_cp_shim}")
  if(NOT CHUNKPROOF_GPU STREQUAL "CUDA")
    _cp_compile_check(gpu_compile_cuda_sm90_nccl "${CHUNKPROOF_NVCC}" nvcc 90 ${_cp_coll}
                      "-I${CHUNKPROOF_NCCL_HEADER_DIR}")
  endif()
endif()

# Multi-GPU preflight, on any machine: 64 ranks on one host is never possible, so `--ranks 64`
# must exit 4 ("cannot run here") naming the reason, without touching the GPU runtime in the
# coordinator (the device count comes from a short-lived child process).
if(TARGET chunkproof_gpu)
  add_test(NAME gpu_multi_rank_cannot_run_here
           COMMAND ${PROJECT_SOURCE_DIR}/tests/expect_exit.sh 4 "cannot run here"
                   $<TARGET_FILE:chunkproof> check --device gpu --ranks 64 --random 2)
  set_tests_properties(gpu_multi_rank_cannot_run_here PROPERTIES LABELS gpu TIMEOUT 60)
endif()

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
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DCOMPILER=${compiler} -DKIND=${kind} -DARCH=${arch}
                   "-DSOURCES=${_cp_cc_sources}" -DROOT=${PROJECT_SOURCE_DIR} -DOUT=${_cp_cc_dir}/${arch}
                   -DBITCODE=${CHUNKPROOF_ROCM_BITCODE} -P ${_cp_cc_script})
  set_tests_properties(${name} PROPERTIES LABELS gpu-compile SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()

_cp_compile_check(gpu_compile_hip_gfx90a "${CHUNKPROOF_HIPCC}" hipcc gfx90a)
_cp_compile_check(gpu_compile_hip_gfx942 "${CHUNKPROOF_CLANG19}" clang19 gfx942)
if(NOT CHUNKPROOF_GPU STREQUAL "CUDA")
  _cp_compile_check(gpu_compile_cuda_sm90 "${CHUNKPROOF_NVCC}" nvcc 90)
endif()

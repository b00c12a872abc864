# cmake -P script: compiles every kernel source for one target, device code included, and
# fails on the first error or warning. Exit 77 (ctest: skipped) when the compiler is missing.
#   -DCOMPILER= -DKIND=hipcc|clang19|nvcc -DARCH= -DSOURCES=a|b -DROOT= -DOUT= [-DBITCODE=] [-DEXTRA=f1|f2]
if(NOT COMPILER OR NOT EXISTS "${COMPILER}")
  message("SKIP: no ${KIND} compiler installed (gpu-compile check for ${ARCH} not run)")
  cmake_language(EXIT 77)
endif()
file(MAKE_DIRECTORY ${OUT})
string(REPLACE "|" ";" SOURCES "${SOURCES}")
set(common -std=c++20 -I${ROOT} -Werror -Wall)
if(KIND STREQUAL "hipcc")
  set(flags ${common} -x hip --offload-arch=${ARCH} -ffp-contract=off -fno-fast-math)
elseif(KIND STREQUAL "clang19")
  # Debian's ROCm 5.2 device library predates gfx942: alias its gfx940 ISA file (compile-only;
  # a real ROCm 6/7 install has gfx942 natively).
  if(NOT BITCODE)
    message("SKIP: no ROCm device bitcode found (install libamdhip64-dev)")
    cmake_language(EXIT 77)
  endif()
  set(bc ${OUT}/bitcode)
  if(NOT EXISTS ${bc}/oclc_isa_version_942.bc)
    file(COPY ${BITCODE}/ DESTINATION ${bc})
    file(COPY_FILE ${BITCODE}/oclc_isa_version_940.bc ${bc}/oclc_isa_version_942.bc)
  endif()
  set(flags ${common} -x hip --offload-arch=${ARCH} -ffp-contract=off -fno-fast-math --rocm-path=/usr
            --rocm-device-lib-path=${bc} -Wno-unused-command-line-argument)
elseif(KIND STREQUAL "nvcc")
  set(flags -std=c++20 -I${ROOT} -x cu -arch=sm_${ARCH} --fmad=false -prec-div=true -prec-sqrt=true -ftz=false
            -Werror=all-warnings -Xcompiler=-Wall -Xcompiler=-ffp-contract=off)
endif()
if(EXTRA)
  string(REPLACE "|" ";" EXTRA "${EXTRA}")
  list(APPEND flags ${EXTRA})
endif()
foreach(src ${SOURCES})
  get_filename_component(stem ${src} NAME_WE)
  execute_process(COMMAND ${COMPILER} ${flags} -c ${src} -o ${OUT}/${stem}.o
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  # Debian's hipcc prints a harmless Python traceback probing for a device; drop it.
  string(REGEX REPLACE "Traceback[^\n]*\n([ ][^\n]*\n)*[A-Za-z]*Error[^\n]*\n?" "" err "${err}")
  if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "${KIND} ${ARCH}: ${src} failed (rc=${rc}):\n${out}${err}")
  endif()
  message("ok: ${KIND} ${ARCH} ${src}")
endforeach()

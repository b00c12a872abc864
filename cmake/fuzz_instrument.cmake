# libFuzzer coverage for the code under test (included by the top-level CMakeLists.txt before
# any room). The engine and the coverage options are settled here, once; each room then calls
# chunkproof_fuzz_instrument() on its own targets, so no room's CMakeLists.txt edits another's.
#  - CHUNKPROOF_LIB_FUZZING_ENGINE: link flags of the engine (OSS-Fuzz's $LIB_FUZZING_ENGINE),
#    "-fsanitize=fuzzer" by default with CHUNKPROOF_FUZZ_ENGINE=ON (the `fuzz` preset); empty:
#    no instrumentation, and fuzz/ links its targets with the standalone replay driver.
#  - CHUNKPROOF_FUZZ_PLANNER_TRACE_CMP: comparison tracing (-fsanitize-coverage=trace-cmp) of
#    the planner and the case validation (reference/planner/, reference/caseio/). OFF (default):
#    edge coverage only there. Every planner quantity goes through the checked arithmetic
#    (cp::Int: a few compares per operation) and reaches the planner through
#    FuzzedDataProvider ranges, so the traced operands are rarely bytes of the input that a
#    CMP-guided mutation could set; measured (docs/fuzzing.md): 1.4x the executions, the same
#    time to first finding and as many distinct findings. The DCP simulation (reference/dcp/)
#    keeps it for dcp_index_fuzz and interval_diff_fuzz.
#  - CHUNKPROOF_FUZZ_CHECKS_COVERAGE, coverage of the invariant checks: "verdicts" (default)
#    compiles chunkproof_invariants without coverage instrumentation; planner_fuzz marks each
#    case's verdict (version, platform, geometry, assert stage, violated invariants) as
#    libFuzzer features instead, and interval_diff_fuzz links an instrumented copy of the
#    checks (the code it tests). "full": the checks are instrumented for every target (their
#    per-entry, per-rank loops then cost cmp tracing and counters on every execution, and the
#    counters reward larger plans rather than new behaviour).
include_guard(GLOBAL)

if(CHUNKPROOF_FUZZ_ENGINE)
  set(_engine_default "-fsanitize=fuzzer")
else()
  set(_engine_default "")
endif()
set(CHUNKPROOF_LIB_FUZZING_ENGINE "${_engine_default}" CACHE STRING
    "Link flags of the fuzzing engine ($LIB_FUZZING_ENGINE); empty: link the standalone replay driver")
unset(_engine_default)
option(CHUNKPROOF_FUZZ_PLANNER_TRACE_CMP "trace-cmp in reference/planner and reference/caseio" OFF)
set(CHUNKPROOF_FUZZ_CHECKS_COVERAGE "verdicts" CACHE STRING "verdicts | full (see cmake/fuzz_instrument.cmake)")

# chunkproof_fuzz_instrument(<target> [NO_TRACE_CMP <regex>] [CHECKS])
# Call it on a room's own target after all of its sources are added; nothing happens without
# a fuzzing engine.
#  NO_TRACE_CMP <regex>: the target's sources (relative to its folder) matching the regex get
#    edge coverage only, unless CHUNKPROOF_FUZZ_PLANNER_TRACE_CMP is ON.
#  CHECKS: the target is the invariant checks: instrumented itself only with
#    CHUNKPROOF_FUZZ_CHECKS_COVERAGE=full; otherwise an instrumented copy, <target>_cov, is made
#    (same sources, same public link libraries) for the fuzz targets that test the checks.
function(chunkproof_fuzz_instrument target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "CHECKS" "NO_TRACE_CMP" "")
  if(NOT CHUNKPROOF_LIB_FUZZING_ENGINE)
    return()
  endif()
  if(arg_CHECKS AND NOT CHUNKPROOF_FUZZ_CHECKS_COVERAGE STREQUAL "full")
    get_target_property(_sources ${target} SOURCES)
    get_target_property(_dir ${target} SOURCE_DIR)
    get_target_property(_libs ${target} INTERFACE_LINK_LIBRARIES)
    list(TRANSFORM _sources PREPEND "${_dir}/" REGEX "^[^/]")
    add_library(${target}_cov STATIC ${_sources})
    target_link_libraries(${target}_cov PUBLIC ${_libs})
    target_compile_options(${target}_cov PRIVATE -fsanitize=fuzzer-no-link)
    return()
  endif()
  # Coverage instrumentation for the code under test, not only the target files.
  target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  if(arg_NO_TRACE_CMP AND NOT CHUNKPROOF_FUZZ_PLANNER_TRACE_CMP)
    get_target_property(_listed ${target} SOURCES)
    get_target_property(_dir ${target} SOURCE_DIR)
    # Globbed sources (the planner families) are listed with absolute paths: match every
    # source by its path relative to the target's folder.
    set(_sources "")
    foreach(_s IN LISTS _listed)
      if(IS_ABSOLUTE "${_s}")
        file(RELATIVE_PATH _s "${_dir}" "${_s}")
      endif()
      list(APPEND _sources "${_s}")
    endforeach()
    list(FILTER _sources INCLUDE REGEX "${arg_NO_TRACE_CMP}")
    list(TRANSFORM _sources PREPEND "${_dir}/")
    set_source_files_properties(${_sources} TARGET_DIRECTORY ${target}
                                PROPERTIES COMPILE_OPTIONS -fno-sanitize-coverage=trace-cmp)
  endif()
endfunction()

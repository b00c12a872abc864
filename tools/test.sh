#!/usr/bin/env bash
# The README's test command: install what is missing, build, run the whole suite — the release
# build (g++, -Werror, Z3 prover, GPU kernels compiled for gfx90a/gfx942/sm_90 where the
# compilers are installed) for the tests that need it, and the ASan+UBSan build (the corpus
# replays and every other test under sanitizers; Z3 and GPU off there).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
jobs=$(nproc)
# ccache (a Debian package): the HIP build's host translation units are the release build's with
# the same flags, so they come from the cache instead of compiling a second time.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_DIR="${CCACHE_DIR:-$PWD/build/ccache}"
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# Each test runs once: under ASan+UBSan below where it can, here where it needs what that build
# lacks (Z3, Python, the GPU compilers, the mutation tool) or checks what -O3 could change (label
# release: the golden numerics, the CLI's Z3 paths); ci_release_tests builds only what those need
# (tests/CMakeLists.txt). `cmake --build --preset release && ctest --preset release` runs all of them.
hip_ready=0
if [ -x /usr/lib/llvm-19/bin/clang++ ] && [ -n "$(find /usr/lib -name hip-lang-config.cmake -print -quit)" ]; then
  hip_ready=1
fi
# The HIP build below compiles every kernel for gfx942 with the same clang-19 (and -Werror): its
# compile-only check would repeat it.
skip=()
[ "$hip_ready" = 1 ] && skip=(-E '^gpu_compile_hip_gfx942$')
echo "== release build: the CLI and the tests only it can run ($(date +%T))"
cmake --preset release "${launcher[@]}" >/dev/null
cmake --build --preset release -j "$jobs" --target ci_release_tests
# These tests wait on child processes, solvers' workers and watchdogs much of the time: they run
# beside the HIP and ASan builds below (filling the cores they leave idle); their output is shown
# when they end, all of it when one fails.
release_log=build/release/ci-release-tests.log
echo "== release tests (labels smt python gpu mutation release), beside the builds below: $release_log ($(date +%T))"
ctest --preset release -L 'smt|python|gpu|mutation|release' "${skip[@]}" >"$release_log" 2>&1 &
release_tests=$!
trap 'kill "$release_tests" 2>/dev/null || true' EXIT

# The complete HIP backend with Debian's ROCm 5.2 packages: CMake's HIP language with clang-19 for
# gfx90a and gfx942 (gfx942 through the aliased device library: compile and link only), the whole
# tool linked against the HIP runtime; then the binary must start and say why it cannot run here.
if [ "$hip_ready" = 1 ]; then
  echo "== HIP backend (preset hip-debian: gfx90a + gfx942, whole tool, link) ($(date +%T))"
  cmake --preset hip-debian "${launcher[@]}" >/dev/null
  cmake --build --preset hip-debian -j "$jobs"
  tests/expect_exit.sh 4 'no usable GPU: (the )?HIP runtime' build/hip-debian/chunkproof check --device gpu --random 1
  tests/expect_exit.sh 4 'cannot run here: this chunkproof was built without a collective library' \
    build/hip-debian/chunkproof check --device gpu --ranks 2 --random 1
else
  echo "== HIP backend: skipped (clang-19 or Debian's ROCm CMake packages not installed)"
fi

# clang-19 (1.4x faster to compile than g++ 12 here, and a second compiler's warnings), the rooms'
# libraries at -O1 -g1, the tests' own sources at -O0 (their optimisation was half of this build).
echo "== ASan+UBSan build (clang-19): compile time is most of CI ($(date +%T))"
cmake --preset asan "${launcher[@]}" >/dev/null
cmake --build --preset asan -j "$jobs"
echo "== release tests: waiting for them ($(date +%T))"
release_rc=0
wait "$release_tests" || release_rc=$?
trap - EXIT
if [ "$release_rc" != 0 ]; then
  cat "$release_log"
  echo "== release tests FAILED (exit $release_rc): $release_log"
  exit "$release_rc"
fi
tail -n 30 "$release_log"

ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --preset asan -LE "gpu-compile|python|release"  # ran above: the GPU compile checks, Python, label release
echo "== all tests passed ($(date +%T))"

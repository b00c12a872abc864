#!/usr/bin/env bash
# The README's test command: install what is missing, build, run the whole suite twice —
# the release build (g++, -Werror, Z3 prover, GPU kernels compiled for gfx90a/gfx942/sm_90
# where the compilers are installed) and the ASan+UBSan build (the corpus replays and every
# test under sanitizers; Z3 and GPU off there).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
jobs=$(nproc)

echo "== release build"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
ctest --preset release

echo "== ASan+UBSan build"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --preset asan -LE gpu-compile  # the GPU compile checks already ran above
echo "== all tests passed"

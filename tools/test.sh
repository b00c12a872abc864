#!/usr/bin/env bash
# The README's test command: install what is missing, build, run the whole suite twice —
# the release build (g++, -Werror, Z3 prover included) and the ASan+UBSan build (the corpus
# replays and every test under sanitizers; Z3 off there).
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
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --preset asan
echo "== all tests passed"

#!/usr/bin/env bash
# The README's main job: install what is missing, build the CLI of the release preset and the
# libFuzzer targets (the `fuzz` preset: clang, ASan+UBSan) behind `chunkproof fuzz`, run the tour.
# `chunkproof fuzz` finds build/fuzz/fuzz/<target>_fuzz beside build/release by itself, so it
# works right after this script with no extra flags.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --preset release >/dev/null
# Only what the tour runs: the CLI (the test suite is tools/test.sh's, built there).
cmake --build --preset release -j "$(nproc)" --target chunkproof
if command -v clang++ >/dev/null 2>&1; then
  t0=$(date +%s)
  cmake --preset fuzz >/dev/null
  targets=(planner_fuzz dcp_index_fuzz case_parser_fuzz interval_diff_fuzz)
  if cmake --build --preset fuzz --target help 2>/dev/null | grep -q '^merge_fuzz:'; then targets+=(merge_fuzz); fi
  cmake --build --preset fuzz -j "$(nproc)" --target "${targets[@]}"
  echo "run-demo: libFuzzer targets built in $(($(date +%s) - t0)) s (build/fuzz/fuzz)"
else
  echo "run-demo: clang++ not found: no libFuzzer targets; chunkproof fuzz needs --engine builtin" >&2
fi
exec build/release/chunkproof demo "$@"

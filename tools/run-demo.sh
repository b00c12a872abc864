#!/usr/bin/env bash
# The README's main job: install what is missing, build the CLI of the release preset (a unity
# build: CHUNKPROOF_UNITY), run the tour. The libFuzzer targets behind `chunkproof fuzz` (the
# `fuzz` preset: clang, ASan+UBSan) are built by `chunkproof fuzz` itself on first use
# (campaign/fuzz_build.cpp), so every subcommand works right after this script, no extra flags.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --preset release >/dev/null
# Only what the tour runs: the CLI (the test suite is tools/test.sh's, built there).
cmake --build --preset release -j "$(nproc)" --target chunkproof
exec build/release/chunkproof demo "$@"

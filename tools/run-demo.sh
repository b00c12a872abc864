#!/usr/bin/env bash
# The README's main job: install what is missing, build the release preset, run the tour.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
exec build/release/chunkproof demo "$@"

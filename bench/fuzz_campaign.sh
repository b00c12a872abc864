#!/bin/sh
# The 10-minute campaign against v6-current on both platforms (no findings expected; any
# finding is a real result: check it against the spec before calling it a bug).
#   bench/fuzz_campaign.sh [CHUNKPROOF_BINARY [FUZZ_BIN_DIR [SECONDS [DIR]]]]
set -eu
cp_bin=${1:-build/release/chunkproof}
fz=${2:-build/fuzz/fuzz}
secs=${3:-600}
dir=${4:-chunkproof-fuzz/bench-v6}
"$cp_bin" fuzz --version v6-current --platform both --max-time "$secs" --jobs 2 --fuzzer-bin "$fz" \
  --corpus-dir "$dir/corpus" --findings-dir "$dir/findings" --no-status

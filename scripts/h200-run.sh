#!/usr/bin/env bash
# One GPU-machine call: build the CUDA backend, check (corpus regressions + random v6-current
# cases, GPU vs CPU and chunked vs unchunked), compute-sanitizer memcheck + racecheck on a
# representative DCP case, and `chunkproof bench --device gpu`. Logs go to $OUT (or ./h200-out).
#   usage: scripts/h200-run.sh [N_RANDOM]   (default 1000)
set -uo pipefail
OUT=${OUT:-$PWD/h200-out}
mkdir -p "$OUT"
N=${1:-1000}
ONLY=${2:-all}   # "bench": skip the checks
log() { echo "== $* ($(date +%T))"; }
{
  log "device"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -1
  log "build (CUDA, sm_90)"
  BIN=build/h200/chunkproof
  if cmake -S . -B build/h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHUNKPROOF_GPU=CUDA -DCHUNKPROOF_GPU_ARCHS=90 \
       -DCHUNKPROOF_BUILD_TESTS=OFF -DCHUNKPROOF_WITH_Z3=OFF >"$OUT/build.log" 2>&1 &&
     ninja -C build/h200 chunkproof >>"$OUT/build.log" 2>&1; then
    echo "built $BIN"
  else
    tail -20 "$OUT/build.log"
    BIN=${CARRIED_BIN:-build/gpu/chunkproof}
    echo "build failed here; using the carried binary $BIN"
  fi
  if [ "$ONLY" != bench ]; then
  log "one case (DCP 4, interleave 2)"
  REP="version=v6-current platform=cuda workspace=256 block=16 dcp=4 interleave=2 ctx=300,0,77 q=3,2,4"
  timeout 120 "$BIN" check --device gpu --case "$REP"; echo "rc=$?"
  log "corpus regressions"
  grep -h '^version=' corpus/regressions/*.case | while read -r line; do
    timeout 60 "$BIN" check --device gpu --case "$line" --quiet | tail -3
  done
  log "random v6-current cases: $N"
  timeout 300 "$BIN" check --device gpu --random "$N" --seed 1 --quiet; echo "rc=$?"
  log "compute-sanitizer memcheck + racecheck"
  timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN" check --device gpu --case "$REP" | tail -4
  timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 "$BIN" check --device gpu --case "$REP" | tail -4
  fi
  log "bench"
  if "$BIN" --help 2>&1 | grep -q "^  bench "; then B=(bench --device gpu); else B=(gpu-bench); fi
  echo "command: chunkproof ${B[*]}"
  timeout 240 "$BIN" "${B[@]}"; echo "rc=$?"
  log "done"
} 2>&1 | tee "$OUT/h200-run.log"

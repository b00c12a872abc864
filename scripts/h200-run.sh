#!/usr/bin/env bash
# One GPU-machine call: build the CUDA backend, check (corpus regressions + random v6-current
# cases: every output element GPU vs CPU and chunked vs unchunked, raw bits), compute-sanitizer
# memcheck + racecheck on a representative DCP case, the PCP / local-attention / engine-merge
# blocks (issue 25 item 5, issue 27 item 4), the local-shard family's random cases, corpus cases and
# compute-sanitizer run (N_LOCAL random cases, default 500), and `chunkproof bench --device gpu`
# (medians of 5 timed runs). Logs go to $OUT (or ./h200-out).
# `reuse` instead runs only the PCP context-reuse block (#57668, issue 25 item 5): the build, the
# random reuse cases of tests/gpu/reuse-random.cases, the reuse corpus cases, test_gpu's PCP tests
# and compute-sanitizer memcheck on a merged row with an unaligned tail.
#   usage: scripts/h200-run.sh [N_RANDOM] [all|bench|check|reuse]   (default 1000 all)
set -uo pipefail
OUT=${OUT:-$PWD/h200-out}
mkdir -p "$OUT"
N=${1:-1000}
ONLY=${2:-all}
log() { echo "== $* ($(date +%T))"; }
{
  log "device"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -1
  # TESTS=ON (default): the tool and test_gpu from one build tree (one build instead of two).
  TESTS=${TESTS:-ON}
  log "build (CUDA, sm_90, tests $TESTS)"
  rm -rf build/h200x; BIN=build/h200x/chunkproof
  if cmake -S . -B build/h200x -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHUNKPROOF_GPU=CUDA -DCHUNKPROOF_GPU_ARCHS=90 \
       -DCHUNKPROOF_BUILD_TESTS="$TESTS" -DCHUNKPROOF_WITH_Z3=OFF ${FDP:+-DCHUNKPROOF_FDP_INCLUDE_DIR=$FDP} >"$OUT/build.log" 2>&1 &&
     ninja -C build/h200x chunkproof $([ "$TESTS" = ON ] && echo test_gpu) >>"$OUT/build.log" 2>&1; then
    echo "built $BIN"
  else
    tail -20 "$OUT/build.log"
    echo "build failed"; exit 1
  fi
  if [ "$ONLY" = reuse ]; then
    log "PCP context reuse (#57668): every rank's merged rows GPU == CPU, bit for bit"
    timeout 300 "$BIN" check --device gpu --cases tests/gpu/reuse-random.cases --quiet | tail -n 3
    echo "reuse-random.cases rc=${PIPESTATUS[0]}"
    grep -h '^version=pcp' corpus/regressions/pcp-reuse-*.case | while read -r line; do
      for v in pcp-a pcp-b pcp-c; do
        timeout 60 "$BIN" check --device gpu --case "${line/version=pcp-? /version=$v }" | grep -E '^(ok|FAIL)|case:|agrees|DISAGREES' | cut -c1-400
      done
    done
    timeout 300 "$(find build/h200x -name test_gpu -type f | head -1)" --gtest_filter='GpuCheck.Pcp*:GpuRuntime.*' |
      grep -E '^\[ +(OK|FAILED|PASSED|SKIPPED) +\]|^\[=+\]|Failure|case:' | tail -n 20
    echo "test_gpu rc=${PIPESTATUS[0]}"
    RU="version=pcp-c platform=cuda workspace=64 block=16 pcp=2 ctx=70,300 q=32,20 ctx_reuse=on"
    timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN" check --device gpu --case "$RU" | tail -2
    echo "compute-sanitizer memcheck (reuse) rc=${PIPESTATUS[0]}"
    ONLY=done
  fi
  if [ "$ONLY" != bench ] && [ "$ONLY" != done ]; then
    REP="version=v6-current platform=cuda workspace=256 block=16 dcp=4 interleave=2 ctx=300,0,77 q=3,2,4"
    log "one case (DCP 4, interleave 2)"
    timeout 120 "$BIN" check --device gpu --case "$REP"; echo "rc=$?"
    log "corpus regressions (one line per case: ok/FAIL + the comparison)"
    grep -h '^version=' corpus/regressions/*.case | while read -r line; do
      timeout 60 "$BIN" check --device gpu --case "$line" | grep -E '^(ok|FAIL)|case:'
    done
    log "random v6-current cases: $N"
    timeout 300 "$BIN" check --device gpu --random "$N" --seed 1 --quiet; echo "rc=$?"
    log "random cases of every engine family (issue 27 item 4: ATOM, SGLang, TokenSpeed, TRT-LLM movements)"
    for v in atom-current sglang-current sglang-oneshot-dcp tokenspeed-compact-fixed tokenspeed-pr1162 trtllm-current; do
      timeout 120 "$BIN" check --device gpu --random 100 --version "$v" --platform cuda --seed 1 --quiet | tail -n 1
      echo "$v rc=$?"
    done
    log "PCP rows and local attention (issue 25 item 5): every PCP rank's rows GPU == CPU, bit for bit"
    for v in pcp-a pcp-b pcp-c; do
      timeout 120 "$BIN" check --device gpu --random 100 --version "$v" --platform cuda --seed 1 --quiet | tail -n 1
      echo "$v rc=$?"
    done
    grep -h '^version=pcp' corpus/regressions/pcp-*.case | while read -r line; do
      timeout 60 "$BIN" check --device gpu --case "$line" | grep -E '^(ok|FAIL)|case:'
    done
    log "the local-shard family in mla_pcp.py's order (issue 25 item 5): every DCP rank folds its chunk partials, one cross-rank combine"
    # Every version whose family name says local shard, both platforms; then its corpus cases (CB-1's
    # NaN on ROCm's Triton merge, CB-2's rank without context) and compute-sanitizer on CB-1's shape.
    for v in $("$BIN" versions 2>/dev/null | awk '$2 ~ /local/ {print $1}'); do
      timeout 300 "$BIN" check --device gpu --random "${N_LOCAL:-500}" --version "$v" --seed 1 --quiet | tail -n 2
      echo "$v rc=${PIPESTATUS[0]}"
    done
    grep -h '^version=' corpus/regressions/local-shard-*.case | while read -r line; do
      timeout 120 "$BIN" check --device gpu --case "$line" | grep -E '^(ok|FAIL)|case:'
    done
    LS="version=pcp-local-shard platform=rocm workspace=512 block=16 dcp=2 pcp=2 ctx=700,1 q=4,4"
    for tool in memcheck racecheck; do
      timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$BIN" check --device gpu --case "$LS" | tail -2
      echo "compute-sanitizer $tool (local shard) rc=${PIPESTATUS[0]}"
    done
    log "the engines' own merges, a context-free request on rocm (ATOM (0,-inf), SGLang suffix first, TRT-LLM op skip)"
    for line in "version=atom-current platform=rocm workspace=256 block=16 dcp=2 interleave=1 ctx=700,0 q=3,2" \
                "version=sglang-current platform=rocm workspace=630 block=16 dcp=4 ctx=1001,0,250 q=2,3,2" \
                "version=trtllm-current platform=rocm workspace=256 block=16 ctx=700,0 q=3,2"; do
      timeout 60 "$BIN" check --device gpu --case "$line" | grep -E '^(ok|FAIL)|case:'
    done
    log "GpuCheck.* (the hand-built local_attend movement, right and padded; PCP; engines' merges; the local-shard family, CB-1's NaN pattern): test_gpu"
    if [ "$TESTS" = ON ] || {
       cmake -S . -B build/h200t -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHUNKPROOF_GPU=CUDA -DCHUNKPROOF_GPU_ARCHS=90 \
         -DCHUNKPROOF_BUILD_TESTS=ON -DCHUNKPROOF_WITH_Z3=OFF ${FDP:+-DCHUNKPROOF_FDP_INCLUDE_DIR=$FDP} >"$OUT/build-tests.log" 2>&1 &&
       ninja -C build/h200t test_gpu >>"$OUT/build-tests.log" 2>&1; }; then
      timeout 300 "$(find build/h200x build/h200t -name test_gpu -type f 2>/dev/null | head -1)" --gtest_filter='GpuCheck.*:GpuRuntime.*:GpuExport.*' |
        grep -E '^\[ +(OK|FAILED|PASSED|SKIPPED) +\]|^\[=+\]|Failure|case:' | tail -n 40
      echo "test_gpu rc=${PIPESTATUS[0]}"
    else
      tail -5 "$OUT/build-tests.log"; echo "test_gpu not built (see build-tests.log)"
    fi
    log "the wrong plans GPU vs CPU (T-B1; G-10 run with asserts=off): the GPU must produce the CPU's wrong bits"
    for line in "version=tokenspeed-compact platform=cuda workspace=32768 block=64 dcp=4 ctx=20000,100,100 q=16,16,16" \
                "version=sglang-oneshot-dcp platform=cuda workspace=131072 block=16 dcp=2 ctx=3,1 q=2,2 asserts=off"; do
      timeout 120 "$BIN" check --device gpu --case "$line" | grep -E '^(ok|FAIL)|gpu|verdict'
    done
    log "compute-sanitizer memcheck + racecheck"
    timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$BIN" check --device gpu --case "$REP" | tail -3
    echo "rc=$?"
    timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$BIN" check --device gpu --case "$REP" | tail -3
    echo "rc=$?"
  fi
  if [ "$ONLY" != check ] && [ "$ONLY" != done ]; then
    log "bench: chunkproof bench --device gpu --reps 5"
    timeout 300 "$BIN" bench --device gpu --reps 5; echo "rc=$?"
  fi
  log "done"
} 2>&1 | tee "$OUT/h200-run.log"

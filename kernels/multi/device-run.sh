#!/usr/bin/env bash
# One call on a multi-GPU machine (docs/gpu.md, "Multi-GPU"): DCP over N GPUs with the
# prebuilt binary $BIN (or build/dev/chunkproof): corpus, legacy cases, N_RANDOM random cases,
# more ranks than GPUs, a rank killed mid-run, a rank stopped (hung), and the benchmark.
# Logs in $OUT (or ./multi-out).   usage: kernels/multi/device-run.sh [N_RANDOM] [RANKS] [all|check|fault|bench]
set -uo pipefail
OUT=${OUT:-$PWD/multi-out}
mkdir -p "$OUT"
N=${1:-2000}
W=${2:-2}
ONLY=${3:-all}
BIN=${BIN:-build/dev/chunkproof}
log() { echo "== $* ($(date +%T))"; }
{
  log "device"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
  nvidia-smi topo -m 2>/dev/null | head -5
  if ! ldd "$BIN" | grep -q 'libnccl.so.2 => /'; then
    d=$(dirname "$(find / -name libnccl.so.2 -not -path '/proc/*' 2>/dev/null | head -1)")
    export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
  ldd "$BIN" | grep -E 'nccl|cudart' ; echo "NCCL_NVLS_ENABLE is set by the tool itself"
  if [ "$ONLY" = all ] || [ "$ONLY" = check ]; then
    REP="version=v6-current platform=cuda workspace=256 block=16 dcp=$W interleave=2 ctx=300,0,77 q=3,2,4"
    log "one case, $W ranks"
    timeout 120 "$BIN" check --device gpu --ranks "$W" --case "$REP"; echo "rc=$?"
    log "corpus regressions, $W ranks (dcp != $W: n/a)"
    grep -h '^version=' corpus/regressions/*.case | while read -r line; do
      timeout 120 "$BIN" check --device gpu --ranks "$W" --case "$line" | grep -E '^(ok|FAIL|n/a)|case:'
    done
    log "corpus regressions, 1 rank (dcp=1 cases: one GPU, a communicator of one)"
    grep -h '^version=' corpus/regressions/*.case | grep ' dcp=1 ' | while read -r line; do
      timeout 120 "$BIN" check --device gpu --ranks 1 --case "$line" | grep -E '^(ok|FAIL|n/a)|case:'
    done
    log "legacy failing cases with dcp=$W (asserts=off): $W GPUs, then the single-GPU emulation alone"
    for line in \
      "version=v2-interleave platform=cuda workspace=65536 block=64 dcp=$W interleave=64 ctx=50000,100,100 q=4,4,4 asserts=off" \
      "version=v2-interleave platform=cuda workspace=32768 block=64 dcp=$W interleave=64 ctx=6000,6000,6000,6000,6000,6000 q=4,4,4,4,4,4 asserts=off" \
      "version=v2-interleave platform=cuda workspace=32768 block=64 dcp=$W interleave=64 ctx=12000,500,500,500,500,500 q=4,4,4,4,4,4 asserts=off" \
      "version=v1-dcp platform=rocm workspace=4 block=1 dcp=$W interleave=1 ctx=1,1,1 q=2,1,1 asserts=off" \
      "version=v4-pr47327 platform=rocm workspace=65536 block=64 dcp=$W interleave=1 ctx=30000,100,100 q=4,4,4 asserts=off"; do
      timeout 120 "$BIN" check --device gpu --ranks "$W" --case "$line"; echo "rc=$?"
      timeout 120 "$BIN" check --device gpu --case "$line" | grep -E '^(ok|FAIL)'; echo "rc=$?"
    done
    log "single-GPU check unchanged: 300 random cases (DCP 1..8 emulated on one GPU)"
    timeout 120 "$BIN" check --device gpu --random 300 --seed 1 --quiet | tail -1; echo "rc=$?"
    log "random v6-current cases with dcp=$W: $N"
    /usr/bin/time -f "wall %e s" timeout 240 "$BIN" check --device gpu --ranks "$W" --random "$N" --seed 1 --quiet; echo "rc=$?"
  fi
  if [ "$ONLY" = all ] || [ "$ONLY" = fault ]; then
    log "more ranks than GPUs"
    G=$(nvidia-smi -L | wc -l)
    timeout 60 "$BIN" check --device gpu --ranks $((G + 1)) --random 1; echo "rc=$? (4 = cannot run here)"
    log "a rank killed mid-run (kill -9 of rank 1 after 8 s; --rank-timeout 20)"
    "$BIN" check --device gpu --ranks "$W" --random 20000 --seed 9 --quiet --rank-timeout 20 >"$OUT/kill.out" 2>"$OUT/kill.err" &
    P=$!
    sleep 8
    R1=$(sed -n 's/.*rank 1: pid \([0-9]*\).*/\1/p' "$OUT/kill.out" | head -1)
    cat "$OUT/kill.out" | head -3
    T0=$(date +%s.%N); kill -9 "$R1"; wait $P; rc=$?; T1=$(date +%s.%N)
    echo "killed rank 1 (pid $R1); the run ended rc=$rc after $(awk "BEGIN{print $T1 - $T0}") s"; cat "$OUT/kill.err"
    log "a rank stopped mid-run (kill -STOP of rank 1 after 8 s; --rank-timeout 10)"
    "$BIN" check --device gpu --ranks "$W" --random 20000 --seed 11 --quiet --rank-timeout 10 >"$OUT/stop.out" 2>"$OUT/stop.err" &
    P=$!
    sleep 8
    R1=$(sed -n 's/.*rank 1: pid \([0-9]*\).*/\1/p' "$OUT/stop.out" | head -1)
    T0=$(date +%s.%N); kill -STOP "$R1"; wait $P; rc=$?; T1=$(date +%s.%N)
    echo "stopped rank 1 (pid $R1); the run ended rc=$rc after $(awk "BEGIN{print $T1 - $T0}") s"; cat "$OUT/stop.err"
    kill -9 "$R1" 2>/dev/null; true
  fi
  if [ "$ONLY" = all ] || [ "$ONLY" = bench ]; then
    log "bench --ranks $W --reps 5"
    timeout 300 "$BIN" bench --device gpu --ranks "$W" --reps 5; echo "rc=$?"
  fi
  log "done"
} 2>&1 | tee "$OUT/device-run.log"

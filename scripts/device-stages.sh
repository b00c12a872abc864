#!/usr/bin/env bash
# One GPU-machine call of issue 15's stages (docs/gpu.md "Stages toward their ceilings",
# session 4): bit checks of a prebuilt ./chunkproof (GPU vs CPU on random cases, the corpus,
# the sampled DeepSeek-V3 64K case, compute-sanitizer on a representative case), then
# `bench --device gpu --reps 5` (new kernels) and the A/B bench with the previous scores kernel
# (CHUNKPROOF_GPU_SCORES=tiled32). Expects ./chunkproof and ./lib (libz3.so.4, libstdc++.so.6)
# in the current directory (a CUDA sm_90 `release` build made elsewhere). Log: $OUT/device.log.
# --mode fast (part "fast"): chunked == unchunked on the GPU, the CPU within the stated bound, on
# the representative case, 200 random cases, the sampled 64K case, then its bench.
#   env: PARTS  which parts to run (default "bits bench ab fast")
set -u
B=$PWD/chunkproof
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
PARTS=${PARTS:-bits bench ab fast ncu}
has() { [[ " $PARTS " == *" $1 "* ]]; }
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! ldd "$B" | grep -q 'libnccl.so.2 => /'; then
  d=$(dirname "$(find / -name libnccl.so.2 -not -path '/proc/*' 2>/dev/null | head -1)")
  export LD_LIBRARY_PATH=$d:$LD_LIBRARY_PATH
fi
log() { echo "== $* ($(date +%T))"; }
. "$(dirname "$0")/gpu-bit-checks.sh"
{
  log host
  nproc
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
  if has bits; then
    gpu_bit_checks "$B" 300
    REP='version=v6-current platform=cuda workspace=256 block=16 dcp=4 interleave=2 ctx=300,0,77 q=3,2,4'
    log "compute-sanitizer memcheck + racecheck ($REP)"
    timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$B" check --device gpu --case "$REP" | tail -2
    echo "rc=${PIPESTATUS[0]}"
    timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 "$B" check --device gpu --case "$REP" | tail -2
    echo "rc=${PIPESTATUS[0]}"
  fi
  if has bench; then
    log "bench --device gpu --reps 5"
    timeout 200 "$B" bench --device gpu --reps 5
  fi
  if has fast; then
    REP='version=v6-current platform=cuda workspace=256 block=16 dcp=4 interleave=2 ctx=300,0,77 q=3,2,4'
    log "fast: representative case"
    timeout 60 "$B" check --device gpu --mode fast --case "$REP" | head -3
    gpu_bit_checks "$B" 200 --mode fast
    log "fast: bench --device gpu --mode fast --reps 5"
    timeout 200 "$B" bench --device gpu --mode fast --reps 5
  fi
  if has ncu; then
    log "ncu: scores_reg_kernel and exact_tile_kernel, one launch each (bench case, first chunk)"
    timeout 300 ncu --kernel-name regex:"scores_reg_kernel|exact_tile_kernel" --launch-count 2 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
      "$B" bench --device gpu --reps 5 --warmup 0 2>&1 | grep -vE '^\| |^ *$' | grep -E '==PROF==|Kernel|kernel|Throughput|Duration|Occupancy|Stall|Warp Cycles|Issued|Eligible|Registers|Block Limit|Memory|L1|L2|DRAM|SM Busy|Executed|One or More|No Eligible|smsp' | head -120
  fi
  if has blocks; then
    for b in 5 6; do
      log "CHUNKPROOF_GPU_SCORES_BLOCKS=$b: 300 random cases bit for bit, then the bench"
      CHUNKPROOF_GPU_SCORES_BLOCKS=$b timeout 150 "$B" check --device gpu --random 300 --seed 1 --quiet | tail -n 1
      CHUNKPROOF_GPU_SCORES_BLOCKS=$b timeout 200 "$B" bench --device gpu --reps 5 | grep -E 'scores|total|exact /'
    done
  fi
  if has ab; then
    log "bench --device gpu --reps 5 with CHUNKPROOF_GPU_SCORES=tiled32 (the previous scores kernel)"
    CHUNKPROOF_GPU_SCORES=tiled32 timeout 200 "$B" bench --device gpu --reps 5 |
      grep -E 'ceilings|kernel|scores|exact accumulate|total|exact /'
  fi
  log done
} 2>&1 | tee "$OUT/device.log"

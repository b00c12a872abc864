#!/usr/bin/env bash
# One GPU-machine call (issues 15 and 13): build the CUDA tool, check its bits (GPU vs CPU on
# random cases, the corpus, the sampled DeepSeek-V3 64K case), show that `export --device gpu`
# writes the same reference bytes as `export --device cpu`, time `bench --device gpu` (tiled and
# previous up-projection), then the issue-13 run at 128 heads with GPU-made exports
# (scripts/h200-kernels.sh). Summary in $OUT/device.log, everything else in $OUT/all.tgz.
#   env: THIRD  a prefix holding what the device image lacks (usr/include/{CLI,nlohmann},
#               usr/share/cmake/{CLI11,nlohmann_json}, fdp/fuzzer/FuzzedDataProvider.h)
#        PARTS  which parts to run (default "build bits export bench kernels")
set -uo pipefail
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
W=/tmp/cp-dev
rm -rf "$W"; mkdir -p "$W/logs"
PARTS=${PARTS:-build bits export kernels bench}
THIRD=${THIRD:-}
BIN=$PWD/build/cu/chunkproof
log() { echo "== $* ($(date +%T))"; }
. "$(dirname "$0")/gpu-bit-checks.sh"
has() { [[ " $PARTS " == *" $1 "* ]]; }
{
  log host
  nproc; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -1
  if has build; then
    log "build (CUDA sm_90, no Z3, no tests)"
    t0=$(date +%s)
    if cmake -S . -B build/cu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHUNKPROOF_GPU=CUDA -DCHUNKPROOF_GPU_ARCHS=90 \
         -DCHUNKPROOF_BUILD_TESTS=OFF -DCHUNKPROOF_WITH_Z3=OFF ${THIRD:+-DCMAKE_PREFIX_PATH=$THIRD/usr} \
         ${THIRD:+-DCHUNKPROOF_FDP_INCLUDE_DIR=$THIRD/fdp} >"$W/logs/build.log" 2>&1 &&
       ninja -C build/cu chunkproof >>"$W/logs/build.log" 2>&1; then
      echo "built in $(( $(date +%s) - t0 )) s"
    else
      tail -40 "$W/logs/build.log"; echo "build failed"
      tar czf "$OUT/all.tgz" -C "$W" logs; exit 1
    fi
    grep -E "registers|spill" "$W/logs/build.log" | head -5
  fi
  if has bits; then
    # A disagreement of the tiled up-projection falls back to the previous kernel for the rest.
    if ! gpu_bit_checks "$BIN" 300; then
      echo "TILED UP-PROJECTION DISAGREES: the rest of this run uses CHUNKPROOF_GPU_UPPROJ=rows8"
      export CHUNKPROOF_GPU_UPPROJ=rows8
    fi
  fi
  if has export; then
    log "export --device gpu (every head cross-checked) == export --device cpu, byte for byte"
    i=0
    while read -r line; do
      i=$((i + 1))
      "$BIN" export --case "$line" --out "$W/xg$i" --device gpu --sample-heads 64 >"$W/logs/xg$i.log" 2>&1; rg=$?
      "$BIN" export --case "$line" --out "$W/xc$i" --device cpu --threads 8 >"$W/logs/xc$i.log" 2>&1; rc=$?
      same=yes
      for f in inputs.safetensors reference.safetensors; do cmp -s "$W/xg$i/$f" "$W/xc$i/$f" || same=NO; done
      echo "export $i: rc gpu=$rg cpu=$rc, inputs+reference bytes identical: $same  ($line)"
      grep -E '^source' "$W/logs/xg$i.log" | cut -c1-220
    done <<'EOF'
version=v6-current platform=cuda workspace=256 block=16 dcp=4 interleave=2 ctx=300,0,77 q=3,2,4
version=v6-current platform=rocm workspace=512 block=16 dcp=1 interleave=1 ctx=1000,3,700 q=1,5,4
version=v2-interleave platform=cuda workspace=1024 block=64 dcp=8 interleave=64 ctx=5000,100,100 q=4,4,4 asserts=off
version=v1-dcp platform=rocm workspace=1024 block=16 dcp=8 interleave=1 ctx=5000,100,100 q=4,4,4 asserts=off
version=v6-current platform=cuda workspace=4096 block=64 dcp=8 interleave=64 ctx=9000,100,100 q=4,4,4 dims=deepseek-v3 heads=4
EOF
  fi
  if has kernels; then
    log "issue 13: 128 heads, GPU-made exports, every torch kernel set"
    OUT="$W/k" BIN="$BIN" HEADS=128 THREADS=4 DEVICES="cuda:0" EXPORT_ARGS="--device gpu --sample-heads 2" \
      WORK=/tmp/cp-kernels timeout 420 scripts/h200-kernels.sh >"$W/logs/kernels-stdout.log" 2>&1
    echo "rc=$?"
    grep -E '^(== |rc=|case|source|reference|wrote)|within|OUT OF|good plans' "$W/k/kernels.log" | cut -c1-260
  fi
  if has bench; then
    log "bench --device gpu --reps 5 (tiled up-projection)"
    timeout 200 "$BIN" bench --device gpu --reps 5
    log "bench --device gpu --reps 5 (CHUNKPROOF_GPU_UPPROJ=rows8: the previous up-projection)"
    CHUNKPROOF_GPU_UPPROJ=rows8 timeout 200 "$BIN" bench --device gpu --reps 5 | grep -E 'ceilings|kernel|up-project|total|exact /'
  fi
  log done
} 2>&1 | tee "$OUT/device.log"
cp "$OUT/device.log" "$W/logs/device.log"
tar czf "$OUT/all.tgz" -C "$W" logs $(cd "$W" && ls -d k 2>/dev/null)

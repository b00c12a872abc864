#!/usr/bin/env bash
# One GPU-machine call for issue 13: build chunkproof (CPU only), export a DeepSeek-V3-dims
# batch (64K context split by the workspace) under four plans, run every torch kernel set on
# them, and compare everything against the exact reference on one page. Logs and reports go
# to $OUT (or ./kernels-out).
#   env: HEADS (32) CTX (65536,100,100) WS (16384) SETS (torch-flash,torch-efficient,torch-cudnn,torch-math)
#        DEVICES (cuda:0 cuda:1) JSON_DIR (dir holding nlohmann/json.hpp if the package is absent)
#        BIN (skip the build: use this chunkproof) THREADS (per export, 8)
#        EXPORT_ARGS (extra export options, e.g. "--device gpu --sample-heads 2": the reference from
#        the GPU exact path, cross-checked on 2 heads by the CPU; default: export's own, auto)
# Dry run on a CPU machine: HEADS=2 CTX=3000,100,100 WS=1024 SETS=torch-math DEVICES="cpu cpu" scripts/h200-kernels.sh
set -uo pipefail
OUT=${OUT:-$PWD/kernels-out}
mkdir -p "$OUT"
HEADS=${HEADS:-32}; CTX=${CTX:-65536,100,100}; WS=${WS:-16384}; THREADS=${THREADS:-8}
SETS=${SETS:-torch-flash,torch-efficient,torch-cudnn,torch-math}
read -r -a DEV <<<"${DEVICES:-cuda:0 cuda:1}"
W=${WORK:-/tmp/cp-kernels}
rm -rf "$W"; mkdir -p "$W"
log() { echo "== $* ($(date +%T))"; }
{
  log "device"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  python3 -c 'import torch, sys; print("torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count(), "cudnn", torch.backends.cudnn.version() if torch.cuda.is_available() else None)'
  python3 -c 'import triton; print("triton", triton.__version__)' 2>/dev/null || echo "triton: no"
  python3 -c 'import safetensors; print("safetensors", safetensors.__version__)' 2>/dev/null || echo "safetensors: no (own reader)"
  if [ -z "${BIN:-}" ]; then
    log "build (CPU only: no Z3, no GPU backend, no tests)"
    BIN=build/kernels/chunkproof
    if cmake -S . -B build/kernels -G Ninja -DCMAKE_BUILD_TYPE=Release -DCHUNKPROOF_GPU=OFF -DCHUNKPROOF_BUILD_TESTS=OFF \
         -DCHUNKPROOF_WITH_Z3=OFF ${JSON_DIR:+-DCHUNKPROOF_JSON_INCLUDE_DIR=$JSON_DIR} >"$OUT/build.log" 2>&1 &&
       ninja -C build/kernels chunkproof >>"$OUT/build.log" 2>&1; then echo "built $BIN"; else tail -30 "$OUT/build.log"; exit 1; fi
  fi
  BATCH="block=64 ctx=$CTX q=4,4,4 dims=deepseek-v3 heads=$HEADS seed=1"
  declare -A CASE=(
    [v6-dcp1]="version=v6-current platform=cuda workspace=$WS dcp=1 interleave=1 $BATCH"
    [v6-dcp8]="version=v6-current platform=cuda workspace=$WS dcp=8 interleave=64 $BATCH"
    [v2-dcp8-broken]="version=v2-interleave platform=cuda workspace=$WS dcp=8 interleave=64 asserts=off $BATCH"
    [v1-rocm-dcp8-broken]="version=v1-dcp platform=rocm workspace=$WS dcp=8 interleave=1 asserts=off $BATCH"
  )
  ORDER="v6-dcp8 v6-dcp1 v2-dcp8-broken v1-rocm-dcp8-broken"
  log "export x4 in parallel ($THREADS threads each; ${EXPORT_ARGS:-default device})"
  for k in $ORDER; do
    ( t0=$(date +%s.%N); "$BIN" export --case "${CASE[$k]}" --out "$W/$k" --threads "$THREADS" ${EXPORT_ARGS:-} >"$W/$k.export.log" 2>&1
      echo "rc=$? $k export wall $(python3 -c "import time; print(round(time.time() - $t0, 2))") s" >>"$W/$k.export.log" ) &
  done
  wait
  for k in $ORDER; do cat "$W/$k.export.log"; done
  log "run kernel sets ($SETS), two exports at a time, one per GPU"
  export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
  i=0
  for k in $ORDER; do
    modes=chunked; [ "$k" = v6-dcp8 ] && modes=chunked,unchunked
    ( python3 -m chunkproof_runner run "$W/$k" --set "$SETS" --mode $modes --device "${DEV[$((i % ${#DEV[@]}))]}" \
        --repeat 3 --out "$W/res-$k" >"$W/$k.run.log" 2>&1; echo "rc=$?" >>"$W/$k.run.log" ) &
    i=$((i + 1))
    if [ $((i % ${#DEV[@]})) = 0 ]; then wait; fi
  done
  wait
  for k in $ORDER; do cat "$W/$k.run.log"; done
  log "compare: every result on one page"
  ALL=(); GOOD=()
  for k in $ORDER; do for d in "$W/res-$k" "$W/res-$k"/*/; do [ -f "$d/result.json" ] && ALL+=("${d%/}"); done; done
  for d in "${ALL[@]}"; do case "$d" in *broken*) ;; *) GOOD+=("$d");; esac; done
  "$BIN" compare "$W/v6-dcp8" "${ALL[@]}" --out "$W/report-all" | tee "$OUT/compare-all.txt"; echo "rc=${PIPESTATUS[0]} (1 expected: the broken plans are flagged)"
  "$BIN" compare "$W/v6-dcp8" "${GOOD[@]}" --out "$W/report-good" >"$OUT/compare-good.txt"; echo "good plans only: rc=$? (0 expected)"
  tail -n +1 "$OUT/compare-good.txt" | head -20
  cp "$W/report-all/report.md" "$OUT/report.md"; cp "$W/report-all/report.json" "$OUT/report.json"
  tar czf "$OUT/reports.tgz" -C "$W" report-all report-good $(cd "$W" && ls -d res-*/result.json res-*/*/result.json v*/manifest.json 2>/dev/null)
  log "done"
} 2>&1 | tee "$OUT/kernels.log"

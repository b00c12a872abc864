#!/usr/bin/env bash
# The issue-28 boundary campaign on a GPU machine that has no chunkproof build: the exports were
# written beforehand on a CPU machine (kernel-fuzz --phase export into $FZ), the vLLM Triton
# files copied into $SRC (scripts/vllm-kernels.sh); both are git-ignored, so they travel with
# the device tool's `carry`. Here: the environment, the real vLLM merges probed against
# reference/planner/merge_kernels.h, every torch set and vllm-triton over every export and
# persona. Back on the CPU machine: kernel-fuzz --phase compare --out $FZ judges the results.
#   env: FZ (kfuzz-h200) SRC (ext-kernels/vllm) ROUNDS (3) BUDGET (380 s)
#        SETS (torch-math,torch-flash,torch-efficient,torch-cudnn,vllm-triton); OUT: where logs go
# Before, on the CPU machine:
#   PYTHONPATH=python python3 -m chunkproof_runner kernel-fuzz --chunkproof build/release/chunkproof \
#     --out kfuzz-h200 --phase export --rounds 3
# After, with the results unpacked into kfuzz-h200 (tar xzf results.tgz -C kfuzz-h200):
#   PYTHONPATH=python python3 -m chunkproof_runner kernel-fuzz --chunkproof build/release/chunkproof \
#     --out kfuzz-h200 --phase compare --rounds 3
set -uo pipefail
FZ=${FZ:-kfuzz-h200}; SRC=${SRC:-ext-kernels/vllm}; ROUNDS=${ROUNDS:-3}; BUDGET=${BUDGET:-380}
SETS=${SETS:-torch-math,torch-flash,torch-efficient,torch-cudnn,vllm-triton}
OUT=${OUT:-/tmp/h200-kernel-fuzz}; mkdir -p "$OUT"
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
L=$OUT/device.log
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)'
  git log --oneline -1 2>/dev/null
  CHUNKPROOF_VLLM_SRC=$PWD/$SRC python3 -m chunkproof_runner sets --device cuda
} >"$L" 2>&1
first=$(ls -d "$FZ"/exports/* | head -1)
timeout 120 python3 scripts/probe-merge-kernels.py "$SRC" "$first" >"$OUT/probe.json" 2>>"$L"
echo "probe rc=$?" >>"$L"
t0=$(date +%s)
timeout $((BUDGET + 60)) python3 -m chunkproof_runner kernel-fuzz --chunkproof /bin/false --out "$FZ" --phase run \
  --rounds "$ROUNDS" --device cuda --budget "$BUDGET" --sets "$SETS" --vllm-src "$SRC" >>"$L" 2>&1
echo "fuzz run rc=$? wall $(($(date +%s) - t0)) s" >>"$L"
tar czf "$OUT/results.tgz" -C "$FZ" results state.json
tail -3 "$L"

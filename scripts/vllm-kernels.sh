#!/usr/bin/env bash
# Copy vLLM's Triton merge_attn_states files, one folder per commit, out of a vLLM git checkout
# into DEST (default ext-kernels/vllm, git-ignored: engine code is never committed), for the
# runner's vllm-triton set (--vllm-src DEST) and scripts/probe-merge-kernels.py.
#   usage: scripts/vllm-kernels.sh VLLM_GIT_DIR [DEST]
# Commits and paths: python/chunkproof_runner/sets/vllm_triton.py _PATHS (full hashes resolved
# by git from the short ones).
set -euo pipefail
SRC=${1:?usage: vllm-kernels.sh VLLM_GIT_DIR [DEST]}
DEST=${2:-ext-kernels/vllm}
while read -r commit path; do
  mkdir -p "$DEST/$commit/$(dirname "$path")"
  git -C "$SRC" show "$commit:$path" >"$DEST/$commit/$path"
  echo "$DEST/$commit/$path"
done <<'LIST'
ef17b1cc vllm/attention/ops/triton_merge_attn_states.py
cfc4079e vllm/v1/attention/ops/triton_merge_attn_states.py
01ac819c vllm/v1/attention/ops/triton_merge_attn_states.py
LIST

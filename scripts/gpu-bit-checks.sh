# Sourced by scripts/device-export.sh and scripts/device-stages.sh: the GPU bit checks of one
# chunkproof binary, written once. Needs log() from the caller. Extra arguments go to every
# `check` (e.g. --mode fast). Returns the random run's exit status (not tail's).
#   gpu_bit_checks BIN RANDOM_CASES [check args...]
gpu_bit_checks() {
  local bin=$1 n=$2 rc line d
  shift 2
  log "bits: GPU vs CPU, $n random v6-current cases $*"
  timeout 150 "$bin" check --device gpu "$@" --random "$n" --seed 1 --quiet | tail -n 3
  rc=${PIPESTATUS[0]}
  echo "rc=$rc"
  log "bits: corpus regressions $*"
  grep -h '^version=' corpus/regressions/*.case | while read -r line; do
    timeout 60 "$bin" check --device gpu "$@" --case "$line" --quiet | grep -E '^(FAIL)|gpu check' | tail -n 1
  done
  log "bits: sampled DeepSeek-V3 64K, dcp 1 and 8 $*"
  for d in 1 8; do
    /usr/bin/time -f "wall %e s" timeout 120 "$bin" check --device gpu "$@" --sample-heads 2 \
      --case "version=v6-current platform=cuda workspace=65536 block=64 dcp=$d interleave=1 dims=deepseek-v3 ctx=65536 q=16" |
      grep -E '^(ok|FAIL)|wall|gpu exact' | cut -c1-900
  done
  return "$rc"
}

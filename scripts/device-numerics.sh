#!/usr/bin/env bash
# Device run of issue 15 (docs/gpu.md "Sampled verification", docs/numerics.md 4b): sampled
# verification at DeepSeek-V3 64K, GPU regressions, CPU reference speed on the host. Expects a
# prebuilt ./chunkproof (and ./lib with libz3.so.4 / libstdc++.so.6 when the host lacks them)
# in the current directory; logs to $OUT/device.log.
set -u
B=$PWD/chunkproof
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! ldd "$B" | grep -q 'libnccl.so.2 => /'; then
  d=$(dirname "$(find / -name libnccl.so.2 -not -path '/proc/*' 2>/dev/null | head -1)"); export LD_LIBRARY_PATH=$d:$LD_LIBRARY_PATH
fi
log() { echo "== $* ($(date +%T))"; }
{
log host; nproc; nvidia-smi -L; uptime
C64='version=v6-current platform=cuda workspace=65536 block=64 dcp=1 interleave=1 dims=deepseek-v3 ctx=65536 q=16'
for i in 1 2 3; do
  log "sampled 64K rep $i"
  /usr/bin/time -f "wall %e s user %U s" timeout 120 "$B" check --device gpu --case "$C64" --sample-heads 2; echo "rc=$?"
done
C64D='version=v6-current platform=cuda workspace=65536 block=64 dcp=8 interleave=1 dims=deepseek-v3 ctx=65536 q=16'
log "sampled 64K dcp=8"
/usr/bin/time -f "wall %e s user %U s" timeout 120 "$B" check --device gpu --case "$C64D" --sample-heads 2; echo "rc=$?"
log "gpu full-mode regression: 300 random cases"
timeout 90 "$B" check --device gpu --random 300 --seed 1 --quiet | tail -n 1; echo "rc=$?"
log "gpu sampled random: 100 cases, 1 head"
timeout 60 "$B" check --device gpu --random 100 --seed 2 --quiet --sample-heads 1 | tail -n 1; echo "rc=$?"
C1K='version=v6-current platform=cuda workspace=65536 block=64 dcp=8 interleave=1 ctx=1024 q=4 dims=deepseek-v3'
for t in 1 16; do for i in 1 2 3 4 5; do
  /usr/bin/time -f "cpu ctx=1024 exact threads=$t wall %e s" "$B" check --case "$C1K" --path exact --threads $t | tail -n 1
done; done
for i in 1 2 3 4 5; do
  "$B" check --random 1000 --version v6-current --threads 2 2>/dev/null | tail -n 1
done
for i in 1 2 3; do
  "$B" check --random 1000 --version v6-current --threads 16 2>/dev/null | tail -n 1
done
} 2>&1 | tee "$OUT/device.log"

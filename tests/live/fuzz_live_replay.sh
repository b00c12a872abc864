#!/usr/bin/env bash
# usage: fuzz_live_replay.sh <live_planner_fuzz> <fuzz_seedgen> <python3> <work dir>
# libFuzzer through a persistent planner child (campaign/fuzz_live_planner.cpp), here through the
# standalone replay driver that the target links without libFuzzer (g++): inputs made by the seed
# generator from case lines reach ONE test-planner child (python/chunkproof_adapters/testplanner.py),
# whose deliberate bug (interleave > 1) is a recorded `live v6-current/cuda diff:` finding with its
# case line, while the non-interleaved case is ok; a planner that crashes is a `protocol` finding
# and the child is restarted; without a planner command the target exits 2 with a message.
set -u
FZ=$1 SEEDGEN=$2 PY=$3 WORK=$4
rm -rf "$WORK" && mkdir -p "$WORK/in" "$WORK/raw" "$WORK/raw2"
fail=0
bad() { echo "FAIL $*"; fail=1; }
cat > "$WORK/cases.txt" <<'CASES'
version=v6-current platform=cuda workspace=128 block=64 dcp=4 ctx=65,96 q=3,3
version=v6-current platform=cuda workspace=96 block=12 dcp=8 interleave=4 ctx=148,137 q=2,2
CASES
"$SEEDGEN" "$WORK/in" "$WORK/cases.txt" > /dev/null || bad "seedgen"
export CHUNKPROOF_FUZZ_VERSIONS=v6-current CHUNKPROOF_FUZZ_PLATFORMS=cuda CHUNKPROOF_PRINT_CASE=1
export CHUNKPROOF_LIVE_PLANNER_DIFF=1 CHUNKPROOF_LIVE_PLANNER_TIMEOUT=20
CHUNKPROOF_FUZZ_FINDINGS_DIR="$WORK/raw" CHUNKPROOF_LIVE_PLANNER_CMD="$PY -m chunkproof_adapters.testplanner" \
  "$FZ" "$WORK/in" > "$WORK/bug.out" 2>&1 || bad "replay exited $?"
grep -A1 "^case: .*interleave=4" "$WORK/bug.out" | grep -q "^verdict: live v6-current/cuda diff: " ||
  bad "the interleaved case is not a diff finding"
grep -A1 "^case: .*ctx=65,96" "$WORK/bug.out" | grep -q "^verdict: ok" || bad "the plain case is not ok"
grep -lq "live v6-current/cuda diff" "$WORK/raw"/*.case 2>/dev/null || bad "no record of the diff finding"
grep -hq "^version=v6-current .*interleave=4" "$WORK/raw"/*.case 2>/dev/null || bad "the record has no case line"
# A planner that exits on its second request: a protocol finding, then the child is restarted.
CHUNKPROOF_FUZZ_FINDINGS_DIR="$WORK/raw2" \
  CHUNKPROOF_LIVE_PLANNER_CMD="$PY -m chunkproof_adapters.testplanner --no-bug --misbehave crash@2" \
  "$FZ" "$WORK/in" "$WORK/in" > "$WORK/crash.out" 2>&1 || bad "replay with a crashing planner exited $?"
grep -q "^verdict: live v6-current/cuda protocol: exited" "$WORK/crash.out" || bad "the crash is not a protocol finding"
[ "$(grep -c '^verdict: ok' "$WORK/crash.out")" -ge 2 ] || bad "no ok verdicts after the restart"
CHUNKPROOF_LIVE_PLANNER_CMD= "$FZ" "$WORK/in" > "$WORK/nocmd.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "CHUNKPROOF_LIVE_PLANNER_CMD is not set" "$WORK/nocmd.out" || bad "no planner command: exit $rc"
[ "$fail" = 0 ] && echo "live_planner_fuzz replay: all passed"
[ "$fail" = 0 ] || { echo "--- bug.out"; tail -20 "$WORK/bug.out"; echo "--- crash.out"; tail -20 "$WORK/crash.out"; }
exit "$fail"

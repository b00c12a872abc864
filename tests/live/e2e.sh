#!/usr/bin/env bash
# usage: e2e.sh <chunkproof> <python3> <work dir>
# The protocol end to end through the CLI (docs/live.md), with the reference test planner
# (python/chunkproof_adapters/testplanner.py) and its one deliberate bug (the split alignment
# lcm(B, W) for lcm(B, I*W) when interleave > 1): diff and a fuzz campaign must find it, only in
# interleaved cases, and the fixed planner must agree with chunkproof's v6-current everywhere;
# a planner that crashes, hangs, babbles or breaks the schema is a finding, never a hang.
set -u
CP=$1 PY=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
TP="$PY -m chunkproof_adapters.testplanner"
fail=0
check() {  # check <name> <expected exit> <grep pattern> <command...>
  local name=$1 want=$2 pat=$3
  shift 3
  "$@" > "$WORK/$name.out" 2>&1
  local rc=$?
  if [ "$rc" != "$want" ] || ! grep -qE -- "$pat" "$WORK/$name.out"; then
    echo "FAIL $name: exit $rc (want $want), pattern '$pat'"; tail -n 5 "$WORK/$name.out"; fail=1
  else
    echo "ok   $name"
  fi
}

check diff_finds_the_bug 1 "finding\(s\)" "$CP" diff --planner-cmd "$TP" --version v6-current --random 1500
if grep "^      case:" "$WORK/diff_finds_the_bug.out" | grep -qvE "interleave=([2-9]|[1-9][0-9])"; then
  echo "FAIL diff_finds_the_bug: a disagreement outside the interleaved mode"; fail=1
fi
check fixed_planner_agrees 0 "1500 case\(s\) .* 0 finding\(s\)" "$CP" diff --planner-cmd "$TP --no-bug" --version v6-current --random 1500
check plan_one_case 0 "live      ok" "$CP" plan --planner-cmd "$TP" --version v6-current \
  --case "version=v6-current workspace=128 block=64 dcp=4 ctx=65,96 q=3,3"
check plan_json 0 '"schema":"chunkproof.live/1"' "$CP" plan --json --planner-cmd "$TP" \
  --case "version=v6-current workspace=128 block=64 dcp=4 interleave=2 ctx=65,96 q=3,3"
check replay_regressions 0 "finding\(s\)" "$CP" replay --summary --planner-cmd "$TP --no-bug" --version v6-current \
  "$(dirname "$0")/../../corpus/regressions"
for m in crash garbage schema raise; do
  check "misbehave_$m" 1 "FINDING live v6-current/cuda (protocol|diff: outcome)" "$CP" diff --planner-cmd "$TP --no-bug --misbehave $m@2" \
    --version v6-current --random 6
done
check misbehave_hang 1 "protocol: timeout" timeout 60 "$CP" diff --planner-cmd "$TP --no-bug --misbehave hang@2" \
  --version v6-current --random 4 --planner-timeout 0.5
check misbehave_noise 0 " 0 finding" "$CP" diff --planner-cmd "$TP --no-bug --misbehave noise@1" --version v6-current --random 20
check no_such_command 1 "protocol: exited" "$CP" plan --planner-cmd "/nonexistent/planner" --case "version=v6-current workspace=64 block=16 ctx=10 q=2"
check adapter_cannot_run 4 "cannot run here.*no engine here" "$CP" plan --planner-cmd "echo 'no engine here' >&2; exit 4" \
  --case "version=v6-current workspace=64 block=16 ctx=10 q=2"
check fuzz_adapter_cannot_run 4 "cannot run here" "$CP" fuzz --planner-cmd "exit 4" --version v6-current --max-time 5 \
  --findings-dir "$WORK/fuzz-cannot"
check version_needs_planner 2 "requires --planner-cmd|--planner-cmd" "$CP" plan --version v6-current --case "version=v6-current workspace=64 block=16 ctx=10 q=2"
check check_runs_the_external_plan 1 "bits differ" "$CP" check --planner-cmd "$TP" \
  --case "version=v6-current platform=cuda workspace=96 block=12 dcp=8 interleave=4 ctx=148,137 q=2,2"
check check_fixed_plan_bits_identical 0 "bits identical" "$CP" check --planner-cmd "$TP --no-bug" \
  --case "version=v6-current platform=cuda workspace=96 block=12 dcp=8 interleave=4 ctx=148,137 q=2,2"
check map_through_the_planner 1 "diff: " "$CP" map --version v6-current --platform cuda --x dcp=2,4 --y interleave=1,2 \
  --fix block=2 --fix workspace=64 --format table --planner-cmd "$TP"
check fuzz_finds_the_bug 1 "live v6-current/cuda diff" "$CP" fuzz --planner-cmd "$TP" --version v6-current --platform cuda \
  --max-time 15 --minimize-time 2 --findings-dir "$WORK/fuzz" --no-status --seed 5
# --engine libfuzzer runs live_planner_fuzz (tests/live/fuzz_live_replay.sh runs its replay build):
# without its libFuzzer build this machine cannot run it (exit 4), naming the target.
check fuzz_libfuzzer_needs_its_build 4 "no libFuzzer build of live_planner_fuzz" "$CP" fuzz --planner-cmd "$TP" \
  --engine libfuzzer --max-time 1 --fuzzer-bin "$WORK/no-such-fuzzer" --findings-dir "$WORK/fuzz2"
# audit --planner-cmd: the deployment's batch search through the planner; the bug is found with a
# case line of the deployment and a replay command, the fixed planner is at best "not proved" (the
# proof is of chunkproof's model), and --version must agree with --vllm.
AUDIT_DEP="platform=cuda workspace=96 block=12 dcp=8 interleave=4"
check audit_finds_the_bug 1 "^replay +chunkproof plan --planner-cmd '.*testplanner' --version v6-current --case 'version=v6-current platform=cuda workspace=96 block=12 dcp=8 interleave=4 ctx=" \
  "$CP" audit --deployment "$AUDIT_DEP" --planner-cmd "$TP" --version v6-current --max-time 3 --no-prove
check audit_fixed_planner_not_proved 3 "^verdict +NO FINDING \(not proved: the proof is of chunkproof's model\) on v6-current \(exit 3" \
  "$CP" audit --deployment "$AUDIT_DEP" --planner-cmd "$TP --no-bug" --version v6-current --max-time 2 --no-prove
check audit_json_live 1 '"verdict":"FINDING".*"live":\{"planner_cmd":"[^"]*testplanner","diff_version":"v6-current","cases":[1-9]' \
  "$CP" audit --json --deployment "$AUDIT_DEP" --planner-cmd "$TP" --version v6-current --max-time 2 --no-prove
check audit_version_clash 2 "--version v6-current: the deployment's --vllm is v5-packed" \
  "$CP" audit --deployment "$AUDIT_DEP" --planner-cmd "$TP" --version v6-current --vllm v5-packed
check audit_adapter_cannot_run 4 "cannot run here" "$CP" audit --deployment "$AUDIT_DEP" --planner-cmd "exit 4" --version v6-current
[ "$fail" = 0 ] && echo "live e2e: all passed"
exit "$fail"

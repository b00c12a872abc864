#!/bin/sh
# Campaign behaviour (issue 11), with a fake fork-mode fuzzer (or a real libFuzzer build as $2):
#  1. SIGKILL of the runner leaves no process of the campaign behind, and the next run of the
#     same command resumes with the killed run's executions in its totals;
#  2. a second runner on the same campaign folder exits 2 naming the holder;
#  3. Ctrl-C (SIGINT) ends the runner with a complete report within 2 s (3 s allowed here: CI
#     machines are shared);
#  4. corpus folder == findings folder is refused (exit 2).
#   tests/fuzz/campaign_kill_test.sh CHUNKPROOF FUZZER_BIN
set -u
cp_bin=$1
fuzzer=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
F="$tmp/campaign"
fail() { echo "FAIL: $*"; exit 1; }
survivors() {  # processes whose command line names the campaign folder (shell builtins only)
  n=0
  for f in /proc/[0-9]*/cmdline; do
    [ -r "$f" ] || continue
    c=$(tr '\0' ' ' < "$f" 2>/dev/null) || continue
    case "$c" in *"$F"*) n=$((n + 1)); echo "  survivor: $f: $c" >&2 ;; esac
  done
  echo "$n"
}
state() { sed -n "s/^$1=//p" "$F/campaign.state" 2>/dev/null; }
export CHUNKPROOF_FUZZ_CHECKPOINT_SECONDS=1
# One version and platform: the report's violation maps take a second, not a minute.
run() { "$cp_bin" fuzz --version v6-current --platform cuda --fuzzer-bin "$fuzzer" --findings-dir "$F" --jobs 2 --no-status --minimize-time 0 "$@"; }
# In the background: exec, so that $! is chunkproof itself, not a subshell.
run_bg() { exec "$cp_bin" fuzz --version v6-current --platform cuda --fuzzer-bin "$fuzzer" --findings-dir "$F" --jobs 2 --no-status --minimize-time 0 "$@"; }

# 1. SIGKILL
(run_bg --max-time 60 > "$tmp/run1.out" 2>&1) &
pid=$!
i=0
while [ "$(state executions)" = "" ] || [ "$(state executions)" -eq 0 ]; do
  sleep 0.5; i=$((i + 1)); [ $i -lt 40 ] || fail "no checkpoint with executions after 20 s"
done
sleep 1
kill -9 "$pid"
wait "$pid" 2>/dev/null
i=0
while [ "$(survivors)" -ne 0 ]; do
  sleep 0.2; i=$((i + 1)); [ $i -lt 15 ] || fail "processes of the campaign survive the runner's SIGKILL by 3 s"
done
echo "ok: no process left 0.2 x $i s after SIGKILL"
e1=$(state executions)
left=$(awk '{s += $1} END {print s + 0}' "$F/.execs" 2>/dev/null || echo 0)
echo "checkpointed executions: $e1, execution log of the killed run: $left"
run --max-time 2 > "$tmp/run2.out" 2>&1
rc=$?
[ $rc -le 1 ] || fail "resumed run exited $rc: $(cat "$tmp/run2.out")"
e2=$(state executions)
[ "$e2" -ge "$left" ] || fail "totals lost: after resume $e2 < $left executions logged by the killed run"
[ "$e2" -gt "$e1" ] || fail "totals did not grow: $e1 -> $e2"
grep -q "all 2 run(s)" "$F/report.md" || fail "report does not count 2 runs: $(grep 'run(s)' "$F/report.md")"
echo "ok: totals resumed ($e1 checkpointed, $left logged -> $e2 after the next run, 2 runs)"

# 2. lock, 3. SIGINT
(run_bg --max-time 60 > "$tmp/run3.out" 2>&1) &
pid=$!
i=0
until grep -q "pid $pid" "$F/.lock" 2>/dev/null; do
  sleep 0.2; i=$((i + 1)); [ $i -lt 50 ] || fail "lock file never names pid $pid"
done
run --max-time 2 > "$tmp/run4.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "second runner exited $rc, expected 2"
grep -q "in use by pid $pid" "$tmp/run4.out" || fail "second runner does not name the holder: $(cat "$tmp/run4.out")"
echo "ok: second runner refused: $(grep -o 'in use by pid [0-9]*' "$tmp/run4.out")"
sleep 1
t0=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
[ $ms -le 3000 ] || fail "SIGINT took $ms ms"
grep -q "interrupted" "$F/report.md" || fail "report.md does not say interrupted"
grep -Eq '"interrupted": ?true' "$F/report.json" || fail "report.json does not say interrupted"
[ "$(survivors)" -eq 0 ] || fail "processes left after SIGINT"
echo "ok: SIGINT -> complete report in $ms ms"

# 4. corpus == findings
run --max-time 1 --corpus-dir "$F" > "$tmp/run5.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "corpus == findings accepted (exit $rc)"
echo "ok: corpus == findings refused: $(head -c 160 "$tmp/run5.out")"
echo "PASS"

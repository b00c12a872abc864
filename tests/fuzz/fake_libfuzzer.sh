#!/bin/sh
# A stand-in for a libFuzzer fork-mode binary (tests/fuzz/campaign_kill_test.sh): answers
# -help=1 like libFuzzer, and otherwise starts -fork=N job processes that log executions to
# $CHUNKPROOF_FUZZ_EXEC_LOG like the real targets, prints fork-mode status lines, and ignores
# SIGINT — the worst case the runner must handle (it must kill the whole group).
for a in "$@"; do
  case "$a" in
    -help=1) printf 'Usage:\n fork                   0\tfork mode\n ignore_crashes         0\tignore crashes\n'; exit 0 ;;
  esac
done
jobs=1; secs=60; tag=none
for a in "$@"; do
  case "$a" in
    -fork=*) jobs=${a#-fork=} ;;
    -max_total_time=*) secs=${a#-max_total_time=} ;;
    -artifact_prefix=*) tag=${a#-artifact_prefix=} ;;
  esac
done
trap '' INT
i=0
while [ "$i" -lt "$jobs" ]; do
  # The tag (the campaign's artifact folder) is in every job's command line, so the test can
  # find survivors.
  sh -c 'trap "" INT; while :; do echo 1024 >> "$CHUNKPROOF_FUZZ_EXEC_LOG"; sleep 0.2; done' fake-job "$tag" &
  i=$((i + 1))
done
t=0
while [ "$t" -lt "$secs" ]; do
  echo "#$((t * 5000)): cov: 10 ft: 20 corp: 1 exec/s: 5000 oom/timeout/crash: 0/0/0 time: ${t}s job: $t dft_time: 0"
  sleep 1
  t=$((t + 1))
done
kill 0 2>/dev/null
exit 0

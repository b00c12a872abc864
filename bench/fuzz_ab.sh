#!/bin/sh
# Interleaved A/B of planner_fuzz binaries on a shared machine: executions per CPU second.
#   bench/fuzz_ab.sh SECONDS ROUNDS 'LABEL|BINARY|FLAGS' ...
# Every round runs every spec once (same seed within a round), one process each, from an EMPTY
# corpus, with every flag of corpus/planner_fuzz.options followed by the spec's FLAGS (later
# flags win: '-use_counters=1 -reduce_inputs=1' gives main's options before session 4). Runs of
# the specs alternate, so they see the same load; compare the medians printed at the end.
# Example (the session 4 comparison, docs/fuzzing.md):
#   bench/fuzz_ab.sh 8 5 'main|/tmp/main/planner_fuzz|-use_counters=1 -reduce_inputs=1' \
#                        'new|build/fuzz/fuzz/planner_fuzz|'
set -eu
secs=$1
rounds=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opts=$(awk '/^\[/ {s = ($0 ~ /^\[libfuzzer\]/); next}
            s && !/^#/ && /=/ {k = $0; sub(/[ \t]*=.*/, "", k); v = $0; sub(/^[^=]*=[ \t]*/, "", v); sub(/[ \t\r]+$/, "", v)
                               if (k == "dict") v = "corpus/" v; printf "-%s=%s ", k, v}' corpus/planner_fuzz.options)
r=1
while [ "$r" -le "$rounds" ]; do
  for spec in "$@"; do
    label=${spec%%|*}
    rest=${spec#*|}
    bin=${rest%%|*}
    flags=${rest#*|}
    rm -rf "$tmp/c" && mkdir "$tmp/c"
    # shellcheck disable=SC2086
    CHUNKPROOF_FUZZ_QUIET=1 CHUNKPROOF_FUZZ_EXPECT_CORRECT=none /usr/bin/time -f "cpu %U %S" -o "$tmp/cpu" "$bin" \
      -seed="$r" -max_total_time="$secs" -print_final_stats=1 $opts $flags -artifact_prefix="$tmp/" "$tmp/c" \
      > "$tmp/log" 2>&1 || true
    n=$(awk '/stat::number_of_executed_units/ {print $2}' "$tmp/log")
    cps=$(awk -v n="${n:-0}" '/^cpu/ {t = $2 + $3; printf "%d", (t > 0 ? n / t : 0)}' "$tmp/cpu")
    echo "$label round $r: ${n:-0} execs, ${cps:-0} exec per cpu-s @ load $(cut -d' ' -f1 /proc/loadavg)"
    echo "$label ${cps:-0}" >> "$tmp/all"
  done
  r=$((r + 1))
done
for spec in "$@"; do
  label=${spec%%|*}
  awk -v l="$label" '$1 == l {print $2}' "$tmp/all" | sort -n |
    awk -v l="$label" '{a[NR] = $1} END {printf "%-16s median %d exec per cpu-s (%d runs)\n", l, a[int((NR + 1) / 2)], NR}'
done

#!/bin/sh
# exec/s of every fuzz target, sanitized (ASan+UBSan) and plain, median of 5 runs.
#   bench/fuzz_execs.sh [SANITIZED_BUILD [PLAIN_BUILD [SECONDS]]]
# Builds: the `fuzz` preset (or build/fz-fuzz) and a plain libFuzzer build:
#   cmake -S . -B build/fz-plain -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCHUNKPROOF_FUZZ_ENGINE=ON \
#         -DCHUNKPROOF_SANITIZE=OFF -DCHUNKPROOF_BUILD_TESTS=OFF -DCHUNKPROOF_WITH_Z3=OFF
#   ninja -C build/fz-plain planner_fuzz dcp_index_fuzz case_parser_fuzz merge_fuzz
# Each run starts from an EMPTY corpus (mutation throughput; one process). The seed corpora are
# much heavier per input (the spec's 100k-token cases): their replay time is measured apart
# with the replay driver (bench/fuzz_execs.sh prints it last).
set -eu
san=${1:-build/fuzz}
plain=${2:-build/fz-plain}
secs=${3:-8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-12s %-10s %12s   %s\n' target build 'exec/s' 'runs (exec/s)'
for t in planner dcp_index case_parser merge; do
  for b in "$san" "$plain"; do
    bin="$b/fuzz/${t}_fuzz"
    [ -x "$bin" ] || { echo "missing $bin" >&2; continue; }
    runs=""
    for seed in 1 2 3 4 5; do
      rm -rf "$tmp/c" && mkdir "$tmp/c"
      dict=""; [ -f "corpus/${t}_fuzz.dict" ] && dict="-dict=corpus/${t}_fuzz.dict"
      eps=$(CHUNKPROOF_FUZZ_QUIET=1 "$bin" -seed=$seed -max_total_time="$secs" -print_final_stats=1 $dict \
              -artifact_prefix="$tmp/" "$tmp/c" 2>&1 | awk '/stat::average_exec_per_sec/ {print $2}')
      runs="$runs ${eps:-0}"
    done
    med=$(for r in $runs; do echo "$r"; done | median)
    printf '%-12s %-10s %12s  %s\n' "$t" "$(basename "$b")" "$med" "$runs"
  done
done
for t in planner dcp_index case_parser merge; do
  for b in "$san" "$plain"; do
    bin="$b/fuzz/${t}_fuzz"
    [ -x "$bin" ] || continue
    n=$(ls "corpus/${t}_fuzz" | wc -l)
    s0=$(date +%s.%N)
    CHUNKPROOF_FUZZ_QUIET=1 "$bin" -runs=0 "corpus/${t}_fuzz" > /dev/null 2>&1 || true
    s1=$(date +%s.%N)
    printf 'seed corpus %-12s %-10s %4d inputs in %.2f s\n' "$t" "$(basename "$b")" "$n" "$(echo "$s1 - $s0" | bc)"
  done
done

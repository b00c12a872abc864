#!/bin/sh
# Time to the first finding of a bug family from an EMPTY corpus, median of 5 seeds.
#   [ONLY=TEXT] bench/fuzz_ttf.sh [FUZZ_BUILD [MAX_SECONDS]]
# The family is selected with CHUNKPROOF_FUZZ_STOP_ON (fuzz/common/judge.h): the first finding
# whose tags contain every '&'-separated part aborts, and libFuzzer stops there. One process,
# every flag of corpus/planner_fuzz.options as a campaign uses them (FLAGS="..." appends). Wall and CPU seconds are both
# printed: on a shared machine the CPU time is the fairer number.
set -eu
build=${1:-build/fuzz}
max=${2:-120}
bin="$build/fuzz/planner_fuzz"
[ -x "$bin" ] || { echo "missing $bin (cmake --preset fuzz && cmake --build --preset fuzz)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Every [libfuzzer] key of corpus/planner_fuzz.options as a flag, as `chunkproof fuzz` passes them.
opts=$(awk '/^\[/ {s = ($0 ~ /^\[libfuzzer\]/); next}
            s && !/^#/ && /=/ {k = $0; sub(/[ \t]*=.*/, "", k); v = $0; sub(/^[^=]*=[ \t]*/, "", v); sub(/[ \t\r]+$/, "", v)
                               if (k == "dict") v = "corpus/" v; printf "-%s=%s ", k, v}' corpus/planner_fuzz.options)
opts="$opts ${FLAGS:-}"
family() {  # name versions platforms stop_on
  case "$1" in *"${ONLY:-}"*) ;; *) return 0 ;; esac  # ONLY=TEXT: the families whose name contains it
  name=$1; times=""; cpus=""
  for seed in 1 2 3 4 5; do
    rm -rf "$tmp/c" && mkdir "$tmp/c"
    t0=$(date +%s.%N)
    CHUNKPROOF_FUZZ_VERSIONS=$2 CHUNKPROOF_FUZZ_PLATFORMS=$3 CHUNKPROOF_FUZZ_STOP_ON=$4 CHUNKPROOF_FUZZ_QUIET=1 \
      /usr/bin/time -f "%U %S" -o "$tmp/cpu" "$bin" -seed=$seed -max_total_time="$max" $opts \
      -artifact_prefix="$tmp/" "$tmp/c" > "$tmp/log" 2>&1 || true
    t1=$(date +%s.%N)
    if grep -q CHUNKPROOF-CRASH "$tmp/log"; then
      t=$(echo "$t1 - $t0" | bc)
      cpu=$(tail -n 1 "$tmp/cpu" | awk '{print $1 + $2}')
      execs=$(grep -o '^#[0-9]*' "$tmp/log" | tail -1 | tr -d '#')
      line=$(grep -m1 CHUNKPROOF-CRASH "$tmp/log" | sed 's/.* | //')
    else
      t=">$max"; cpu=-; execs=-; line="(none)"
    fi
    times="$times $t"; cpus="$cpus $cpu"
    printf '  %-28s seed %d: %8s s wall, %s s cpu (~%s execs)  %s\n' "$name" "$seed" "$t" "$cpu" "$execs" "$line"
  done
  printf '%-30s median %s s wall, %s s cpu   runs:%s\n' "$name" "$(for x in $times; do echo "$x" | tr -d '>'; done | median)" \
    "$(for x in $cpus; do echo "$x" | tr -d -- '-'; done | grep . | median)" "$times"
}
family "v1-dcp/rocm per-step assert" v1-dcp rocm 'max_context_chunk % dcp_world_size'
family "v2-interleave/cuda I>1 (I-6)" v2-interleave cuda 'I-6&interleave>1'
# The bug cases of vllm-pcp-and-sparse.md (issue 25 item 3; the regression files name each one).
family "#51252 indexer-dsv4 (E-3)" indexer-dsv4 both 'E-3'
family "DB-2 gathered I>1 (D-5)" gathered-pr56157 both 'D-5&interleave>1'
family "P-13 under DCP (pcp-a/b/c)" pcp-a,pcp-b,pcp-c both 'P-13&dcp>1'
family "#57170 reservation (Z-1)" v6-sparse both 'Z-1'
family "CB-1 local-shard merge (C-5)" pcp-local-shard both 'C-5'
# family "v4-pr47327 misaligned (I-6)" v4-pr47327 all 'I-6'

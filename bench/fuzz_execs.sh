#!/bin/sh
# exec/s of the fuzz targets, sanitized (ASan+UBSan) and plain, median of 5 runs, one process.
#   bench/fuzz_execs.sh [SANITIZED_BUILD [PLAIN_BUILD [SECONDS [TARGETS]]]]
# Builds: the `fuzz` preset (build/fuzz) and a plain libFuzzer build:
#   cmake -S . -B build/fz-plain -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
#         -DCHUNKPROOF_FUZZ_ENGINE=ON -DCHUNKPROOF_SANITIZE=OFF -DCHUNKPROOF_BUILD_TESTS=OFF -DCHUNKPROOF_WITH_Z3=OFF
#   ninja -C build/fz-plain planner_fuzz
# Each run starts from an EMPTY corpus with every flag of the target's .options (max_len,
# dictionary, use_counters, ...: what `chunkproof fuzz` passes; FLAGS="-x=y ..." appends, later
# flags win), so the
# number is mutation throughput on the decoder's whole domain (planner: contexts to 2^24,
# workspaces to 2^31, 1024 requests, DCP to 64). The machine's load average is printed with
# every run: on a shared machine read the numbers with it.
#
# FROM=DIR: start every run from a copy of the corpus DIR instead (the steady state of a
# campaign: an overnight run spends almost all its time past the first minutes, where few new
# inputs are found and written). The executions count the corpus replay at start-up too.
# TMPDIR=/dev/shm: the corpus on tmpfs (in the first seconds libFuzzer writes hundreds of new
# corpus files; on this VM's ext4 creating them costs up to 30 % of an ASan run).
# The target alone, without libFuzzer (a replay build, e.g. build/release):
#   build/release/fuzz/planner_fuzz --bench 5 DIR
set -eu
san=${1:-build/fuzz}
plain=${2:-build/fz-plain}
secs=${3:-8}
targets=${4:-planner}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Every [libfuzzer] key of corpus/<target>_fuzz.options as a flag, as `chunkproof fuzz` passes them.
options_flags() {
  [ -f "corpus/$1_fuzz.options" ] || return 0
  awk '/^\[/ {s = ($0 ~ /^\[libfuzzer\]/); next}
       s && !/^#/ && /=/ {k = $0; sub(/[ \t]*=.*/, "", k); v = $0; sub(/^[^=]*=[ \t]*/, "", v); sub(/[ \t\r]+$/, "", v)
                          if (k == "dict") v = "corpus/" v; printf "-%s=%s ", k, v}' "corpus/$1_fuzz.options"
}
printf '%-14s %-10s %14s   %s\n' target build 'exec/cpu-s' 'runs (wall exec/s / exec per cpu-s @ load average)'
for t in $targets; do
  for b in "$san" "$plain"; do
    bin="$b/fuzz/${t}_fuzz"
    [ -x "$bin" ] || { echo "missing $bin" >&2; continue; }
    runs=""; detail=""
    for seed in 1 2 3 4 5; do
      rm -rf "$tmp/c" && mkdir "$tmp/c"
      [ -n "${FROM:-}" ] && cp -r "$FROM"/. "$tmp/c"/
      opts="$(options_flags "$t") ${FLAGS:-}"
      CHUNKPROOF_FUZZ_QUIET=1 CHUNKPROOF_FUZZ_EXPECT_CORRECT=none /usr/bin/time -f "cpu %U %S" -o "$tmp/cpu" "$bin" \
        -seed=$seed -max_total_time="$secs" -print_final_stats=1 $opts -artifact_prefix="$tmp/" "$tmp/c" > "$tmp/log" 2>&1 || true
      eps=$(awk '/stat::average_exec_per_sec/ {print $2}' "$tmp/log")
      n=$(awk '/stat::number_of_executed_units/ {print $2}' "$tmp/log")
      # Executions per CPU second: what one core gives when the machine is shared.
      cps=$(awk -v n="${n:-0}" '/^cpu/ {t = $2 + $3; printf "%d", (t > 0 ? n / t : 0)}' "$tmp/cpu")
      load=$(cut -d' ' -f1 /proc/loadavg)
      runs="$runs ${cps:-0}"; detail="$detail ${eps:-0}/${cps:-0}@$load"
    done
    med=$(for r in $runs; do echo "$r"; done | median)
    printf '%-14s %-10s %14s  %s\n' "$t" "$(basename "$b")" "$med" "$detail"
  done
done

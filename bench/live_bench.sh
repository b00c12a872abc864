#!/usr/bin/env bash
# usage: bench/live_bench.sh [chunkproof] [cases] [python3]
# Throughput of the external-planner protocol (docs/live.md): `chunkproof diff` with the trivial
# planner (python/chunkproof_adapters/trivial.py: one fixed plan per request), so what is timed is
# the protocol itself — the request line, the reply, reading it back into a Plan, every invariant
# and the diff against the model. Prints the diff's summary line; exit 1 under 5,000 cases/s (the
# issue-26 goal). Record results in docs/measurements.md with the machine, commit and load.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
CP=${1:-$here/build/release/chunkproof}
N=${2:-50000}
PY=${3:-/usr/bin/python3}
export PYTHONPATH=$here/python${PYTHONPATH:+:$PYTHONPATH}
line=$("$CP" diff --planner-cmd "$PY -m chunkproof_adapters.trivial" --version v6-current --random "$N" | grep "case(s) in")
echo "$line"
rate=$(printf '%s\n' "$line" | sed -E 's/.*\(([0-9]+) cases\/s\).*/\1/')
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)  commit: $(git -C "$here" rev-parse --short HEAD)"
[ "${rate:-0}" -ge 5000 ]

#!/usr/bin/env bash
# export -> run (torch-math, CPU) -> compare, end to end: a v6-current plan stays within the
# kernel bound (chunked and unchunked), the legacy interleave plan with asserts stripped is
# flagged, both on one report. Exit 4 (cannot run here) when PyTorch does not import.
#   usage: e2e.sh CHUNKPROOF_BIN PYTHON WORKDIR
set -uo pipefail
. "$(dirname "$0")/e2e_lib.sh" "$@"
BATCH="block=64 dcp=8 interleave=64 ctx=3000,100,100 q=4,4,4 heads=2 seed=7"
"$BIN" export --case "version=v6-current platform=cuda workspace=1024 $BATCH" --out "$W/good" || fail "export good ($?)"
"$BIN" export --case "version=v2-interleave platform=cuda workspace=1024 $BATCH asserts=off" --out "$W/broken"
[ $? = 1 ] || fail "export of the broken plan should report a finding (exit 1)"
for m in chunked unchunked; do
  "$PY" -m chunkproof_runner run "$W/good" --set torch-math --mode $m --out "$W/good-$m" || fail "run good $m"
done
"$PY" -m chunkproof_runner run "$W/broken" --set torch-math --out "$W/broken-chunked" || fail "run broken"
"$BIN" compare "$W/good" "$W/good-chunked" "$W/good-unchunked" --out "$W/report-good" || fail "compare good ($?)"
"$BIN" compare "$W/good" "$W/good-chunked" "$W/good-unchunked" "$W/broken-chunked" --out "$W/report"
[ $? = 1 ] || fail "compare with the broken plan should exit 1"
grep -q "CORRUPTING PLAN" "$W/report/report.md" || fail "broken plan not flagged in report.md"
grep -q "chunked vs unchunked" "$W/report/report.md" || fail "no chunked vs unchunked pair"
grep -q "plan A vs plan B" "$W/report/report.md" || fail "no plan A vs plan B pair"
for f in report.json overview.svg hist-0.svg; do [ -s "$W/report/$f" ] || fail "missing $f"; done
echo "ok: export -> torch-math -> compare (good within bound, broken flagged)"

#!/usr/bin/env bash
# Issue 22 item 5, end to end on the CPU: the reported corrupting plan (ROCm, DCP 4, three
# 12,000-token contexts, asserts stripped), whose kernel error sits under the kernel bound, is
# a finding of compare (exit 1, the plan's damaged requests named), chunked result alone or
# with the unchunked runs (then the detector flags both CPU sets too); a correct plan of the
# same batch exits 0 with nothing flagged. Exit 4 (cannot run here) without PyTorch.
#   usage: e2e_corrupting_plan.sh CHUNKPROOF_BIN PYTHON WORKDIR
set -uo pipefail
. "$(dirname "$0")/e2e_lib.sh" "$@"
# expect CODE REGEX LOG: the last command's exit code and output
expect() { [ "$rc" = "$1" ] || { cat "$3"; fail "exit $rc, expected $1"; }; grep -Eq -- "$2" "$3" || { cat "$3"; fail "no /$2/"; }; }
BATCH="workspace=32768 block=16 dcp=4 interleave=1 ctx=12000,12000,12000 q=8,8,8"
SETS=torch-math,torch-math-bf16
"$BIN" export --case "version=v2-interleave platform=rocm $BATCH asserts=off" --out "$W/bad" >"$W/x.log" 2>&1; rc=$?
expect 1 "bits differ" "$W/x.log"
"$BIN" export --case "version=v6-current platform=rocm $BATCH" --out "$W/good" >"$W/x.log" 2>&1; rc=$?
expect 0 "bits identical" "$W/x.log"
for e in bad good; do
  "$PY" -m chunkproof_runner run "$W/$e" --set $SETS --mode chunked,unchunked --out "$W/res-$e" || fail "run $e"
done

# The reported command: the chunked torch-math result alone. Its error is within the bound.
"$BIN" compare "$W/bad" "$W/res-bad/torch-math-chunked" --out "$W/rep-alone" >"$W/c.log" 2>&1; rc=$?
expect 1 "finding: this plan corrupts outputs: 768 of 768 elements differ \(exact chunked vs unchunked reference\): request 0 tokens 0-7, request 1 tokens 0-7, request 2 tokens 0-7" "$W/c.log"
grep -q "CORRUPTING PLAN" "$W/c.log" || fail "the result's verdict does not say CORRUPTING PLAN"
grep -q "corrupting plan</text>" "$W/rep-alone/overview.svg" || fail "overview.svg does not mark the corrupting plan"
grep -q "fill='#c44'" "$W/rep-alone/overview.svg" || fail "overview.svg does not colour the corrupting plan red"

# With the unchunked runs: the detector flags both CPU sets' chunked runs.
"$BIN" compare "$W/bad" "$W/res-bad"/* --out "$W/rep-bad" >"$W/c.log" 2>&1; rc=$?
for s in torch-math torch-math-bf16; do
  expect 1 "finding: chunk corruption: #[0-9]+ $s chunked, v2-interleave rocm dcp=4 I=1 moves request\(s\) 0, 1, 2 by" "$W/c.log"
done
"$PY" - "$W/rep-bad/report.json" <<'PY' || fail "report.json of the corrupting plan"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["finding"] and r["plans"][0]["corrupts"] and r["plans"][0]["differing"] == 768, r["plans"]
for x in r["results"]:
    if x["mode"] == "chunked":
        d = x["detector"]
        assert x["plan_corrupts"] and d["flagged"] and d["ratio"] > 8 * d["threshold"], (x["label"], d)
PY

# The correct plan of the same batch: exit 0, nothing flagged, every chunked run measured.
"$BIN" compare "$W/good" "$W/res-good"/* --out "$W/rep-good" >"$W/c.log" 2>&1; rc=$?
expect 0 "within bound" "$W/c.log"
if grep -Eq "finding:|CORRUPT|flagged" "$W/c.log"; then cat "$W/c.log"; fail "a correct plan was flagged"; fi
"$PY" - "$W/rep-good/report.json" <<'PY' || fail "report.json of the correct plan"
import json, sys
r = json.load(open(sys.argv[1]))
assert not r["finding"] and not r["plans"][0]["corrupts"] and r["plans"][0]["checked"], r["plans"]
chunked = [x for x in r["results"] if x["mode"] == "chunked"]
assert len(chunked) == 2 and all(x["detector"]["ratio"] < x["detector"]["threshold"] for x in chunked), chunked
PY

# Bad input is exit 2 with a message, never a crash: an LSE of the wrong size, a manifest without its shape.
cp -r "$W/res-bad/torch-math-chunked" "$W/short"
"$PY" - "$W/short/result.safetensors" <<'PY' || fail "could not write the short result"
import sys
from chunkproof_runner import files
t = files.load_tensors(sys.argv[1])
t["lse"] = t["lse"][:-1].contiguous()  # one token (2 heads) short
files.save_tensors(t, sys.argv[1])
PY
"$BIN" compare "$W/bad" "$W/short" --out "$W/rep-x" >"$W/c.log" 2>&1; rc=$?
expect 2 "short: 'lse' holds 46 values, the export's shape 48" "$W/c.log"
cp -r "$W/good" "$W/noshape"
"$PY" -c "import json,sys; p=sys.argv[1]; m=json.load(open(p)); del m['shape']; json.dump(m, open(p, 'w'))" \
  "$W/noshape/manifest.json"
"$BIN" compare "$W/noshape" "$W/res-good/torch-math-chunked" --out "$W/rep-x" >"$W/c.log" 2>&1; rc=$?
expect 2 "chunkproof compare: malformed manifest or result.json: .*shape" "$W/c.log"
echo "ok: the corrupting plan is a finding (alone and by the detector), the correct plan exits 0, bad input exits 2"

#!/usr/bin/env bash
# Issue 28: the kernel-contract campaign on the CPU (torch-math and the base-2 persona set,
# every boundary shape once, every persona), then what it must have found: every contract
# exercised; the known shipped bugs reproduced as contract violations by the kernels that had
# them; a natural-log kernel on the packed planner's exact plans holding every contract it
# exercises; compare --format csv; bad input naming the tensor (exit 2).
#   usage: e2e_kernel_fuzz.sh CHUNKPROOF_BIN PYTHON WORKDIR
set -uo pipefail
. "$(dirname "$0")/e2e_lib.sh" "$@"
t0=$(date +%s)
"$PY" -m chunkproof_runner kernel-fuzz --chunkproof "$BIN" --out "$W/fz" --sets torch-math,torch-math-base2 \
  --budget 100 >"$W/fuzz.log" 2>&1
rc=$?
[ $rc = 1 ] || { cat "$W/fuzz.log"; fail "kernel-fuzz should exit 1 (violations found), got $rc"; }
echo "kernel-fuzz: $(( $(date +%s) - t0 )) s"
"$PY" - "$W/fz/report.json" <<'PYEOF' || fail "the campaign's verdicts"
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["stopped_by_budget"], "the budget stopped the campaign"
assert not d["never_exercised"], f"contracts never exercised: {d['never_exercised']}"
assert not d["skipped"], f"skipped instances: {d['skipped']}"
v = d["violations"]
def found(contract, pred, what):
    assert any(x["contract"] == contract and pred(x) for x in v), f"{contract}: {what} not found"
# SGLang #40903 / vLLM #52796: a base-2 LSE into a natural-log merge, flagged on chunk 0
found("K-3", lambda x: x["set"] == "torch-math-base2" and "chunk 0" in x["detail"], "base-2 into natural-log merge")
# Triton cfc4079e: empty + empty -> NaN (ctx=0 between context requests, old planner)
found("K-8", lambda x: x["merge_kernel"] == "triton@cfc4079e" and "NaN" in x["detail"], "both-empty NaN")
# the early Triton merge has no inf handling: FA2's +inf on empty rows gives NaN
found("K-9", lambda x: x["merge_kernel"] == "triton@ef17b1cc" and x["persona"] == "fa2-inf", "+inf NaN (ef17b1cc)")
# #49294: a finite LSE on empty rows corrupts the merge
found("K-1", lambda x: x["persona"] == "finite-empty", "finite empty-row LSE")
# the suffix read with the prefix's strides: padded-V views (192 vs 128 pattern)
found("K-4", lambda x: x["persona"] == "padded-view" and x["merge_kernel"] in ("triton@cfc4079e", "triton@01ac819c"),
      "prefix-stride suffix read")
# a natural-log kernel with the export's own merge kernel on an exact plan holds every contract
bad = [x for x in v if x["set"] == "torch-math" and x["persona"] == "as-is" and not x["plan_corrupts"]]
assert not bad, "torch-math as-is on exact plans: " + "; ".join(f"{x['contract']} {x['case']}: {x['detail']}" for x in bad)
print("ok:", len(v), "violations,", len(d["contracts"]), "contract x set rows")
PYEOF
# CSV: one row per result and check
E=$W/fz/exports/r0-continuation
"$BIN" compare "$E" "$W/fz/results/r0-continuation/torch-math-as-is-chunked" --format csv --out "$W/csv" >"$W/c.csv"
[ $? = 0 ] || fail "compare --format csv on an exact plan should exit 0"
head -1 "$W/c.csv" | grep -q '^result,label,kernel_set,mode,merge_kernel,check,name,verdict,detail$' || fail "csv header"
[ "$(grep -c ',K-' "$W/c.csv")" = 11 ] || fail "csv: one row per contract (11)"
# bad input: an export whose tensor does not match its manifest -> exit 2 naming the tensor
cp -r "$E" "$W/bad"
"$PY" - "$W/bad/manifest.json" <<'PYEOF'
import json, sys
m = json.load(open(sys.argv[1])); m["shape"]["heads"] = m["shape"]["heads"] + 1
json.dump(m, open(sys.argv[1], "w"))
PYEOF
"$PY" -m chunkproof_runner run "$W/bad" --set torch-math --out "$W/bad-res" 2>"$W/bad.err"
rc=$?
[ $rc = 2 ] || fail "a manifest/tensor mismatch should exit 2, got $rc"
grep -q "tensor 'q' has shape" "$W/bad.err" || { cat "$W/bad.err"; fail "the message should name the tensor"; }
echo "ok: kernel-fuzz on the CPU (every contract exercised, the shipped bugs found), csv, bad input"

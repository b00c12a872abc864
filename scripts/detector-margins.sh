#!/usr/bin/env bash
# The chunk-corruption detector over the corpus (docs/kernels.md, docs/measurements.md): every
# corpus/regressions case under every version its file names, asserts stripped, exported at
# DIMS; on each distinct plan the CPU kernel sets run chunked and unchunked and `compare` judges
# them. Prints one row per (plan, set) and the margin: the smallest detector ratio of a
# corrupting plan over the largest of a correct one. Exit 0 when every corrupting plan is a
# finding of compare and flagged by the detector in every set, and no correct plan is either.
#   env: BIN (build/release/chunkproof) PY (/usr/bin/python3) WORK (/tmp/cp-margins)
#        DIMS ("": the cases' small dims; e.g. "dims=deepseek-v3 heads=2") TAG (small)
#        SETS (torch-math,torch-math-bf16) DEVICE (cpu) THREADS (2)
# Steps whose outputs exist under WORK/TAG are not redone (delete the folder to start over).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/build/release/chunkproof}; PY=${PY:-/usr/bin/python3}
WORK=${WORK:-/tmp/cp-margins}; DIMS=${DIMS:-}; TAG=${TAG:-small}
SETS=${SETS:-torch-math,torch-math-bf16}; DEVICE=${DEVICE:-cpu}; THREADS=${THREADS:-2}
export PYTHONPATH=$ROOT/python
W=$WORK/$TAG
mkdir -p "$W"

# 1. every (case file, version it names), asserts off
cases=$W/cases.txt
if [ ! -s "$cases" ]; then
  for f in "$ROOT"/corpus/regressions/*.case; do
    line=$(grep -v '^#' "$f" | grep -m1 version=)
    for v in $( (grep -o 'version=[^ ]*' <<<"$line" | cut -d= -f2; grep -o '^# expect [^:]*' "$f" | awk '{print $3}') | sort -u); do
      printf '%s\t%s\n' "$(basename "$f" .case)" "$(sed -E "s/version=[^ ]*/version=$v/; s/ asserts=[a-z]*//" <<<"$line") asserts=off"
    done
  done >"$cases"
fi

# 2-5. export, one run per distinct plan, compare
plan_key() {
  "$PY" -c 'import hashlib, json, sys; m = json.load(open(sys.argv[1]))
print(hashlib.sha1(json.dumps([m[k] for k in ("chunks", "geometry", "requests", "prefill_tokens_with_context")], sort_keys=True).encode()).hexdigest())' "$1"
}
declare -A SEEN
i=0
while IFS=$'\t' read -r name c; do
  i=$((i + 1)); d=$W/$i; mkdir -p "$d"
  printf '%s\t%s\n' "$name" "$c" >"$d/what"
  [ -f "$d/E/manifest.json" ] || "$BIN" export --case "$c $DIMS" --out "$d/E" --threads "$THREADS" >"$d/export.log" 2>&1
  if [ ! -f "$d/E/reference.safetensors" ]; then echo "$i $name: no reference (the step fails before attention)"; continue; fi
  k=$(plan_key "$d/E/manifest.json")
  if [ -n "${SEEN[$k]:-}" ]; then echo "${SEEN[$k]}" >"$d/same"; continue; fi
  SEEN[$k]=$i
  if [ ! -f "$d/R/done" ]; then
    "$PY" -m chunkproof_runner run "$d/E" --set "$SETS" --mode chunked,unchunked --device "$DEVICE" --out "$d/R" \
      >"$d/run.log" 2>&1 && touch "$d/R/done"
  fi
  "$BIN" compare "$d/E" "$d"/R/*-chunked "$d"/R/*-unchunked --out "$d/rep" >"$d/compare.log" 2>&1
  echo $? >"$d/compare.rc"
  echo "$i $name: compare exit $(cat "$d/compare.rc")"
done <"$cases"

# 6. the table and the margins
"$PY" - "$W" <<'PY'
import glob, json, math, os, sys
W = sys.argv[1]
rows, ok = [], True
for d in sorted(glob.glob(os.path.join(W, "[0-9]*")), key=lambda p: int(os.path.basename(p))):
    if not os.path.exists(os.path.join(d, "rep", "report.json")):
        continue
    name, case = open(os.path.join(d, "what")).read().rstrip("\n").split("\t")
    same = sum(1 for e in glob.glob(os.path.join(W, "[0-9]*", "same"))
               if open(e).read().strip() == os.path.basename(d))
    r = json.load(open(os.path.join(d, "rep", "report.json")))
    rc = int(open(os.path.join(d, "compare.rc")).read())
    corrupt = r["plans"][0]["corrupts"]
    why = ("%d differ" % r["plans"][0]["differing"]) if r["plans"][0]["differing"] else (
        "%d merge NaN" % r["plans"][0]["merge_nan"] if corrupt else "exact")
    for x in r["results"]:
        if x["mode"] != "chunked":
            continue
        det = x["detector"]
        ratio = math.inf if det is None or det["ratio"] is None else det["ratio"]
        good = (rc == 1 and det is not None and det["flagged"]) if corrupt else (rc == 0 and not det["flagged"])
        ok &= good
        rows.append((corrupt, x["kernel_set"], ratio, det, name, case.split()[0][8:], why, rc, good, same))
print("| plan | version | set | exact reference | detector ratio out / LSE | ratio | compare | ok |")
print("|---|---|---|---|---|---|---|---|")
fmt = lambda v: "inf" if v is None or v == math.inf else "%.3g" % v
for c, s, ratio, det, name, ver, why, rc, good, n in rows:
    print("| %s%s | %s | %s | %s | %s / %s | %s | exit %d | %s |" % (name, " (+%d same plan)" % n if n else "", ver, s, why,
          fmt(det["ratio_out"]), fmt(det["ratio_lse"]), fmt(ratio), rc, "yes" if good else "**NO**"))
for s in sorted({r[1] for r in rows}) + ["all"]:
    sel = [r for r in rows if s in ("all", r[1])]
    bad = [r[2] for r in sel if r[0] and r[2] != math.inf]
    good = [r[2] for r in sel if not r[0]]
    ninf = sum(1 for r in sel if r[0] and r[2] == math.inf)
    lo, hi = (min(bad) if bad else math.inf), (max(good) if good else 0)
    print("%-16s corrupting plans %d (min finite ratio %s, %d infinite: NaN), correct plans %d (max ratio %s), margin %s"
          % (s, len(bad) + ninf, fmt(lo), ninf, len(good), fmt(hi), fmt(lo / hi if hi else math.inf)))
print("requirement (every corrupting plan a finding and flagged, no correct plan flagged):", "met" if ok else "NOT MET")
sys.exit(0 if ok else 1)
PY

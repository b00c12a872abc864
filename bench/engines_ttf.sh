#!/bin/sh
# Each other-engine bug from an EMPTY corpus with the built-in engine (no libFuzzer build needed):
#   bench/engines_ttf.sh [CHUNKPROOF [SECONDS [SEEDS]]]
# For every version row that is not expected correct and whose family is not vLLM's (the list
# comes from `chunkproof versions --json`, i.e. from the version table), SEEDS campaigns of
# SECONDS each (default 1 s, 10 seeds) from an empty corpus; prints, per row, how many found a
# finding and the findings' signatures. The expected-correct rows of those families (the fixed
# rows, trtllm-current) are run the same way and must find nothing.
set -eu
bin=${1:-build/release/chunkproof}
secs=${2:-1}
seeds=${3:-10}
[ -x "$bin" ] || { echo "missing $bin" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" versions --json > "$tmp/versions.json"
python3 - "$tmp/versions.json" > "$tmp/rows" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["versions"] if isinstance(d, dict) else d
for v in rows:
    if v["family"] not in ("floor-divide", "packed"):
        print(v["name"], "clean" if v.get("expected_correct") else "bug")
PY
while read -r v kind; do
  found=0; sigs=""
  for seed in $(seq 1 "$seeds"); do
    rm -rf "$tmp/c" "$tmp/f"
    "$bin" fuzz --engine builtin --version "$v" --max-time "$secs" --seed "$seed" --minimize-time 0 \
      --corpus-dir "$tmp/c" --findings-dir "$tmp/f" --no-status --json > "$tmp/r.json" 2> "$tmp/err" || true
    n=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); f=r.get('findings', []); print(len(f)); [print(x.get('signature','?'), file=sys.stderr) for x in f]" "$tmp/r.json" 2>> "$tmp/sigs" || echo 0)
    [ "$n" -gt 0 ] && found=$((found + 1))
  done
  sigs=$(sort "$tmp/sigs" 2>/dev/null | uniq -c | sort -rn | head -3 | awk '{c=$1; $1=""; printf "%s x%d;", $0, c}')
  rm -f "$tmp/sigs"
  printf '%-26s %-5s %2d/%d seeds found a finding in %s s  %s\n' "$v" "$kind" "$found" "$seeds" "$secs" "$sigs"
done < "$tmp/rows"

#!/bin/sh
# Regenerates the seed corpora from their sources. Run from the repository root after a build:
#   fuzz/make_seeds.sh build/release     (any build dir with fuzz/fuzz_seedgen)
# planner_fuzz: corpus/planner_fuzz.cases (+ v6-current and other-platform variants) and the
# regression files; case_parser_fuzz: the same case lines as text. Existing seeds are kept.
set -eu
build=${1:-build/release}
gen="$build/fuzz/fuzz_seedgen"
[ -x "$gen" ] || { echo "make_seeds.sh: $gen not found; build first (cmake --build --preset release)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' corpus/planner_fuzz.cases | grep . > "$tmp/spec.lines"
sed -e 's/version=[^ ]*/version=v6-current/' "$tmp/spec.lines" > "$tmp/v6.lines"
sed -e 's/platform=cuda/platform=XX/; s/platform=rocm/platform=cuda/; s/platform=XX/platform=rocm/' "$tmp/spec.lines" > "$tmp/flip.lines"
"$gen" corpus/planner_fuzz "$tmp/spec.lines" "$tmp/v6.lines" "$tmp/flip.lines" corpus/regressions/*.case
i=0
while IFS= read -r line; do
  i=$((i + 1))
  printf '%s' "$line" > "corpus/case_parser_fuzz/spec-$i"
done < "$tmp/spec.lines"
for f in corpus/regressions/*.case; do
  grep -v '^#' "$f" | head -n 1 | tr -d '\n' > "corpus/case_parser_fuzz/regression-$(basename "$f" .case)"
done

#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script: builds every fuzz target with the farm's compiler
# flags and engine, and ships the seed corpora (zips), dictionaries and .options next to them.
#
#   OSS-Fuzz:          projects/chunkproof/build.sh = this file (Dockerfile, project.yaml beside it)
#   ClusterFuzzLite:   copy this directory to .clusterfuzzlite/ at the repository root
#   locally:           CXX=clang++ CXXFLAGS="-fsanitize=address,undefined -fsanitize=fuzzer-no-link -O1 -g" \
#                      LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out SRC=$PWD/.. fuzz/oss-fuzz/build.sh
# Uses only $CXX $CXXFLAGS $LIB_FUZZING_ENGINE, no CMake, so the farm's flags reach every file.
root=${CHUNKPROOF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${OUT:?set OUT}" "${CXX:=clang++}" "${CXXFLAGS:=}" "${LIB_FUZZING_ENGINE:?set LIB_FUZZING_ENGINE}"
work=${WORK:-$(mktemp -d)}
mkdir -p "$OUT" "$work/obj"
flags="-std=c++20 -I$root -ffp-contract=off -fno-fast-math"
objs=()
for src in "$root"/reference/caseio/case.cpp "$root"/reference/planner/*.cpp "$root"/reference/dcp/*.cpp \
           "$root"/invariants/*.cpp "$root"/invariants/interval/*.cpp "$root"/fuzz/common/*.cpp; do
  obj="$work/obj/$(echo "${src#$root/}" | tr / _).o"
  $CXX $CXXFLAGS $flags -c "$src" -o "$obj"
  objs+=("$obj")
done
for src in "$root"/fuzz/fuzz_*.cpp; do
  t=$(basename "$src" .cpp); t=${t#fuzz_}_fuzz
  $CXX $CXXFLAGS $flags "$src" "${objs[@]}" $LIB_FUZZING_ENGINE -o "$OUT/$t"
  if [ -d "$root/corpus/$t" ]; then
    (cd "$root/corpus/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
  fi
  if [ -f "$root/corpus/$t.dict" ]; then  # plus the version names, derived from the rows as `chunkproof fuzz` does
    { cat "$root/corpus/$t.dict"
      sed -n 's/^ *\.name = \("[^"]*"\),$/\1/p' "$root/reference/planner/versions.h"; } > "$OUT/$t.dict"
  fi
  [ -f "$root/corpus/$t.options" ] && cp "$root/corpus/$t.options" "$OUT/"
done
# planner_fuzz also replays the regression cases as seeds (they are converted by fuzz_seedgen
# into corpus/planner_fuzz already); nothing else to ship.
echo "built: $(cd "$OUT" && ls *_fuzz | tr '\n' ' ')"

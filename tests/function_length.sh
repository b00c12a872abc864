#!/usr/bin/env bash
# usage: function_length.sh <source dir>
# No function over 150 lines in C++, HIP or Python (STYLE.md): universal-ctags gives each
# function's first and last line. tests/function_length.allow lists the exceptions still being
# split, one "name path" per line; it is meant to be empty, and a listed function that is no
# longer long fails too (take it off).
set -u
cd "$1" || exit 2
command -v ctags >/dev/null || { echo "universal-ctags is not installed (tools/install-deps.sh)"; exit 2; }
limit=150
allow=tests/function_length.allow
long=$( {
  ctags -R --languages=C++ --langmap=C++:+.hip.cuh --kinds-C++=f --fields=+ne -x --_xformat='%N	%F	%n	%{end}' \
    reference invariants fuzz kernels campaign tools tests
  ctags -R --languages=Python --kinds-Python=fm --fields=+ne -x --_xformat='%N	%F	%n	%{end}' python tests tools
} 2>/dev/null | awk -F '\t' -v L="$limit" '$4 != "" && $4 - $3 + 1 > L {gsub(/ /, "", $1); printf "%s %s %d\n", $1, $2, $4 - $3 + 1}' | sort -u)
bad=0
while read -r name path n; do
  [ -n "$name" ] || continue
  if grep -qxF "$name $path" "$allow" 2>/dev/null; then
    echo "allowed for now: $name ($path, $n lines)"
  else
    echo "over $limit lines: $name ($path, $n lines): split it into named steps"
    bad=1
  fi
done <<<"$long"
while read -r name path; do
  [ -n "$name" ] && [ "${name:0:1}" != "#" ] || continue
  if ! grep -q "^$name $path " <<<"$long"; then
    echo "stale allow-list entry: $name $path is not over $limit lines any more: take it off $allow"
    bad=1
  fi
done < <(cat "$allow" 2>/dev/null)
[ "$bad" = 0 ] && echo "no function over $limit lines outside the allow-list ($(grep -cv "^#" "$allow" 2>/dev/null || echo 0) entries)"
exit "$bad"

#!/usr/bin/env bash
# usage: include_graph.sh <source dir>
# Rooms only look down (DESIGN §2): reference -> invariants -> fuzz, kernels, live -> campaign -> tools.
# Fails on any #include "<room>/..." from a room of a lower rank, between fuzz, kernels and live, and
# from campaign into kernels or into fuzz/ outside fuzz/common/ (the targets and replay driver).
set -u
cd "$1" || exit 2
rank() { case "$1" in reference) echo 1;; invariants) echo 2;; fuzz|kernels|live) echo 3;; campaign) echo 4;; tools) echo 5;; *) echo 0;; esac; }
bad=0
for room in reference invariants fuzz kernels live campaign tools; do
  [ -d "$room" ] || continue
  r=$(rank "$room")
  while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    inc=$(printf '%s' "$hit" | sed -E 's/^[^:]*:[0-9]+:.*#include *"([a-z_]+)\/.*/\1/')
    t=$(rank "$inc")
    if [ "$t" -gt "$r" ] || { [ "$t" = 3 ] && [ "$r" = 3 ] && [ "$inc" != "$room" ]; } ||
       { [ "$room" = campaign ] && { [ "$inc" = kernels ] || { [ "$inc" = fuzz ] && ! printf '%s' "$hit" | grep -q '#include *"fuzz/common/'; }; }; }; then
      echo "upward include: $hit"
      bad=1
    fi
  done < <(grep -rnE '^\s*#\s*include *"(reference|invariants|fuzz|kernels|live|campaign|tools)/' "$room" \
             --include='*.h' --include='*.hpp' --include='*.cpp' --include='*.hip' --include='*.cuh' --include='*.cu')
done
[ "$bad" = 0 ] && echo "include graph: every room looks only down"
exit "$bad"

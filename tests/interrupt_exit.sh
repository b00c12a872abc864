#!/usr/bin/env bash
# usage: interrupt_exit.sh <INT|TERM> <seconds> <regex> <command...>
# Issue 24: a long command stopped by a signal keeps its results. Starts the command in its own
# session (so the signal goes to its whole process group, as a terminal's Ctrl-C does), sends
# the signal after <seconds>, and passes when the command
#   - was still running then (else the test proves nothing),
#   - exits 3 within 2 s of the signal,
#   - printed output matching <regex> (extended regex, across lines: the results so far),
#   - left no process of its group behind.
# Started with `&` from a non-interactive shell, so SIGINT is inherited as ignored: the command's
# guard must install its handler anyway (reference/proc/interrupt.h).
sig=$1; delay=$2; regex=$3; shift 3
out=$(mktemp); trap 'rm -f "$out"' EXIT
# Running and not a zombie (an exited child stays signalable until it is reaped).
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" != Z ]; }
setsid "$@" >"$out" 2>&1 </dev/null &
pid=$!
sleep "$delay"
if ! alive "$pid"; then
  wait "$pid"; echo "finished (exit $?) before the signal: make the work longer"; tail -20 "$out"; exit 1
fi
t0=$(date +%s%N)
kill -s "$sig" -- "-$pid"
for _ in $(seq 200); do alive "$pid" || break; sleep 0.05; done
t1=$(date +%s%N)
if alive "$pid"; then
  echo "still running 10 s after SIG$sig"; kill -s KILL -- "-$pid"; wait "$pid"; tail -20 "$out"; exit 1
fi
wait "$pid"; got=$?
ms=$(( (t1 - t0) / 1000000 ))
echo "SIG$sig -> exit $got in $ms ms"
fail=0
[ "$got" = 3 ] || { echo "exit $got, expected 3"; fail=1; }
[ "$ms" -le 2000 ] || { echo "took $ms ms, more than 2 s"; fail=1; }
grep -Eqz -- "$regex" "$out" || { echo "output does not match /$regex/"; fail=1; }
if kill -0 -- "-$pid" 2>/dev/null; then echo "a process of its group survives"; fail=1; fi
[ $fail = 0 ] || tail -30 "$out"
exit $fail

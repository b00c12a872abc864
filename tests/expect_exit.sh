#!/usr/bin/env bash
# usage: expect_exit.sh [-z] <code> <regex> <command...>
# Runs the command; passes when it exits with <code> and its stdout+stderr match <regex>
# (extended regex; -z: across lines, `.` matches newlines too). A regex starting with '!'
# must NOT match. stdin is empty unless EXPECT_STDIN names a file to feed.
z=""
if [ "$1" = "-z" ]; then z="z"; shift; fi
code=$1; regex=$2; shift 2
if [ -n "${EXPECT_STDIN:-}" ]; then out=$("$@" 2>&1 <"$EXPECT_STDIN"); got=$?
else out=$("$@" 2>&1 </dev/null); got=$?; fi
if [ "$got" != "$code" ]; then echo "exit $got, expected $code"; echo "$out" | tail -20; exit 1; fi
if [ "${regex:0:1}" = "!" ]; then
  if grep -Eq$z -- "${regex:1}" <<<"$out"; then echo "output matches /${regex:1}/ (it must not)"; echo "$out" | tail -20; exit 1; fi
elif ! grep -Eq$z -- "$regex" <<<"$out"; then echo "output does not match /$regex/"; echo "$out" | tail -20; exit 1; fi
exit 0

#!/usr/bin/env bash
# usage: expect_exit.sh <code> <regex> <command...>
# Runs the command; passes when it exits with <code> and its stdout+stderr match <regex>.
code=$1; regex=$2; shift 2
out=$("$@" 2>&1); got=$?
if [ "$got" != "$code" ]; then echo "exit $got, expected $code"; echo "$out" | tail -20; exit 1; fi
if ! grep -Eq -- "$regex" <<<"$out"; then echo "output does not match /$regex/"; echo "$out" | tail -20; exit 1; fi
exit 0

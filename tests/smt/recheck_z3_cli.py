#!/usr/bin/env python3
"""Re-checks every PROVED row with the z3 command-line tool: a small-domain `chunkproof prove`
exports each query (--emit-smt2), and every query of every PROVED row must be `unsat` for
`z3 FILE` too (an independent parse of the printed SMT-LIB2, not the API's in-memory terms).
Rows with a counterexample or UNKNOWN are not re-checked (their exports end in sat/unknown).

usage: recheck_z3_cli.py CHUNKPROOF Z3
"""
import concurrent.futures
import json
import pathlib
import subprocess
import sys
import tempfile

# CI-sized (2 cores, a 30-minute CI): the v6-current chains of I-1, I-2, I-4, I-6, I-7, I-10
# (proved by the prover, then every query of every PROVED row by the z3 CLI), and on one platform
# (rocm; with the dense builder the cuda queries are the same text) the session-3/4 chains, I-3
# (every step), I-8 (a) (the sum over ranks) and I-9 at token level (the bijection), selected by
# step name and exported with --emit-only: the z3 CLI alone proves them (every step must be
# unsat; the prover still checks each step's hypotheses, instances and rewrites while exporting).
# The count-level I-8 (b) / I-9 steps (e.g. `split-end-exact`, ~12 s) run only in the full
# re-check (every step, the old planner: minutes on 2 cores): CHUNKPROOF_RECHECK_FULL=1.
import os
import re

SMALL = ["--domain", "blocks=16", "--domain", "dcp=2", "--domain", "interleave=2"]
# (arguments, which exported steps to re-check: a regex on the step name or None = all, solve:
# the prover proves the rows first, else --emit-only)
NEW_CHAIN_STEPS = (r"I-3\..*|I-8\..*-(ctx-stripe|ctx-rem-range|sum-.*|rank-.*-stripe|distribute-.*|at-stripe-product)"
                   r"|I-9\..*-(pos-.*|slot-.*|gp-.*|token-.*|.*-end-stripe-.*)")
RUNS = [
    (["--version", "v6-current", "--invariant", "I-1,I-2,I-4,I-6,I-7,I-10", *SMALL], None, True),
    (["--version", "v6-current", "--platform", "rocm", "--invariant", "I-3,I-8,I-9", *SMALL], NEW_CHAIN_STEPS, False),
]
if os.environ.get("CHUNKPROOF_RECHECK_FULL") == "1":
    RUNS = [
        (["--version", "v6-current", "--invariant", "I-1,I-2,I-3,I-4,I-6,I-7,I-8,I-9,I-10", *SMALL], None, True),
        (["--version", "v4-pr47327", "--platform", "cuda", "--domain", "prefills=1", "--domain", "dcp=4", "--domain",
          "block=64", "--domain", "interleave=4"], None, True),
    ]


def tag(v: str, p: str, inv: str) -> str:
    return f"{v}.{p}.{inv}."


def main() -> int:
    chunkproof, z3 = sys.argv[1], sys.argv[2]
    bad = checked = rows = dup = 0
    seen = set()
    with tempfile.TemporaryDirectory() as tmp:
        for i, (run, steps, solve) in enumerate(RUNS):
            out = pathlib.Path(tmp) / str(i)
            cmd = [chunkproof, "prove", *run, "--jobs", "2", "--no-cache", "--json", "--emit-smt2", str(out)]
            if not solve:
                cmd.append("--emit-only")
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode not in (0, 1, 3):
                sys.exit(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stderr[-2000:]}")
            files = sorted(out.glob("*.smt2"))
            jobs = []
            for row in json.loads(r.stdout)["results"]:
                if row["status"] != ("PROVED" if solve else "UNKNOWN"):
                    continue
                rows += 1
                mine = [f for f in files if f.name.startswith(tag(row["version"], row["platform"], row["invariant"]))]
                if steps is not None:
                    sel = re.compile(r"[^.]+\.[^.]+\.(" + steps + r")\.smt2")
                    mine = [f for f in mine if sel.fullmatch(f.name)]
                if not mine:
                    print(f"FAIL {row['version']}/{row['platform']} {row['invariant']}: {row['status']} but no export")
                    bad += 1
                jobs += mine
            # A query whose text (the comment header aside) was already re-checked is not asked
            # again: with the dense builder the cuda and rocm chains are the same queries.
            unique = []
            for f in jobs:
                body = "".join(l for l in f.read_text().splitlines(True) if not l.startswith(";"))
                if body not in seen:
                    seen.add(body)
                    unique.append(f)
            dup += len(jobs) - len(unique)
            jobs = unique
            with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
                answers = pool.map(
                    lambda f: (f, subprocess.run([z3, "-T:180", str(f)], stdout=subprocess.PIPE, text=True).stdout), jobs)
                for f, ans in answers:
                    checked += 1
                    if ans.strip() != "unsat":
                        print(f"FAIL {f.name}: z3 says {ans.strip()!r}")
                        bad += 1
    print(f"{rows} rows (PROVED, or exported by --emit-only), {checked} exported queries re-checked by {z3} ({dup} textually identical ones "
          f"skipped): {bad} not unsat")
    return 1 if bad or rows == 0 else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Pins the encoding (tests/smt/golden/): re-exports a handful of rows with
`chunkproof prove --emit-smt2 --emit-only` (the queries are built and written, none solved: the
proving is recheck_z3_cli.py's and test_smt's) and compares every file with the checked-in copy. An intended
change of the encoding updates them in the same commit:

    tests/smt/smt2_golden.py build/release/chunkproof tests/smt/golden --update

The export is canonical (query.cpp canonical_smt2: let-names by first appearance, sorted
declarations), so it depends on the query alone.

usage: smt2_golden.py CHUNKPROOF GOLDEN_DIR [--update]
"""
import difflib
import pathlib
import shutil
import subprocess
import sys
import tempfile

# One row per family / invariant kind (small, quick): closed lemma chains (lcm, witnesses,
# monotone instances, case rewrite, abstracted products), the split grid (concrete B, W, I), and
# the old planner's direct queries.
ROWS = [
    # packed chain: lcm abstraction, witnesses, monotone instances
    ["--version", "v6-current", "--platform", "cuda", "--invariant", "I-6"],
    # packed chain: the forward asserts (steps.h) under DCP
    ["--version", "v6-current", "--platform", "rocm", "--invariant", "I-7"],
    # packed chain: sizing through a case rewrite (select(W == 1, ...))
    ["--version", "v5-packed", "--platform", "cuda", "--invariant", "I-1"],
    # packed chain: abstracted products (the global budget)
    ["--version", "v5-packed", "--platform", "rocm", "--invariant", "I-4"],
    # packed split grid: one (B, W, I) cell, concrete and linear
    ["--version", "v6-current", "--platform", "cuda", "--invariant", "I-3", "--domain", "packed=split", "--domain",
     "blocks=16", "--domain", "dcp=2", "--domain", "interleave=1"],
    # old planner: closed chain (pr41229 sizes S = (x // W)*W)
    ["--version", "pr41229", "--platform", "cuda", "--invariant", "I-1"],
    # old planner: direct query, one prefill
    ["--version", "v4-pr47327", "--platform", "cuda", "--invariant", "I-2", "--domain", "prefills=1"],
    # packed chains of sessions 3/4 (rocm; the cuda queries are the same text with the dense
    # builder): I-3 by induction, I-8 (a) and (b), I-9 at count and token level
    ["--version", "v6-current", "--platform", "rocm", "--invariant", "I-3,I-8,I-9"],
    # the pinned triple (`chunkproof audit`'s seed deployment): every packed row on the split
    # grid; I-8 and I-9 as direct queries over the greedy step's two pieces (encode_entry.cpp)
    ["--version", "v6-current", "--platform", "rocm", "--invariant", "I-8,I-9", "--pin",
     "block=64,dcp=8,interleave=1,workspace=65536"],
    # the old planner's entry on the pinned triple (v1's reorg rule), one prefill
    ["--version", "v1-dcp", "--platform", "rocm", "--invariant", "I-9", "--pin",
     "block=64,dcp=8,interleave=1,workspace=65536", "--domain", "prefills=1"],
]


def export(chunkproof: str, out: pathlib.Path) -> None:
    for row in ROWS:
        cmd = [chunkproof, "prove", *row, "--jobs", "1", "--no-cache", "--emit-smt2", str(out), "--emit-only"]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode not in (0, 1, 3):  # 3: UNKNOWN, every row under --emit-only
            sys.exit(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}{r.stderr}")


def main() -> int:
    chunkproof, golden = sys.argv[1], pathlib.Path(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp)
        export(chunkproof, out)
        if "--update" in sys.argv[3:]:
            for f in golden.glob("*.smt2"):
                f.unlink()
            golden.mkdir(parents=True, exist_ok=True)
            for f in sorted(out.glob("*.smt2")):
                shutil.copy(f, golden / f.name)
            print(f"updated {len(list(out.glob('*.smt2')))} files in {golden}")
            return 0
        new = {f.name: f.read_text() for f in out.glob("*.smt2")}
        old = {f.name: f.read_text() for f in golden.glob("*.smt2")}
        bad = 0
        for name in sorted(set(new) | set(old)):
            if name not in old:
                print(f"NEW export (not in {golden}): {name}")
                bad += 1
            elif name not in new:
                print(f"MISSING export (in {golden}, no longer written): {name}")
                bad += 1
            elif new[name] != old[name]:
                print(f"CHANGED: {name}")
                sys.stdout.writelines(
                    list(difflib.unified_diff(old[name].splitlines(True), new[name].splitlines(True), "golden/" + name,
                                              "now/" + name))[:60])
                bad += 1
        print(f"{len(new)} exports, {bad} differ from {golden}")
        if bad:
            print("an intended change of the encoding: rerun with --update and commit the golden files with it")
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

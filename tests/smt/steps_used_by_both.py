#!/usr/bin/env python3
"""Fails if a planner step is used by only one of its two instantiations: the executable planner
(reference/planner/**/*.cpp and families/*_plan.h, cp::Int) and the prover's encoder
(invariants/smt/*.cpp, z3::expr). The steps are the templates of every step header:
reference/planner/steps.h and sizing.h (shared by every family), each family's
reference/planner/families/<family>/steps.h and the shared families/*_steps.h. A step counts as
used by a side when that side calls it, or calls another step whose body calls it (transitively).
A family the prover does not encode (smt_encoded false) has planner-only steps.

usage: steps_used_by_both.py SOURCE_DIR
"""
import pathlib
import re
import sys

# Steps one side uses on purpose, each with the reason. Keep this list short and explained.
ALLOW_ONE_SIDE = {
    # The packed split: the planner runs vLLM's binary search; the prover states what the
    # search returns as its postcondition (a witness k). Both call packed_split_fits/kmax.
    "packed_split_search": "planner: the executable binary search",
    "packed_split_postcondition": "prover: the binary search's postcondition, for a witness k",
    # Planner asserts that stop a run before an invariant can be observed: the prover finds
    # models without them and replays each one through the planner, which reports the assert.
    "v0_init_assert_holds": "planner assert (S1 init); replayed, not encoded",
    "old_per_step_assert_holds": "planner assert (S2-S5 per step); replayed, not encoded",
    # The other engines' rows the prover does not encode (docs/proving.md "Other engines"): the
    # per-rank window rows of ATOM's and SGLang's padded send of G-7 sum over W symbolic
    # ranks; `check` decides them on every plan.
    "atom_padded_local": "planner: ATOM's padded local rows (A-3/A-4, not encoded)",
    "atom_window_rows": "planner: ATOM's per-rank window rows (A-3/A-4, not encoded)",
    "sglang_padded": "planner: SGLang's padded send rows (G-7, not encoded)",
    # vLLM's sparse indexer: ke - ks per query token. The plan keeps no per-token K ranges, so
    # the other side is check_E6 (invariants/sparse_checks.cpp), which calls the same step.
    "indexer_key_len": "prover + check_E6: the plan keeps no per-token K ranges (E-6)",
    "pcp_max_local_reqs": "planner: P-8's buffer bound of the gathered layout (P-5..P-8 are not encoded)",
    "pcp_padded_reqs": "planner: PCP-A's request padding of the gathered layout (P-8; not encoded)",
    "reuse_rows_gathered": "planner: CR-6's saving of #57668's context reuse (CR- checks are not encoded)",
    "reuse_tail_len": "planner: #57668's tail chunk (ctx_reuse; CR- checks are not encoded)",
    "reuse_tail_start": "planner: #57668's tail chunk start (ctx_reuse; CR- checks are not encoded)",
}


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    headers = [root / "reference/planner/steps.h", root / "reference/planner/sizing.h"]
    headers += sorted((root / "reference/planner/families").glob("*/steps.h"))
    # A family the prover does not encode (its FamilyInfo leaves smt_encoded false: `prove`
    # refuses its versions by name) has planner-only steps by design; so do the step headers
    # shared by such families only (families/*_steps.h, e.g. the rectangular split).
    unencoded = sorted((root / "reference/planner/families").glob("*_steps.h"))
    for h in sorted((root / "reference/planner/families").glob("*/steps.h")):
        plan = h.parent / "plan.cpp"
        if not (plan.exists() and re.search(r"\.smt_encoded\s*=\s*true", plan.read_text())):
            unencoded.append(h)
    headers += [h for h in unencoded if h not in headers]
    step_re = r"template <class N>\s*\n(?:[\w:<>]+\s+)+(\w+)\("
    planner_only = {n: "the " + (h.parent.name if h.name == "steps.h" else h.stem) + " steps: not encoded by the prover"
                    for h in unencoded for n in re.findall(step_re, h.read_text())}
    steps_h = "\n".join(h.read_text() for h in headers)
    # Every function template of steps.h: "template <class N>\n<ret> name(" (ret may be auto).
    names = re.findall(r"template <class N>\s*\n(?:[\w:<>]+\s+)+(\w+)\(", steps_h)
    names = sorted(set(names))
    if len(names) < 10:
        print(f"found only {len(names)} steps in the step headers: the pattern no longer matches")
        return 1
    # The body of each step: from its name to the next "template <class N>".
    bodies = {}
    for m in re.finditer(r"template <class N>\s*\n(?:[\w:<>]+\s+)+(\w+)\((.*?)(?=template <class N>|\Z)", steps_h,
                         re.S):
        bodies[m.group(1)] = m.group(2)
    calls = {n: {o for o in names if o != n and re.search(rf"\b{o}\(", bodies.get(n, ""))} for n in names}

    def uses(files):
        text = "\n".join(p.read_text() for p in files)
        direct = {n for n in names if re.search(rf"\bsteps::{n}\b", text)}
        used = set(direct)
        changed = True
        while changed:
            changed = False
            for n in list(used):
                for o in calls[n] - used:
                    used.add(o)
                    changed = True
        return used

    # The planner side: its .cpp files and the plan builders the families share as headers.
    planner = uses(sorted((root / "reference/planner").glob("**/*.cpp")) +
                   sorted((root / "reference/planner/families").glob("*_plan.h")))
    prover = uses(sorted((root / "invariants/smt").glob("*.cpp")))
    bad = 0
    for n in names:
        sides = ("planner" if n in planner else "") + ("+prover" if n in prover else "")
        if n in planner and n in prover:
            status = "both"
        elif n in ALLOW_ONE_SIDE and (n in planner or n in prover):
            status = "one side (allowed: " + ALLOW_ONE_SIDE[n] + ")"
        elif n in planner_only and n in planner:
            status = "planner only (" + planner_only[n] + ")"
        else:
            status = "FAIL: used by " + (sides.strip("+") or "neither")
            bad += 1
        print(f"{n:40s} {status}")
    stale = sorted(set(ALLOW_ONE_SIDE) - set(names))
    for n in stale:
        print(f"FAIL: allow-list names {n}, which no step header has any more")
        bad += 1
    for n in ALLOW_ONE_SIDE:
        if n in planner and n in prover:
            print(f"FAIL: {n} is used by both sides now: take it off the allow-list")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

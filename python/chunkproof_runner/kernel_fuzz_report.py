"""kernel-fuzz's report: per contract and per kernel set, exercised / holds / violated; every
violation with the commands that replay it (export, runner, compare)."""

import json
import os

from . import EXIT_FINDING, EXIT_OK


def replay(inst, v):
    from .kernel_fuzz import PERSONAS

    opts = PERSONAS.get(v["persona"], {})
    extra = "".join(f" --{k.replace('_', '-')} {val}" for k, val in opts.items())
    return (f'chunkproof export --case "{inst["case"]}" --out EXP && '
            f"python3 -m chunkproof_runner run EXP --set {v['set']} --mode {v['mode']}{extra} --out RES && "
            f"chunkproof compare EXP RES")


def tally(state):
    table, violations = {}, []
    for inst in state["done"].values():
        for v in inst.get("verdicts", []):
            key = (v["contract"], v["set"])
            row = table.setdefault(key, {"name": v["name"], "holds": 0, "violated": 0, "not exercised": 0})
            row[v["verdict"]] = row.get(v["verdict"], 0) + 1
            if v["verdict"] == "violated":
                violations.append(dict(v, case=inst["case"], replay=replay(inst, v)))
    return table, violations


def write_report(out, state, sets, stopped):
    table, violations = tally(state)
    seen = []  # the sets that ran (a compare phase on another machine than the run's)
    for inst in state["done"].values():
        for v in inst.get("verdicts", []):
            if v["set"] not in seen:
                seen.append(v["set"])
    sets = seen or [s for s in sets if s]
    contracts = sorted({c for c, _ in table}, key=lambda c: int(c.split("-")[1]))
    insts = state["done"].values()
    raised = [r for i in insts for r in i.get("raised", [])]
    skipped = [(i["case"], i.get("skipped") or i.get("error")) for i in insts if "verdicts" not in i]
    never = [c for c in contracts if not any(table.get((c, s), {}).get("holds", 0) + table.get((c, s), {}).get("violated", 0)
                                             for s in sets)]
    doc = {"schema": "chunkproof-kernel-fuzz", "schema_version": 1, "sets": sets, "instances": len(state["done"]),
           "seconds": state.get("seconds", 0.0), "stopped_by_budget": stopped,
           "contracts": [{"contract": c, "set": s, **table[(c, s)]} for c in contracts for s in sets if (c, s) in table],
           "never_exercised": never, "violations": violations, "raised": raised, "skipped": skipped}
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(doc, f, indent=1)
    md = [f"# kernel-fuzz\n\n{len(state['done'])} boundary instances, sets {', '.join(sets)}, "
          f"{state.get('seconds', 0.0):.1f} s{' (stopped by the budget: --resume goes on)' if stopped else ''}.\n",
          "| contract | " + " | ".join(sets) + " |", "|---|" + "---|" * len(sets)]
    for c in contracts:
        name = next(table[(c, s)]["name"] for s in sets if (c, s) in table)
        cells = []
        for s in sets:
            r = table.get((c, s))
            cells.append("-" if r is None else f"{r['holds']} hold / **{r['violated']} violated** / {r['not exercised']} n.e."
                         if r["violated"] else f"{r['holds']} hold / {r['not exercised']} n.e.")
        md.append(f"| {c} {name} | " + " | ".join(cells) + " |")
    if never:
        md.append(f"\nNever exercised: {', '.join(never)}.")
    if violations:
        exact = [v for v in violations if not v.get("plan_corrupts")]
        md.append(f"\n## Violations\n\n{len(exact)} on plans that are exact by themselves (the kernel's), "
                  f"{len(violations) - len(exact)} on plans that corrupt outputs anyway (the plan's first).\n")
        for v in sorted(violations, key=lambda v: bool(v.get("plan_corrupts"))):
            md.append(f"- {v['contract']} {v['set']} ({v['persona']}, {v['mode']}, merge kernel {v['merge_kernel']}"
                      f"{', corrupting plan' if v.get('plan_corrupts') else ''}): "
                      f"{v['detail']}\n  - case `{v['case']}`\n  - replay: `{v['replay']}`")
    pairs = [(i["case"], p) for i in insts for p in i.get("plan_pairs", [])]
    if pairs:
        md.append("\n## Plan A vs plan B (one batch, two planners, one kernel set)\n")
        for case, p in pairs:
            md.append(f"- {p['a']} vs {p['b']}: max rel {p['max_rel']:.3g}, "
                      f"{p['bit_equal']}/{p['elements']} elements bit-equal")
    doc["plan_pairs"] = [dict(p, case=c) for c, p in pairs]
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(doc, f, indent=1)
    for r in raised:
        md.append(f"- raised: {r['set']} {r['persona']} {r['mode']}: {r['raised']}")
    for c, why in skipped:
        md.append(f"- skipped `{c}`: {why}")
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md[:len(contracts) + 3]))
    print(f"\nwrote {out}/report.md, report.json ({len(violations)} violations)")
    return EXIT_FINDING if violations or raised else EXIT_OK

"""kernel-fuzz: boundary exports through every kernel set, judged by compare's kernel contracts.

    python3 -m chunkproof_runner kernel-fuzz --chunkproof BIN --out DIR [--sets a,b] [--device D]
        [--budget SECONDS] [--resume] [--rounds N] [--vllm-src DIR]

Each round draws one instance of every boundary shape (SHAPES: empty context rows, ctx=0 between
context requests, chunks of length 0 and 1, a chunk exactly filling the workspace, continuation
chunks, ranks owning zero rows, very long contexts with few rows per rank, 192-vs-128 head
strides, mid-block chunk starts) from the round's seed, exports it (`chunkproof export`), runs
it through every available kernel set under every persona (PERSONAS: the kernel as it is, an
FA2 +inf LSE for empty rows, a finite LSE for empty rows as in #49294, NaN, padded-V views into
the merges), and asks `chunkproof compare --json` for the contract verdicts. DIR holds
exports/, results/, reports/ (one compare report per export), state.json (what is done: --resume
goes on from it) and report.md/report.json: per contract and per set, exercised / holds /
violated, and every violation with the commands that replay it. Exit: 0 no contract violated,
1 a violation, 2 bad input, 4 no kernel set runs here."""

import contextlib
import io
import json
import os
import random
import subprocess
import sys
import time

from . import EXIT_CANNOT_RUN, EXIT_FINDING, EXIT_OK, EXIT_USAGE, CannotRun

# name, case template (filled from the round's random draws), what it is for. Small dims unless
# the shape is about the 192-vs-128 strides.
SHAPES = [
    ("ctx0-between", "version=v2-interleave platform=rocm dcp=1 block=16 workspace=128 ctx={a},0,{b} q=3,2,3",
     "a context-free request between two context requests, old planner (#49294; empty + empty merge)"),
    ("ctx0-between-packed", "version=v6-current platform=rocm dcp=1 block=16 workspace=128 ctx={a},0,{b} q=3,2,3",
     "the same batch through the packed planner (explicit empty query ranges)"),
    ("ctx0-last", "version=v2-interleave platform=cuda dcp=1 block=16 workspace=128 ctx={a},{b},0 q=2,3,2",
     "a context-free request after the context requests (prefill_tokens_with_context)"),
    ("zero-len-chunk", "version=v2-interleave platform=rocm dcp=1 block=16 workspace=128 ctx={long},{short} q=2,2",
     "a request whose context ends in chunk 0 gets zero-length spans later (SGLang #22291/#22688)"),
    ("len1-chunk", "version=v6-current platform=rocm dcp=1 block=16 workspace=128 ctx=129,1 q=2,2",
     "a last chunk of length 1 and a context of length 1"),
    ("exact-fill", "version=v6-current platform=cuda dcp=1 block=16 workspace=128 ctx=128,{b} q=2,2",
     "one chunk exactly filling the workspace"),
    ("continuation", "version=v6-current platform=rocm dcp=1 block=16 workspace=128 ctx={long},{b} q=3,2",
     "a request continued over several chunks: earlier partials must survive (#51772)"),
    ("zero-row-ranks", "version=v6-current platform=cuda dcp=8 interleave=1 block=16 workspace=256 ctx={tiny},{b} q=2,2",
     "ranks that own zero rows of a request (ATOM #2057, TRT-LLM #15383)"),
    ("long-few-rows", "version=v6-current platform=rocm dcp=8 interleave=16 block=16 workspace=256 ctx={verylong},5 q=1,2",
     "a long context with few rows per rank in the last chunk"),
    ("strides-192", "version=v6-current platform=rocm dcp=1 block=16 workspace=64 dims=deepseek-v3 heads=2 ctx={a},0,{b} q=2,2,2",
     "qk 192 vs v 128 head strides with several chunks (merge reads the suffix with the prefix's strides)"),
    ("mid-block", "version=v2-interleave platform=rocm dcp=1 block=16 workspace=100 ctx={a},{b} q=2,2",
     "chunk starts inside a block (the fp8_ds_mla gather bug's shape, bf16 here)"),
    ("legacy-ef17", "version=v0-early platform=cuda dcp=1 block=16 workspace=128 ctx={long},{short} q=2,2",
     "the early Triton merge without inf handling, zero-length spans"),
]

# persona: runner options; applies to which sets ("all" or a predicate on the set name)
PERSONAS = {
    "as-is": {},
    "fa2-inf": {"empty_lse": "+inf"},
    "finite-empty": {"empty_lse": "0"},
    "nan-empty": {"empty_lse": "nan"},
    "padded-view": {"v_layout": "padded-view"},
    # the export's batch through each vLLM Triton merge of the history (emulated by the torch
    # sets, the real file by vllm-triton): the same inputs, the kernel that ran changes
    "k-ef17b1cc": {"merge_kernel": "triton@ef17b1cc"},
    "k-cfc4079e": {"merge_kernel": "triton@cfc4079e"},
    "k-01ac819c": {"merge_kernel": "triton@01ac819c"},
    "k-01ac819c-padded": {"merge_kernel": "triton@01ac819c", "v_layout": "padded-view"},
}


def draws(rng):
    return {"a": rng.randint(130, 300), "b": rng.randint(1, 120), "long": rng.randint(300, 600),
            "short": rng.randint(1, 60), "tiny": rng.randint(1, 7), "verylong": rng.randint(2000, 4000),
            }


def add_parser(sub):
    k = sub.add_parser("kernel-fuzz", help="boundary exports through every kernel set, judged by the kernel contracts")
    k.add_argument("--chunkproof", required=True, help="the chunkproof binary (export, compare)")
    k.add_argument("--out", required=True)
    k.add_argument("--sets", default=None, help="comma list (default: every set that runs here)")
    k.add_argument("--device", default="cpu")
    k.add_argument("--budget", type=float, default=60.0, help="seconds; stops after the instance that passes it")
    k.add_argument("--rounds", type=int, default=1, help="rounds of every shape (seed = round)")
    k.add_argument("--shapes", default=None, help="comma list of shape names (default: all)")
    k.add_argument("--personas", default=",".join(PERSONAS), help="comma list of personas")
    k.add_argument("--resume", action="store_true", help="go on from DIR/state.json")
    k.add_argument("--vllm-src", default=None, help="vllm-triton's kernel files (runner --vllm-src)")
    k.add_argument("--phase", choices=("all", "export", "run", "compare"), default="all",
                   help="export: write the exports only; run: run the sets on DIR's exports (a GPU machine "
                        "without the chunkproof binary); compare: judge DIR's results; all: the three in turn")


class Fuzz:
    def __init__(self, a):
        self.a, self.t0 = a, time.perf_counter()
        self.state_path = os.path.join(a.out, "state.json")
        self.state = {"done": {}, "seconds": 0.0}
        if (a.resume or a.phase in ("run", "compare")) and os.path.exists(self.state_path):
            with open(self.state_path) as f:
                self.state = json.load(f)

    def save(self):
        self.state["seconds"] = self.state.get("seconds_before", 0.0) + time.perf_counter() - self.t0
        with open(self.state_path + ".tmp", "w") as f:
            json.dump(self.state, f, indent=1)
        os.replace(self.state_path + ".tmp", self.state_path)

    def export(self, sid, case):
        d = os.path.join(self.a.out, "exports", sid)
        r = subprocess.run([self.a.chunkproof, "export", "--case", case, "--out", d, "--device", "cpu"],
                           capture_output=True, text=True)
        if r.returncode not in (0, 1):
            return None, f"export exit {r.returncode}: {r.stderr.strip()[:300]}"
        with open(os.path.join(d, "manifest.json")) as f:
            if not json.load(f).get("files"):
                return None, "the version's assert fired: nothing to run"
        return d, None

    def run_sets(self, sid, exp, sets):
        from . import files
        from .__main__ import run_one

        ex = files.Export(exp)
        out, ran = [], {}
        for s in sets:
            for pname in self.a.personas.split(","):
                opts = PERSONAS[pname]
                for mode in (("chunked", "unchunked") if pname == "as-is" else ("chunked",)):
                    d = os.path.join(self.a.out, "results", sid, f"{s}-{pname}-{mode}")
                    ns = RunArgs(self.a.device, opts)
                    try:
                        with contextlib.redirect_stdout(io.StringIO()):
                            run_one(ex, s, mode, ns, d)
                        out.append(d)
                        ran[os.path.relpath(d, self.a.out)] = {"set": s, "persona": pname, "mode": mode}
                    except CannotRun as e:
                        ran[os.path.relpath(d, self.a.out)] = {"set": s, "persona": pname, "mode": mode,
                                                               "cannot_run": str(e)}
                        continue
                    except Exception as e:  # noqa: BLE001 - a kernel raising on a boundary input is a finding
                        ran[os.path.relpath(d, self.a.out)] = {"set": s, "persona": pname, "mode": mode,
                                                               "raised": f"{e.__class__.__name__}: {e}"}
        return out, ran

    def compare(self, sid, exp, results):
        d = os.path.join(self.a.out, "reports", sid)
        r = subprocess.run([self.a.chunkproof, "compare", "--json", exp, *results, "--out", d],
                           capture_output=True, text=True)
        if r.returncode not in (0, 1):
            return None, f"compare exit {r.returncode}: {r.stderr.strip()[:300]}"
        return json.loads(r.stdout), None


class RunArgs:  # what run_one reads from argparse's namespace
    def __init__(self, device, opts):
        self.device, self.merge, self.repeat = device, None, 1
        self.empty_lse = opts.get("empty_lse")
        self.v_layout = opts.get("v_layout", "dense")
        self.merge_kernel = opts.get("merge_kernel")


def available_sets(a):
    from . import sets

    if a.sets:
        return a.sets.split(",")
    return [n for n, ok, _ in sets.availability(a.device) if ok and n not in ("torch-math-bf16",)]


def do_export(fz, sid, case):
    exp, err = fz.export(sid, case)
    return {"case": case, "skipped": err} if exp is None else {"case": case, "export": os.path.relpath(exp, fz.a.out)}


def do_run(fz, sid, inst, sets):
    if "export" not in inst or "ran" in inst:
        return inst
    _, inst["ran"] = fz.run_sets(sid, os.path.join(fz.a.out, inst["export"]), sets)
    if not any("cannot_run" not in v and "raised" not in v for v in inst["ran"].values()):
        inst["skipped"] = "no kernel set ran"
    return inst


def batch_of(case):
    """The batch of a case line: everything but the version and platform (plan A vs plan B)."""
    return " ".join(sorted(t for t in case.split() if not t.startswith(("version=", "platform="))))


def partners(fz, sid, inst):
    """The as-is chunked results of other instances of the same batch: compare pairs them with
    this instance's (plan A vs plan B of one kernel set), their verdicts stay with their own."""
    out = []
    for other_sid, other in fz.state["done"].items():
        if other_sid != sid and "ran" in other and batch_of(other["case"]) == batch_of(inst["case"]):
            out += [os.path.join(fz.a.out, d) for d, v in other["ran"].items()
                    if v.get("persona") == "as-is" and v.get("mode") == "chunked" and "cannot_run" not in v
                    and "raised" not in v]
    return out


def do_compare(fz, sid, inst):
    if "ran" not in inst or "verdicts" in inst or inst.get("skipped"):
        return inst
    ran = {os.path.join(fz.a.out, d): v for d, v in inst["ran"].items()}
    results = [d for d, v in ran.items() if "cannot_run" not in v and "raised" not in v] + partners(fz, sid, inst)
    rep, err = fz.compare(sid, os.path.join(fz.a.out, inst["export"]), results)
    if rep is None:
        inst["error"] = err
        return inst
    plan_corrupts = any(p["corrupts"] for p in rep["report"]["plans"])
    verdicts = []
    for res in rep["report"]["results"]:
        who = ran.get(os.path.abspath(res["result"]), ran.get(res["result"]))
        if who is None:  # a partner instance's result: judged with its own instance
            continue
        for c in res.get("contracts", []):
            verdicts.append({"contract": c["id"], "name": c["name"], "verdict": c["verdict"], "detail": c.get("detail", ""),
                             "set": who.get("set", res["kernel_set"]), "persona": who.get("persona", "?"),
                             "mode": res["mode"], "merge_kernel": res.get("merge_kernel", ""),
                             "plan_corrupts": plan_corrupts})
    inst["verdicts"] = verdicts
    inst["report"] = os.path.join("reports", sid)
    inst["raised"] = [dict(v, result=d) for d, v in inst["ran"].items() if "raised" in v]
    inst["plan_finding"] = plan_corrupts
    inst["plan_pairs"] = [{"a": rep["report"]["results"][p["a"]]["label"], "b": rep["report"]["results"][p["b"]]["label"],
                           "max_rel": p["out"]["max_rel"], "bit_equal": p["out"]["bit_equal"],
                           "elements": p["out"]["elements"]}
                          for p in rep["report"]["pairs"] if p["kind"] == "plan A vs plan B"]
    return inst


def main(a):
    a.out = os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    if a.vllm_src:
        os.environ["CHUNKPROOF_VLLM_SRC"] = os.path.abspath(a.vllm_src)
    try:
        sets = available_sets(a) if a.phase in ("all", "run") else (a.sets or "").split(",")
    except Exception as e:  # noqa: BLE001
        print(f"kernel-fuzz: {e}", file=sys.stderr)
        return EXIT_USAGE
    if not sets and a.phase in ("all", "run"):
        print("kernel-fuzz: no kernel set runs here", file=sys.stderr)
        return EXIT_CANNOT_RUN
    for p in a.personas.split(","):
        if p not in PERSONAS:
            print(f"kernel-fuzz: unknown persona '{p}' (known: {', '.join(PERSONAS)})", file=sys.stderr)
            return EXIT_USAGE
    names = a.shapes.split(",") if a.shapes else [s[0] for s in SHAPES]
    unknown = [n for n in names if n not in {s[0] for s in SHAPES}]
    if unknown:
        print(f"kernel-fuzz: unknown shape(s) {', '.join(unknown)}", file=sys.stderr)
        return EXIT_USAGE
    fz = Fuzz(a)
    fz.state["seconds_before"] = fz.state.get("seconds", 0.0)
    stopped = False
    for rnd in range(a.rounds):
        d = draws(random.Random(rnd))  # one draw per round: shapes of one batch pair as plan A vs B
        for name, tmpl, _ in SHAPES:
            if name not in names:
                continue
            sid = f"r{rnd}-{name}"
            inst = fz.state["done"].get(sid)
            if inst is not None and ("verdicts" in inst or inst.get("skipped") or a.phase == "export"):
                continue
            if time.perf_counter() - fz.t0 > a.budget:
                stopped = True
                break
            case = tmpl.format(**d) + ("" if "heads=" in tmpl else " heads=2") + f" seed={rnd + 1}"
            if inst is None:
                if a.phase not in ("all", "export"):
                    continue
                inst = do_export(fz, sid, case)
            if a.phase in ("all", "run"):
                inst = do_run(fz, sid, inst, sets)
            if a.phase in ("all", "compare"):
                inst = do_compare(fz, sid, inst)
            fz.state["done"][sid] = inst
            fz.save()
        if stopped:
            break
    if a.phase in ("export", "run"):
        print(f"kernel-fuzz: phase {a.phase} done: {len(fz.state['done'])} instances in {a.out}/state.json")
        return EXIT_OK
    from .kernel_fuzz_report import write_report

    return write_report(a.out, fz.state, sets, stopped)

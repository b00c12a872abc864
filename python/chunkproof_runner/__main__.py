"""python3 -m chunkproof_runner {run,sets} ... (PYTHONPATH=<repo>/python)."""

import argparse
import json
import os
import platform
import subprocess
import sys

from . import EXIT_CANNOT_RUN, EXIT_FINDING, EXIT_OK, EXIT_USAGE, RESULT_SCHEMA, RESULT_SCHEMA_VERSION, CannotRun


def environment(device):
    import torch

    from . import files

    env = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "tensor_io": files.backend(),
        "device": str(device),
    }
    if torch.device(device).type == "cuda" and torch.cuda.is_available():
        p = torch.cuda.get_device_properties(torch.device(device))
        env["gpu"] = p.name
        env["cuda"] = torch.version.cuda
        env["hip"] = getattr(torch.version, "hip", None)
        env["cudnn"] = torch.backends.cudnn.version()
        try:
            env["driver"] = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True, text=True, timeout=20,
            ).stdout.split("\n")[0].strip()
        except Exception:  # noqa: BLE001
            env["driver"] = None
    else:
        env["cpu"] = platform.processor() or platform.machine()
    for pkg in ("triton", "vllm", "aiter", "safetensors"):
        mod = sys.modules.get(pkg)
        if mod is not None:
            env[pkg] = getattr(mod, "__version__", "?")
    return env


def run_one(ex, set_name, mode, a, out):
    from . import files, sets
    from .pipeline import Options, Runner

    ks = sets.make(set_name, a.device, a.merge)
    runner = Runner(ex, ks, Options(a.empty_lse, a.v_layout, a.merge_kernel))
    tensors, seconds = runner.run(mode)
    for _ in range(a.repeat - 1):  # timing: keep the fastest (the first run warms up)
        seconds = min(seconds, runner.run(mode)[1])
    os.makedirs(out, exist_ok=True)
    files.save_tensors(tensors, os.path.join(out, "result.safetensors"), {"kernel_set": set_name, "mode": mode})
    info = {
        "schema": RESULT_SCHEMA,
        "schema_version": RESULT_SCHEMA_VERSION,
        "export": ex.path,
        "case": ex.m["case"],
        "version": ex.m["version"],
        "dcp": ex.geometry["dcp"],
        "kernel_set": set_name,
        "mode": mode,
        "gather": ks.gather_name,
        "attention": ks.attention_name,
        "merge": ks.merge_name,
        "merge_flavour": ex.geometry["merge_flavour"],
        "merge_kernel": {"id": runner.merge_kernel.get("id"), "source": runner.merge_kernel.get("source"),
                         "how": getattr(ks, "merge_how", "emulated" if ks.follows_merge_kernel else ks.merge_name)},
        "lse_convention": {"attention_base": ks.lse_base, "merge_base": ks.merge_lse_base,
                           "attention_layout": ks.lse_layout, "merge_layout": ks.merge_lse_layout},
        "boundary": dict(runner.boundary, merge_stride_pairs=[list(p) for p in runner.stride_pairs()]),
        "seconds": seconds,
        "repeat": a.repeat,
        "environment": environment(a.device),
        "command": " ".join(sys.argv),
    }
    with open(os.path.join(out, "result.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(f"{set_name} {mode}: {ks.attention_name} + {ks.merge_name} ({ex.geometry['merge_flavour']} flavour), "
          f"{seconds:.4f} s -> {out}", flush=True)


def cmd_run(a):
    from . import files
    from .pipeline import KernelOutputError

    try:
        ex = files.Export(a.export)
    except (OSError, ValueError) as e:
        print(f"chunkproof_runner: {e}", file=sys.stderr)
        return EXIT_USAGE
    if a.vllm_src:
        os.environ["CHUNKPROOF_VLLM_SRC"] = os.path.abspath(a.vllm_src)
    names, modes = a.set.split(","), a.mode.split(",")
    for m in modes:
        if m not in ("chunked", "unchunked"):
            print(f"chunkproof_runner: unknown mode '{m}' (chunked | unchunked)", file=sys.stderr)
            return EXIT_USAGE
    single = len(names) == 1 and len(modes) == 1
    cannot, failed = [], []
    for n in names:
        for m in modes:
            out = a.out if single else os.path.join(a.out, f"{n}-{m}")
            try:
                run_one(ex, n, m, a, out)
            except CannotRun as e:
                print(f"chunkproof_runner: cannot run '{n}' here: {e}", file=sys.stderr)
                cannot.append(n)
                break
            except KeyError as e:
                print(f"chunkproof_runner: {e.args[0]}", file=sys.stderr)
                return EXIT_USAGE
            except KernelOutputError as e:  # a finding naming the tensor
                print(f"chunkproof_runner: finding: {e}", file=sys.stderr)
                failed.append(f"{n} {m}")
            except Exception as e:  # noqa: BLE001 - a kernel that raises on a valid input: report, go on
                print(f"chunkproof_runner: {n} {m} failed: {e.__class__.__name__}: {e}", file=sys.stderr)
                failed.append(f"{n} {m}")
    if failed:
        return EXIT_FINDING
    return EXIT_CANNOT_RUN if cannot else EXIT_OK


def cmd_sets(a):
    from . import sets

    for name, ok, what in sets.availability(a.device):
        print(f"{name:16s} {'yes' if ok else 'no ':3s} {what}")
    return EXIT_OK


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m chunkproof_runner",
                                description="Run production attention kernel sets on chunkproof exports.")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run one kernel set on an export, write result.safetensors + result.json")
    r.add_argument("export")
    r.add_argument("--set", required=True,
                   help="torch-math | torch-math-bf16 | torch-math-base2 | torch-flash | torch-efficient | torch-cudnn | vllm | "
                        "vllm-triton | aiter; "
                        "a comma list writes OUT/<set>-<mode>/ for each")
    r.add_argument("--out", required=True)
    r.add_argument("--mode", default="chunked", help="chunked | unchunked, or both as a comma list")
    r.add_argument("--device", default="cpu", help="cpu | cuda | cuda:N")
    r.add_argument("--merge", choices=("torch", "triton"), default=None, help="override the set's merge")
    r.add_argument("--repeat", type=int, default=1, help="runs; the time reported is the fastest")
    r.add_argument("--empty-lse", choices=("+inf", "-inf", "0", "nan"), default=None,
                   help="LSE of zero-length key ranges instead of the kernel's (+inf: FA2; 0: a finite LSE, #49294)")
    r.add_argument("--v-layout", choices=("dense", "padded-view"), default="dense",
                   help="padded-view: v padded to the qk size, the merges get the output sliced back as a view")
    r.add_argument("--vllm-src", default=None,
                   help="vllm-triton: a directory holding vLLM's Triton kernel files by commit (docs/kernels.md)")
    r.add_argument("--merge-kernel", default=None,
                   help="merge kernel id instead of the export's geometry.merge_kernel (sets that follow it)")
    s = sub.add_parser("sets", help="list the kernel sets and whether they run here")
    s.add_argument("--device", default="cpu")
    from . import kernel_fuzz

    kernel_fuzz.add_parser(sub)
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else EXIT_OK
    try:
        import torch  # noqa: F401
    except Exception as e:  # noqa: BLE001
        print(f"chunkproof_runner: cannot run here: PyTorch does not import ({e})", file=sys.stderr)
        return EXIT_CANNOT_RUN
    if a.cmd == "kernel-fuzz":
        from . import kernel_fuzz

        return kernel_fuzz.main(a)
    return cmd_run(a) if a.cmd == "run" else cmd_sets(a)


if __name__ == "__main__":
    sys.exit(main())

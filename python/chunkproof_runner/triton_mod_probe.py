"""Triton's signed-integer `%` on the GPU against Python's floor `%`: the arithmetic behind
TokenSpeed's T-B1 (docs/findings/tokenspeed.md; other-engines.md §0, §3.3).

TokenSpeed's index kernel (create_chunked_cache_kv_indices_paged, chunk.py with
build_dcp_compact_reconstruction_plan) computes

    first_owned = chunk_start_pos + (DCP_RANK - chunk_start_pos % DCP_SIZE) % DCP_SIZE

on an int32 loaded from memory, with DCP_SIZE and DCP_RANK as tl.constexpr; its host plan computes
the same position in Python as start + (rank - start) % dcp_size (floor). The probe compiles that
expression exactly so (one launch per (W, rank): the constants are constexpr as in the engine),
runs it on a grid of chunk starts including T-B1's s = 10922, W = 4, and compares every value with

  - the host's floor formula (Python), and
  - chunkproof's model of the kernel (reference/planner/families/tokenspeed/steps.h:
    ts_first_owned_kernel with KernelModulo::truncating, i.e. a truncating remainder).

It also records `(-2) % 4` and `(-2) // 4` on int32 tensors. Exit 0: Triton agrees with the
model everywhere (the rows where it differs from the host are T-B1); 1: the model is wrong
somewhere (a finding against chunkproof); 4: cannot run here (no Triton, or no GPU); 2: usage.

    PYTHONPATH=python python3 -m chunkproof_runner.triton_mod_probe [--out FILE.json]
"""

import argparse
import json
import math
import sys

EXIT_OK, EXIT_FINDING, EXIT_USAGE, EXIT_CANNOT_RUN = 0, 1, 2, 4

STARTS = [0, 1, 2, 3, 5, 7, 63, 10922, 21844, 65535, 2**30 + 1]
WORLDS = [2, 3, 4, 8]


def host_first_owned(s, w, r):
    return s + (r - s) % w  # Python: floor


def trunc_mod(a, b):
    return int(math.fmod(a, b))  # the sign of the dividend, as C's % and LLVM's srem


def model_first_owned(s, w, r):
    # ts_first_owned_kernel(r, s, W, truncating): s + truncmod(r - floormod(s, W), W); s >= 0, so
    # the inner s % W is the same under either semantics.
    return s + trunc_mod(r - s % w, w)


def probe(out_path):
    try:
        import torch
        import triton
        import triton.language as tl
    except Exception as e:  # noqa: BLE001
        print(f"SKIP: Triton or PyTorch does not import ({e})")
        return EXIT_CANNOT_RUN
    if not torch.cuda.is_available():
        print("SKIP: no GPU (torch.cuda.is_available() is False): Triton's % is a GPU question")
        return EXIT_CANNOT_RUN

    @triton.jit
    def first_owned_kernel(start_ptr, out_ptr, n, DCP_SIZE: tl.constexpr, DCP_RANK: tl.constexpr,
                           BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        chunk_start_pos = tl.load(start_ptr + offs, mask=mask, other=0).to(tl.int32)
        first_owned = chunk_start_pos + (DCP_RANK - chunk_start_pos % DCP_SIZE) % DCP_SIZE
        tl.store(out_ptr + offs, first_owned, mask=mask)

    @triton.jit
    def mod_div_kernel(x_ptr, mod_ptr, div_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0)
        tl.store(mod_ptr + offs, x % D, mask=mask)
        tl.store(div_ptr + offs, x // D, mask=mask)

    dev = torch.device("cuda")
    starts = torch.tensor(STARTS, dtype=torch.int32, device=dev)
    out = torch.empty_like(starts)
    rows, wrong_model, differs_from_host = [], 0, 0
    for w in WORLDS:
        for r in range(w):
            first_owned_kernel[(1,)](starts, out, len(STARTS), DCP_SIZE=w, DCP_RANK=r, BLOCK=16)
            for s, t in zip(STARTS, out.cpu().tolist()):
                row = {"s": s, "W": w, "rank": r, "triton": t, "host_floor": host_first_owned(s, w, r),
                       "model_truncating": model_first_owned(s, w, r)}
                wrong_model += row["triton"] != row["model_truncating"]
                differs_from_host += row["triton"] != row["host_floor"]
                rows.append(row)
    x = torch.tensor([-2, -1, 2, -5], dtype=torch.int32, device=dev)
    m, d = torch.empty_like(x), torch.empty_like(x)
    mod_div_kernel[(1,)](x, m, d, 4, D=4, BLOCK=4)
    raw = [{"x": a, "D": 4, "triton_mod": b, "triton_div": c, "python_mod": a % 4, "python_div": a // 4}
           for a, b, c in zip(x.cpu().tolist(), m.cpu().tolist(), d.cpu().tolist())]
    tb1 = [r for r in rows if r["s"] == 10922 and r["W"] == 4]
    report = {
        "schema": "chunkproof.triton-mod-probe/1",
        "triton": triton.__version__, "torch": torch.__version__, "gpu": torch.cuda.get_device_name(dev),
        "raw": raw, "t_b1": tb1, "rows": len(rows),
        "model_disagrees": wrong_model, "kernel_differs_from_host": differs_from_host,
    }
    text = json.dumps(report, indent=1)
    if out_path:
        with open(out_path, "w") as f:
            f.write(text + "\n")
    print(text)
    for r in tb1:
        print(f"T-B1 s=10922 W=4 rank {r['rank']}: Triton {r['triton']}, host {r['host_floor']}, "
              f"model {r['model_truncating']}")
    print(f"{len(rows)} (s, W, rank) rows: the model disagrees with Triton on {wrong_model}; "
          f"Triton's first_owned differs from the host's on {differs_from_host} (T-B1's rows)")
    return EXIT_FINDING if wrong_model else EXIT_OK


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m chunkproof_runner.triton_mod_probe", description=__doc__.split("\n")[0])
    p.add_argument("--out", help="also write the JSON report here")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else EXIT_OK
    return probe(a.out)


if __name__ == "__main__":
    sys.exit(main())

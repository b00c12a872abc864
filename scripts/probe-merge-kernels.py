#!/usr/bin/env python3
"""Probe vLLM's real Triton merge_attn_states files at the boundaries and put what they do next
to what reference/planner/merge_kernels.h says of them (the records an export's manifest
carries under merge_kernels). Code wins: a disagreement is a correction to the table.

    PYTHONPATH=python python3 scripts/probe-merge-kernels.py VLLM_SRC EXPORT_DIR > probe.json

VLLM_SRC as runner --vllm-src (one folder per commit); EXPORT_DIR any export (for the records).
Needs a GPU and Triton. Per kernel: both empty (-inf, -inf) -> NaN or not; prefix +inf with a
finite suffix -> the suffix or NaN (the +inf rule); prefix -inf with NaN garbage in its output
-> finite or NaN (the zero-weight guard); prefix contiguous [T,N,128] and suffix a [T,N,192]
view sliced to 128 -> right or wrong (the stride rule)."""

import inspect
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from chunkproof_runner.sets.vllm_triton import _PATHS, load_merge  # noqa: E402

T, N, D = 4, 2, 128
inf = float("inf")


def call(fn, po, pl, so, sl):
    out = torch.empty(T, N, D, dtype=po.dtype, device=po.device)
    olse = torch.empty(N, T, dtype=torch.float32, device=po.device)
    fn(out, po, pl, so, sl, olse)
    torch.cuda.synchronize()
    return out, olse


def probe(fn):
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(0)
    so = torch.randn(T, N, D, device=dev, generator=g).to(torch.bfloat16)
    sl = torch.randn(N, T, device=dev, generator=g)
    z = torch.zeros(T, N, D, device=dev, dtype=torch.bfloat16)
    ninf = torch.full((N, T), -inf, device=dev)
    r = {}
    o, l = call(fn, z, ninf, z.clone(), ninf.clone())
    r["both_empty"] = "nan" if torch.isnan(o).any() or torch.isnan(l).any() else "finite (out %g, lse %s)" % (
        float(o.float().abs().max()), "-inf" if torch.isneginf(l).all() else "other")
    o, l = call(fn, z, torch.full((N, T), inf, device=dev), so, sl)
    r["prefix_pos_inf"] = ("suffix" if torch.allclose(o.float(), so.float(), atol=1e-2) else
                           "nan" if torch.isnan(o).any() else "wrong")
    garbage = torch.full((T, N, D), float("nan"), device=dev, dtype=torch.bfloat16)
    o, l = call(fn, garbage, ninf, so, sl)
    r["zero_weight_guard"] = not bool(torch.isnan(o).any())
    po = torch.randn(T, N, D, device=dev, generator=g).to(torch.bfloat16)
    pl = torch.randn(N, T, device=dev, generator=g)
    wide = torch.zeros(T, N, 192, device=dev, dtype=torch.bfloat16)
    wide[..., :D] = so
    want, _ = call(fn, po, pl, so, sl)
    got, _ = call(fn, po, pl, wide[..., :D], sl)
    r["suffix_view_192"] = "right" if torch.equal(got, want) else "wrong (max |diff| %g)" % float(
        (got.float() - want.float()).abs().max())
    r["takes_prefill_tokens_with_context"] = "prefill_tokens_with_context" in inspect.signature(fn).parameters
    return r


def agrees(rec, r):
    return {
        "both_empty": (rec["both_empty"] == "nan") == (r["both_empty"] == "nan"),
        "inf": (rec["inf"] == "none") == (r["prefix_pos_inf"] != "suffix"),
        "zero_weight_guard": rec["zero_weight_guard"] == r["zero_weight_guard"],
        "strides": (rec["strides"] in ("prefix_stride", "contiguous")) == r["suffix_view_192"].startswith("wrong"),
        "prefill_tokens_with_context": rec["prefill_tokens_with_context"] == r["takes_prefill_tokens_with_context"],
    }


def main():
    src, exp = sys.argv[1], sys.argv[2]
    os.environ["CHUNKPROOF_VLLM_SRC"] = os.path.abspath(src)
    with open(os.path.join(exp, "manifest.json")) as f:
        recs = {k["id"]: k for k in json.load(f).get("merge_kernels", [])}
    out = []
    for commit in _PATHS:
        kid = f"triton@{commit}"
        try:
            fn, path, how = load_merge(commit)
        except Exception as e:  # noqa: BLE001
            out.append({"kernel": kid, "error": f"{e.__class__.__name__}: {e}"})
            continue
        r = probe(fn)
        row = {"kernel": kid, "file": path, "imports": how, "observed": r}
        if kid in recs:
            row["record"] = {k: recs[kid][k] for k in ("inf", "zero_weight_guard", "both_empty", "strides",
                                                       "prefill_tokens_with_context")}
            row["agrees"] = agrees(recs[kid], r)
        out.append(row)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

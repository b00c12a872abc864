"""Kernel sets: small plug-in modules, each with NAME, SUMMARY and make(device) -> KernelSet
(raising CannotRun with the reason when this machine cannot run it)."""

import importlib

from .. import CannotRun

SETS = {
    "torch-math": "torch_math",
    "torch-math-bf16": "torch_math",
    "torch-math-base2": "torch_math",
    "torch-flash": "torch_sdpa",
    "torch-efficient": "torch_sdpa",
    "torch-cudnn": "torch_sdpa",
    "vllm": "vllm_set",
    "aiter": "aiter_set",
    "vllm-triton": "vllm_triton",
}


def make(name, device, merge=None):
    if name not in SETS:
        raise KeyError(f"unknown kernel set '{name}' (known: {', '.join(SETS)})")
    mod = importlib.import_module(f".{SETS[name]}", __name__)
    ks = mod.make(name, device)
    if merge:
        from . import merges

        merges.override(ks, merge)
    return ks


def availability(device):
    out = []
    for name in SETS:
        try:
            ks = make(name, device)
            out.append((name, True, f"{ks.gather_name} / {ks.attention_name} / {ks.merge_name}"))
        except CannotRun as e:
            out.append((name, False, str(e)))
    return out

"""Export and result directories (docs/export.md): the manifest, the tensors, the result."""

import json
import os

from . import EXPORT_SCHEMA, EXPORT_SCHEMA_VERSION, st

try:  # the field's package, when present (the GPU machines have it)
    import safetensors.torch as _sft
except Exception:  # noqa: BLE001 - any import failure means: use our own reader
    _sft = None


def backend():
    return "safetensors" if _sft is not None else "chunkproof_runner.st"


def load_tensors(path, force_own=False):
    if _sft is not None and not force_own:
        return _sft.load_file(path)
    return st.load_file(path)[0]


def save_tensors(tensors, path, metadata=None, force_own=False):
    tensors = {k: v.detach().to("cpu").contiguous() for k, v in tensors.items()}
    if _sft is not None and not force_own:
        _sft.save_file(tensors, path, metadata=metadata)
    else:
        st.save_file(tensors, path, metadata)


class Export:
    """One `chunkproof export` directory."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        with open(os.path.join(self.path, "manifest.json")) as f:
            self.m = json.load(f)
        if self.m.get("schema") != EXPORT_SCHEMA:
            raise ValueError(f"{path}: not a chunkproof export (schema {self.m.get('schema')!r})")
        if self.m.get("schema_version") != EXPORT_SCHEMA_VERSION:
            raise ValueError(
                f"{path}: export schema_version {self.m.get('schema_version')}, this runner reads {EXPORT_SCHEMA_VERSION}"
            )
        files = self.m.get("files", {})
        if "inputs" not in files:
            raise ValueError(f"{path}: the export holds no inputs (its planner assert fired: nothing to run)")
        self.inputs = load_tensors(os.path.join(self.path, files["inputs"]))
        self.check_inputs()

    def check_inputs(self):
        """Every input tensor against the manifest's shapes: a mismatch names the tensor (exit 2)
        instead of an index error deep in the pipeline."""
        try:
            s, g, m = self.m["shape"], self.m["geometry"], self.m
            N, L, row, qk, Vd = (int(s[k]) for k in ("heads", "kv_lora_rank", "row", "qk_dim", "v_dim"))
            T, W, B = int(m["prefill_tokens"]), int(g["dcp"]), int(g["block"])
            R, P = len(m["requests"]), len(m["prefills"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{self.path}: manifest.json lacks or mangles {e}") from None
        want = {"q": (T, N, qk), "new_kv": (T, row), "w_uk": (L, N, qk - int(s["rope_dim"])), "w_uv": (L, N, Vd),
                "context_lens": (R,), "query_start_loc": (P + 1,)}
        for name, shape in want.items():
            if name not in self.inputs:
                raise ValueError(f"{self.path}: inputs lack tensor '{name}'")
            got = tuple(self.inputs[name].shape)
            if got != shape:
                raise ValueError(f"{self.path}: tensor '{name}' has shape {got}, the manifest says {shape}")
        for name, lead in (("kv_cache", None), ("block_table", R)):
            if name not in self.inputs:
                raise ValueError(f"{self.path}: inputs lack tensor '{name}'")
        kv = tuple(self.inputs["kv_cache"].shape)
        if len(kv) != 4 or kv[0] != W or kv[2] != B or kv[3] != row:
            raise ValueError(f"{self.path}: tensor 'kv_cache' has shape {kv}, the manifest says [{W}, pages, {B}, {row}]")
        bt = tuple(self.inputs["block_table"].shape)
        if len(bt) != 2 or bt[0] != R:
            raise ValueError(f"{self.path}: tensor 'block_table' has shape {bt}, the manifest says [{R}, blocks]")

    @property
    def merge_kernels(self):  # id -> record (reference/planner/merge_kernels.h, via the manifest)
        return {k["id"]: k for k in self.m.get("merge_kernels", [])}

    @property
    def shape(self):
        return self.m["shape"]

    @property
    def geometry(self):
        return self.m["geometry"]

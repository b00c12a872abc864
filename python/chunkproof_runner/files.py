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

    @property
    def shape(self):
        return self.m["shape"]

    @property
    def geometry(self):
        return self.m["geometry"]

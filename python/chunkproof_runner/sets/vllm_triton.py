"""vllm-triton: vLLM's own Triton merge_attn_states, loaded from a source file by path (no vLLM
install: the H200 image has none), with PyTorch's flash attention (FA2, bf16) for the prefill.

Where the files come from: CHUNKPROOF_VLLM_SRC (runner --vllm-src) names a directory with one
folder per vLLM commit holding the file at its repository path, e.g.
  $SRC/cfc4079e/vllm/v1/attention/ops/triton_merge_attn_states.py
  $SRC/01ac819c/vllm/v1/attention/ops/triton_merge_attn_states.py
  $SRC/ef17b1cc/vllm/attention/ops/triton_merge_attn_states.py
(scripts/vllm-kernels.sh copies them out of a vLLM checkout; they are never committed). The
export's geometry.merge_kernel names the kernel the plan's version shipped with
("triton@cfc4079e", reference/planner/merge_kernels.h); --merge-kernel overrides it. A CUDA
kernel id (cuda@...) cannot load from Python source: the set says so and exits 4.

Import shims (the only vLLM modules these files import), put under sys.modules while the file
loads and taken away after (a later `import vllm` does not see them), only when a real vLLM does
not import:
  vllm.triton_utils   tl, triton, HAS_TRITON  = triton.language, triton, True
  vllm.platforms      current_platform.fp8_dtype() = torch.float8_e4m3fn (ROCm: e4m3fnuz)
Call pattern as vLLM's _compute_prefill_context: output = torch.empty_like(prefix_output),
LSEs [heads, tokens], the operands with the strides the pipeline gives them (runner
--v-layout padded-view hands the merges padded-V views: the stride contract K-4)."""

import importlib.util
import os
import sys
import types

import torch

from .. import CannotRun
from ..pipeline import KernelSet

_PATHS = {  # the file's repository path per commit (the kernel moved to vllm/v1 later)
    "ef17b1cc": "vllm/attention/ops/triton_merge_attn_states.py",
    "cfc4079e": "vllm/v1/attention/ops/triton_merge_attn_states.py",
    "01ac819c": "vllm/v1/attention/ops/triton_merge_attn_states.py",
}


def _install_shims():
    try:
        import vllm.triton_utils  # noqa: F401 - a real vLLM: use it
        import vllm.platforms  # noqa: F401

        return "real vllm"
    except Exception:  # noqa: BLE001
        pass
    try:
        import triton
        import triton.language as tl
    except Exception:  # noqa: BLE001 - as vLLM's own triton_utils: placeholders, HAS_TRITON False
        triton = tl = None
    pkg = types.ModuleType("vllm")
    pkg.__path__ = []
    tu = types.ModuleType("vllm.triton_utils")
    tu.tl, tu.triton, tu.HAS_TRITON = tl, triton, triton is not None
    pl = types.ModuleType("vllm.platforms")
    rocm = bool(getattr(torch.version, "hip", None))

    class _Platform:
        @staticmethod
        def fp8_dtype():
            return torch.float8_e4m3fnuz if rocm else torch.float8_e4m3fn

        @staticmethod
        def is_rocm():
            return rocm

    pl.current_platform = _Platform()
    return {"vllm": pkg, "vllm.triton_utils": tu, "vllm.platforms": pl}


def load_merge(commit):
    src = os.environ.get("CHUNKPROOF_VLLM_SRC")
    if not src:
        raise CannotRun("vllm-triton needs the vLLM kernel files: --vllm-src DIR or CHUNKPROOF_VLLM_SRC")
    if commit not in _PATHS:
        raise CannotRun(f"no Triton merge file known for commit {commit} (known: {', '.join(_PATHS)})")
    path = os.path.join(src, commit, _PATHS[commit])
    if not os.path.isfile(path):
        raise CannotRun(f"{path} does not exist (scripts/vllm-kernels.sh copies it from a vLLM checkout)")
    shims = _install_shims()
    how = shims if isinstance(shims, str) else "shims (vllm.triton_utils, vllm.platforms)"
    added = [] if isinstance(shims, str) else [k for k in shims if k not in sys.modules]
    for k in added:  # only for the file's own imports: a later `import vllm` must not see them
        sys.modules[k] = shims[k]
    try:
        spec = importlib.util.spec_from_file_location(f"chunkproof_vllm_merge_{commit}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        for k in added:
            sys.modules.pop(k, None)
    return mod.merge_attn_states, path, how


class VllmTriton(KernelSet):
    name = "vllm-triton"
    gather_name = "torch-index"

    def __init__(self, device):
        super().__init__(device)
        from .torch_sdpa import TorchSdpa

        try:
            self.fa = TorchSdpa("torch-flash", device)
            self.attention_name = self.fa.attention_name + " (FA2)"
        except (AttributeError, RuntimeError) as e:  # this PyTorch has no flash op: make() refuses it
            self.fa, self.attention_name = None, f"none ({e})"
        self.merge_fn = None
        self.stride_pairs = set()

    def bind(self, rec):
        """Load the file of the export's merge kernel (Runner calls it with the record)."""
        kid = rec.get("id", "")
        if not kid.startswith("triton@"):
            raise CannotRun(f"the export's merge kernel is {kid}: not a Triton file (use --merge-kernel triton@<commit>)")
        self.merge_fn, path, how = load_merge(kid.split("@", 1)[1])
        self.merge_name = f"vLLM {kid} ({path}; {how})"
        self.merge_how = f"real file {path}"

    def attention(self, q, k, v, scale, causal):
        if self.fa is None:
            raise CannotRun(f"vllm-triton: no flash attention here ({self.attention_name})")
        return self.fa.attention(q, k, v, scale, causal)

    def merge(self, p_out, p_lse, s_out, s_lse, flavour):
        self.stride_pairs.add((p_out.stride(1), s_out.stride(1)))
        out = torch.empty_like(p_out)  # vLLM: output_tmp = torch.empty_like(output)
        out_lse = torch.empty(p_lse.shape[1], p_lse.shape[0], dtype=torch.float32, device=p_out.device)
        self.merge_fn(out, p_out, p_lse.float().transpose(0, 1).contiguous(), s_out.to(p_out.dtype),
                      s_lse.float().transpose(0, 1).contiguous(), out_lse)
        return out, out_lse.transpose(0, 1).contiguous()


def make(name, device):
    dev = torch.device(device)
    if dev.type != "cuda" or not torch.cuda.is_available():
        raise CannotRun("vllm-triton needs a GPU (Triton)")
    try:
        import triton  # noqa: F401
    except Exception as e:  # noqa: BLE001
        raise CannotRun(f"triton does not import ({e})") from None
    if not os.environ.get("CHUNKPROOF_VLLM_SRC"):
        raise CannotRun("vllm-triton needs the vLLM kernel files: --vllm-src DIR or CHUNKPROOF_VLLM_SRC")
    ks = VllmTriton(device)
    ks.name = name
    return ks

"""vllm: the kernels vLLM itself runs for MLA chunked-context prefill, called through their
documented Python signatures (written against vLLM's source; loads only where vLLM imports):
  gather     vllm._custom_ops.cp_gather_cache(src_cache, dst, block_table, cu_seq_lens,
             batch_size, seq_starts)   (per DCP rank: local starts, padded local lengths)
  attention  vllm.vllm_flash_attn.flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k,
             max_seqlen_q, max_seqlen_k, softmax_scale=, causal=, return_softmax_lse=True)
             -> (out, lse [heads, tokens]);  on ROCm vLLM's own flash_attn_varlen_func
  merge      merge_attn_states(output, prefix_output, prefix_lse, suffix_output, suffix_lse,
             output_lse)  (lse [heads, tokens]; Triton on ROCm, CUDA on NVIDIA)
On an MI300X: python3 -m chunkproof_runner run EXPORT --set vllm --device cuda (ROCm's torch
calls the GPU 'cuda')."""

import importlib

import torch

from .. import CannotRun
from ..pipeline import KernelSet

_MERGE_PATHS = (
    "vllm.v1.attention.ops.merge_attn_states",
    "vllm.attention.ops.merge_attn_states",
)
_FA_PATHS = ("vllm.vllm_flash_attn", "vllm.attention.utils.fa_utils", "flash_attn")


def _first(paths, attr):
    errs = []
    for p in paths:
        try:
            mod = importlib.import_module(p)
            if hasattr(mod, attr):
                return getattr(mod, attr)
            errs.append(f"{p} has no {attr}")
        except Exception as e:  # noqa: BLE001
            errs.append(f"{p}: {e}")
    raise CannotRun(f"no {attr}: " + "; ".join(errs))


class VllmKernels(KernelSet):
    def __init__(self, name, device, ops, fa, merge_fn):
        super().__init__(device)
        self.name = name
        self.ops, self.fa, self.merge_fn = ops, fa, merge_fn
        self.gather_name = "vllm cp_gather_cache"
        self.attention_name = f"{fa.__module__}.flash_attn_varlen_func"
        self.merge_name = f"{merge_fn.__module__}.merge_attn_states"

    def gather_slots(self, runner, rank, request, local_start, n, dst):
        """One cp_gather_cache call for one (rank, entry) into dst[:n]."""
        cache = runner.cache.reshape(runner.W, runner.pages, runner.B, runner.row)[rank]
        cu = torch.tensor([0, n], dtype=torch.int32, device=dst.device)
        starts = torch.tensor([local_start], dtype=torch.int32, device=dst.device)
        bt = runner.bt[request : request + 1].to(torch.int32)
        self.ops.cp_gather_cache(cache, dst, bt, cu, 1, starts)

    def attention(self, q, k, v, scale, causal):
        m, n = q.shape[0], k.shape[0]
        cq = torch.tensor([0, m], dtype=torch.int32, device=q.device)
        ck = torch.tensor([0, n], dtype=torch.int32, device=q.device)
        out, lse = self.fa(q, k, v, cu_seqlens_q=cq, cu_seqlens_k=ck, max_seqlen_q=m, max_seqlen_k=n,
                           softmax_scale=scale, causal=causal, return_softmax_lse=True)
        return out, lse.float().reshape(-1, m)[:, :m].transpose(0, 1).contiguous()

    def merge(self, p_out, p_lse, s_out, s_lse, flavour):
        out = torch.empty_like(p_out)
        out_lse = torch.empty(p_lse.shape[1], p_lse.shape[0], dtype=torch.float32, device=p_out.device)
        self.merge_fn(out, p_out, p_lse.transpose(0, 1).contiguous(), s_out.to(p_out.dtype),
                      s_lse.transpose(0, 1).contiguous(), out_lse)
        return out, out_lse.transpose(0, 1).contiguous()


def load():
    try:
        import vllm  # noqa: F401
    except Exception as e:  # noqa: BLE001
        raise CannotRun(f"vllm does not import here ({e.__class__.__name__}: {e})") from None
    try:
        ops = importlib.import_module("vllm._custom_ops")
    except Exception as e:  # noqa: BLE001
        raise CannotRun(f"vllm._custom_ops does not import ({e})") from None
    return ops, _first(_FA_PATHS, "flash_attn_varlen_func"), _first(_MERGE_PATHS, "merge_attn_states")


def make(name, device):
    ops, fa, merge_fn = load()
    return VllmKernels(name, device, ops, fa, merge_fn)

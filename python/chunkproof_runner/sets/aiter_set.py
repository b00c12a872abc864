"""aiter: AMD's AITER kernels as vLLM's ROCm MLA backend calls them (loads only where aiter
imports, i.e. on ROCm machines):
  attention  aiter.flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
             max_seqlen_k, dropout_p=0.0, softmax_scale=, causal=, return_lse=True) -> (out, lse)
  gather     vLLM's cp_gather_cache when vllm imports, else torch indexing
  merge      vLLM's merge_attn_states when vllm imports (Triton on ROCm), else the Triton merge
On an MI300X: python3 -m chunkproof_runner run EXPORT --set aiter --device cuda."""

import torch

from .. import CannotRun
from ..pipeline import KernelSet


class AiterKernels(KernelSet):
    def __init__(self, name, device, aiter, vk):
        super().__init__(device)
        self.name = name
        self.aiter = aiter
        self.attention_name = "aiter.flash_attn_varlen_func"
        self.vk = vk
        if vk is not None:
            self.gather_slots = vk.gather_slots
            self.merge = vk.merge
            self.gather_name, self.merge_name = vk.gather_name, vk.merge_name
        else:
            from .merges import triton_merge

            self.merge = triton_merge()
            self.merge_name = "triton-merge"

    def attention(self, q, k, v, scale, causal):
        m, n = q.shape[0], k.shape[0]
        cq = torch.tensor([0, m], dtype=torch.int32, device=q.device)
        ck = torch.tensor([0, n], dtype=torch.int32, device=q.device)
        r = self.aiter.flash_attn_varlen_func(q, k, v, cq, ck, m, n, dropout_p=0.0, softmax_scale=scale,
                                              causal=causal, return_lse=True)
        out, lse = r[0], r[1]
        return out, lse.float().reshape(-1, m)[:, :m].transpose(0, 1).contiguous()


def make(name, device):
    try:
        import aiter
    except Exception as e:  # noqa: BLE001
        raise CannotRun(f"aiter does not import here ({e.__class__.__name__}: {e})") from None
    vk = None
    try:
        from . import vllm_set

        vk = vllm_set.make("vllm", device)
    except CannotRun:
        pass
    return AiterKernels(name, device, aiter, vk)

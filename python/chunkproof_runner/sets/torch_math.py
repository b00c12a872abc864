"""torch-math: attention written in plain torch fp32 ops (runs on the CPU with Debian's
PyTorch 1.13, which has no scaled_dot_product_attention), merge in torch ops. The CI set.

torch-math-bf16: the same math with the fused kernels' output dtype: every attention output
rounded to bf16 and kept in bf16 through the merges (the LSE stays fp32), as flash/efficient/
cuDNN + the Triton merge do in vLLM. It puts a production-sized rounding noise on the CPU, so
the chunk-corruption detector (docs/kernels.md) is measured against bf16 noise in CI too."""

import torch

from ..pipeline import KernelSet
from .merges import torch_merge


def math_attention(q, k, v, scale, causal):
    """q [m, N, D], k [n, N, D], v [n, N, Dv] -> (out [m, N, Dv] fp32, lse [m, N] fp32)."""
    s = torch.einsum("mhd,nhd->hmn", q.float(), k.float()) * scale
    if causal:
        m, n = s.shape[1], s.shape[2]
        mask = torch.ones(m, n, dtype=torch.bool, device=s.device).triu(1 + n - m)
        s = s.masked_fill(mask, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)  # [N, m]
    p = torch.exp(s - lse.unsqueeze(-1))
    out = torch.einsum("hmn,nhd->mhd", p, v.float())
    return out, lse.transpose(0, 1).contiguous()


class TorchMath(KernelSet):
    attention_name = "torch-math (fp32 einsum + logsumexp)"
    merge_name = "the export's merge kernel, emulated"
    compute_dtype = torch.float32
    out_dtype = torch.float32  # what attention hands to the merges
    follows_merge_kernel = True  # the export's merge kernel record, emulated (merges.kernel_merge)

    def upproject(self, kv_c, w):  # fp32 product, rounded to bf16 like kv_b_proj's output
        L, N, D = w.shape
        y = torch.matmul(kv_c.float(), w.reshape(L, N * D).float()).to(torch.bfloat16).float()
        return y.reshape(-1, N, D)

    def attention(self, q, k, v, scale, causal):
        out, lse = math_attention(q, k, v, scale, causal)
        return out.to(self.out_dtype), lse

    def merge(self, p_out, p_lse, s_out, s_lse, flavour):
        return torch_merge(p_out, p_lse, s_out, s_lse, flavour)


class TorchMathBase2(TorchMath):
    """The attention returns a base-2 LSE (as trtllm_ragged_attention_deepseek and FlashInfer's
    ragged prefill do, SGLang #40903/#35045, vLLM #52796) and the merge assumes natural log:
    the pairing K-3 flags on the first chunk. A kernel-fuzz persona, not a production set."""

    attention_name = "torch-math-base2 (fp32 einsum, LSE in base 2)"
    lse_base = "2"

    def attention(self, q, k, v, scale, causal):
        out, lse = math_attention(q, k, v, scale, causal)
        return out.to(self.out_dtype), lse * 1.4426950408889634  # log2(e): ln -> log2


class TorchMathBf16(TorchMath):
    attention_name = "torch-math-bf16 (fp32 einsum + logsumexp, bf16 outputs)"
    out_dtype = torch.bfloat16


def make(name, device):
    ks = {"torch-math-bf16": TorchMathBf16, "torch-math-base2": TorchMathBase2}.get(name, TorchMath)(device)
    ks.name = name
    return ks

"""Fake `vllm` and `aiter` packages: the documented signatures, implemented with torch math on
the CPU, so the plug-ins' plumbing (argument order, LSE layouts, DCP gather calls) is tested
where the real packages do not exist. install() puts them in sys.modules; remove() takes
them out again."""

import sys
import types

import torch

from chunkproof_runner.sets.merges import torch_merge
from chunkproof_runner.sets.torch_math import math_attention

CALLS = {"cp_gather_cache": 0, "flash_attn_varlen_func": 0, "merge_attn_states": 0, "aiter": 0}


def cp_gather_cache(src_cache, dst, block_table, cu_seq_lens, batch_size, seq_starts=None):
    CALLS["cp_gather_cache"] += 1
    B = src_cache.shape[1]
    for i in range(batch_size):
        n = int(cu_seq_lens[i + 1] - cu_seq_lens[i])
        s0 = int(seq_starts[i]) if seq_starts is not None else 0
        for k in range(n):
            local = s0 + k
            vb = local // B
            page = int(block_table[i, vb]) if vb < block_table.shape[1] else 0
            dst[int(cu_seq_lens[i]) + k] = src_cache[page, local % B]


def _varlen(q, k, v, cq, ck, scale, causal):
    outs, lses = [], []
    for i in range(len(cq) - 1):
        o, l = math_attention(q[cq[i] : cq[i + 1]], k[ck[i] : ck[i + 1]], v[ck[i] : ck[i + 1]], scale, causal)
        outs.append(o.to(q.dtype))
        lses.append(l.T)  # [H, tokens]
    return torch.cat(outs), torch.cat(lses, dim=1)


def flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, softmax_scale=None,
                           causal=False, return_softmax_lse=False, **kw):
    CALLS["flash_attn_varlen_func"] += 1
    out, lse = _varlen(q, k, v, cu_seqlens_q.tolist(), cu_seqlens_k.tolist(), softmax_scale, causal)
    return (out, lse) if return_softmax_lse else out


def merge_attn_states(output, prefix_output, prefix_lse, suffix_output, suffix_lse, output_lse=None):
    CALLS["merge_attn_states"] += 1  # lse [heads, tokens] as vLLM
    o, l = torch_merge(prefix_output, prefix_lse.T, suffix_output, suffix_lse.T, "triton")
    output.copy_(o)
    if output_lse is not None:
        output_lse.copy_(l.T)


def aiter_flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p=0.0,
                                 softmax_scale=None, causal=False, return_lse=False, **kw):
    CALLS["aiter"] += 1
    out, lse = _varlen(q, k, v, cu_seqlens_q.tolist(), cu_seqlens_k.tolist(), softmax_scale, causal)
    return (out, lse) if return_lse else out


NAMES = ("vllm", "vllm._custom_ops", "vllm.vllm_flash_attn", "vllm.v1", "vllm.v1.attention", "vllm.v1.attention.ops",
         "vllm.v1.attention.ops.merge_attn_states", "aiter")


def install(with_vllm=True, with_aiter=True):
    mods = {n: types.ModuleType(n) for n in NAMES}
    mods["vllm"].__version__ = "0.0-fake"
    mods["vllm._custom_ops"].cp_gather_cache = cp_gather_cache
    mods["vllm.vllm_flash_attn"].flash_attn_varlen_func = flash_attn_varlen_func
    mods["vllm.v1.attention.ops.merge_attn_states"].merge_attn_states = merge_attn_states
    mods["aiter"].flash_attn_varlen_func = aiter_flash_attn_varlen_func
    mods["aiter"].__version__ = "0.0-fake"
    for n, m in mods.items():
        if (n.startswith("vllm") and with_vllm) or (n == "aiter" and with_aiter):
            sys.modules[n] = m
    for k in CALLS:
        CALLS[k] = 0


def remove():
    for n in NAMES:
        sys.modules.pop(n, None)

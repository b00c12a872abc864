"""merge_attn_states as a Triton kernel, both flavours of the spec (section 4): the Triton
semantics (vLLM's triton_merge_attn_states: +inf -> -inf only, zero weight zeroes the term,
both empty -> NaN) and the CUDA semantics (merge_attn_states.cu: any inf -> -inf, both empty
copies the prefix with lse -inf). One program per (token, head); fp32 arithmetic; output in
the prefix's dtype (vLLM: bf16). lse layout [tokens][heads]."""

import torch

from .. import CannotRun

try:
    import triton
    import triton.language as tl
except Exception as e:  # noqa: BLE001
    raise CannotRun(f"triton does not import ({e})") from None


@triton.jit
def _merge_kernel(
    out_ptr, out_lse_ptr, p_ptr, p_lse_ptr, s_ptr, s_lse_ptr, heads, head_size,
    CUDA_FLAVOUR: tl.constexpr, BLOCK: tl.constexpr,
):
    t = tl.program_id(0)
    h = tl.program_id(1)
    li = t * heads + h
    p_lse = tl.load(p_lse_ptr + li).to(tl.float32)
    s_lse = tl.load(s_lse_ptr + li).to(tl.float32)
    if CUDA_FLAVOUR:
        p_lse = tl.where((p_lse == float("inf")) | (p_lse == float("-inf")), float("-inf"), p_lse)
        s_lse = tl.where((s_lse == float("inf")) | (s_lse == float("-inf")), float("-inf"), s_lse)
    else:
        p_lse = tl.where(p_lse == float("inf"), float("-inf"), p_lse)
        s_lse = tl.where(s_lse == float("inf"), float("-inf"), s_lse)
    mx = tl.maximum(p_lse, s_lse)
    offs = tl.arange(0, BLOCK)
    mask = offs < head_size
    base = li * head_size
    po = tl.load(p_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    so = tl.load(s_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    if CUDA_FLAVOUR:
        empty = mx == float("-inf")
        m0 = tl.where(empty, 0.0, mx)
        pe = tl.exp(p_lse - m0)
        se = tl.exp(s_lse - m0)
        tot = pe + se
        o = po * (pe / tot) + so * (se / tot)
        o = tl.where(empty, po, o)
        lse = tl.where(empty, float("-inf"), tl.log(tot) + mx)
    else:
        pe = tl.exp(p_lse - mx)
        se = tl.exp(s_lse - mx)
        tot = pe + se
        lse = tl.log(tot) + mx
        a = tl.where(pe == 0.0, 0.0, po * (pe / tot))
        b = tl.where(se == 0.0, 0.0, so * (se / tot))
        o = a + b
    tl.store(out_ptr + base + offs, o.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out_lse_ptr + li, lse)


def merge(p_out, p_lse, s_out, s_lse, flavour):
    p_out, s_out = p_out.contiguous(), s_out.to(p_out.dtype).contiguous()
    p_lse, s_lse = p_lse.float().contiguous(), s_lse.float().contiguous()
    T, H, D = p_out.shape
    out = torch.empty_like(p_out)
    out_lse = torch.empty(T, H, dtype=torch.float32, device=p_out.device)
    if T > 0:
        _merge_kernel[(T, H)](
            out, out_lse, p_out, p_lse, s_out, s_lse, H, D,
            CUDA_FLAVOUR=(flavour == "cuda"), BLOCK=triton.next_power_of_2(D),
        )
    return out, out_lse

"""merge_attn_states in both flavours of the spec (section 4), as torch ops (any device) and as
a Triton kernel (triton_merge.py). lse layout here: [tokens][heads]."""

import torch

from .. import CannotRun


def torch_merge(p_out, p_lse, s_out, s_lse, flavour):
    """Element-wise the semantics of reference/mla/math/merge_attn_states.h, in torch fp32."""
    pl, sl = p_lse.float(), s_lse.float()
    po, so = p_out.float(), s_out.float()
    inf = float("inf")
    if flavour == "triton":  # maps +inf -> -inf only; both -inf gives NaN (as the Triton kernel)
        pl = torch.where(pl == inf, torch.full_like(pl, -inf), pl)
        sl = torch.where(sl == inf, torch.full_like(sl, -inf), sl)
        mx = torch.fmax(pl, sl)
        pe, se = torch.exp(pl - mx), torch.exp(sl - mx)
        tot = pe + se
        lse = torch.log(tot) + mx
        a = torch.where(pe.unsqueeze(-1) == 0, torch.zeros_like(po), po * (pe / tot).unsqueeze(-1))
        b = torch.where(se.unsqueeze(-1) == 0, torch.zeros_like(so), so * (se / tot).unsqueeze(-1))
        out = a + b
    else:  # cuda: any inf -> -inf; both empty: copy the prefix, lse -inf
        pl = torch.where(torch.isinf(pl), torch.full_like(pl, -inf), pl)
        sl = torch.where(torch.isinf(sl), torch.full_like(sl, -inf), sl)
        mx = torch.fmax(pl, sl)
        empty = torch.isinf(mx)
        m0 = torch.where(empty, torch.zeros_like(mx), mx)
        pe, se = torch.exp(pl - m0), torch.exp(sl - m0)
        tot = pe + se
        out = po * (pe / tot).unsqueeze(-1) + so * (se / tot).unsqueeze(-1)
        out = torch.where(empty.unsqueeze(-1), po, out)
        lse = torch.where(empty, torch.full_like(mx, -inf), torch.log(tot) + mx)
    return out.to(p_out.dtype), lse


def triton_merge():
    from . import triton_merge as tm  # imports triton; raises CannotRun without it

    return tm.merge


def override(ks, which):
    ks.follows_merge_kernel = False  # an explicit --merge wins over the export's merge kernel
    if which == "torch":
        ks.merge = torch_merge
        ks.merge_name = "torch-merge"
    elif which == "triton":
        if ks.device.type != "cuda":
            raise CannotRun("the Triton merge needs a GPU")
        ks.merge = triton_merge()
        ks.merge_name = "triton-merge"
    else:
        raise KeyError(f"unknown merge '{which}' (torch | triton)")


# --- merge kernels by version (reference/planner/merge_kernels.h; the export's
# geometry.merge_kernel record names the kernel the version shipped with and what it does)

FLAVOUR_KERNELS = {  # what the two flavours of spec section 4 are, as kernel records
    "triton": {"id": "flavour:triton", "inf": "pos_to_neg", "zero_weight_guard": True, "both_empty": "nan",
               "strides": "own"},
    "cuda": {"id": "flavour:cuda", "inf": "any_to_neg", "zero_weight_guard": False, "both_empty": "copy_prefix",
             "strides": "own"},
}


def _read_like_prefix(p_out, s_out, rule):
    """The suffix as the kernel reads it. 'prefix_stride': with the prefix's head and token
    strides (vLLM's Triton kernel: suffix_output + t*num_heads*prefix_head_stride +
    h*prefix_head_stride); 'contiguous': as dense [T][N][HEAD_SIZE] whatever its strides (the
    early kernel, for the prefix too). Reads past the suffix's storage give 0 here (on a GPU
    they read whatever lies there)."""
    T, N, D = s_out.shape
    if rule == "contiguous":
        strides = (N * D, D, 1)
    elif rule == "prefix_stride":
        strides = (N * p_out.stride(1), p_out.stride(1), 1)
    else:
        return s_out
    if tuple(strides) == tuple(s_out.stride()):
        return s_out
    flat = s_out.as_strided((s_out.storage().size() - s_out.storage_offset(),), (1,), s_out.storage_offset())
    need = (T - 1) * strides[0] + (N - 1) * strides[1] + D if T > 0 else 0
    if need > flat.numel():
        flat = torch.cat([flat, torch.zeros(need - flat.numel(), dtype=flat.dtype, device=flat.device)])
    return flat.as_strided((T, N, D), strides)


def kernel_merge(rec):
    """A merge function (p_out, p_lse, s_out, s_lse, flavour) -> (out, lse) with the boundary
    behaviour of the kernel record: inf rule, zero-weight guard, both-empty rule, stride rule.
    Records the (prefix, suffix) head strides it was handed in fn.stride_pairs."""
    inf = float("inf")

    def fn(p_out, p_lse, s_out, s_lse, flavour=None):
        fn.stride_pairs.add((p_out.stride(1), s_out.stride(1)))
        so_read = _read_like_prefix(p_out, s_out, rec.get("strides", "own"))
        po_read = _read_like_prefix(p_out, p_out, "contiguous") if rec.get("strides") == "contiguous" else p_out
        pl, sl = p_lse.float(), s_lse.float()
        po, so = po_read.float(), so_read.float()
        rule = rec.get("inf", "none")
        if rule == "pos_to_neg":
            pl = torch.where(pl == inf, torch.full_like(pl, -inf), pl)
            sl = torch.where(sl == inf, torch.full_like(sl, -inf), sl)
        elif rule == "any_to_neg":
            pl = torch.where(torch.isinf(pl), torch.full_like(pl, -inf), pl)
            sl = torch.where(torch.isinf(sl), torch.full_like(sl, -inf), sl)
        mx = torch.maximum(pl, sl)  # NaN propagates, as tl.maximum / fmaxf on NaN inputs may
        copy = rec.get("both_empty") == "copy_prefix"
        empty = torch.isinf(mx) & (mx < 0)
        m0 = torch.where(empty, torch.zeros_like(mx), mx) if copy else mx
        pe, se = torch.exp(pl - m0), torch.exp(sl - m0)
        tot = pe + se
        a, b = po * (pe / tot).unsqueeze(-1), so * (se / tot).unsqueeze(-1)
        if rec.get("zero_weight_guard"):
            a = torch.where(pe.unsqueeze(-1) == 0, torch.zeros_like(a), a)
            b = torch.where(se.unsqueeze(-1) == 0, torch.zeros_like(b), b)
        out, lse = a + b, torch.log(tot) + m0
        if copy:
            out = torch.where(empty.unsqueeze(-1), po, out)
            lse = torch.where(empty, torch.full_like(lse, -inf), lse)
        return out.to(p_out.dtype), lse

    fn.stride_pairs = set()
    fn.kernel_id = rec.get("id", "?")
    return fn

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

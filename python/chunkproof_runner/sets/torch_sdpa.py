"""torch-flash / torch-efficient / torch-cudnn: PyTorch's own fused attention kernels that
return the LSE (torch.ops.aten._scaled_dot_product_{flash,efficient,cudnn}_attention), bf16
q/k/v as vLLM feeds them, one call per (chunk, request) in [1, heads, tokens, dim] layout.
Flash needs equal q/k/v head sizes: v is zero-padded to the qk size and the output cut back.
Merge: the export's merge kernel record (geometry.merge_kernel: the vLLM kernel the plan's version
shipped with), emulated in torch (merges.kernel_merge); runner --merge triton runs the Triton
kernel of the two spec flavours (sets/triton_merge.py) instead."""

import torch

from .. import CannotRun
from ..pipeline import KernelSet

OPS = {
    "torch-flash": "_scaled_dot_product_flash_attention",
    "torch-efficient": "_scaled_dot_product_efficient_attention",
    "torch-cudnn": "_scaled_dot_product_cudnn_attention",
}


def _bhsd(x):  # [s, N, D] -> [1, N, s, D]
    return x.transpose(0, 1).unsqueeze(0).contiguous()


class TorchSdpa(KernelSet):
    follows_merge_kernel = True
    merge_name = "the export's merge kernel, emulated"

    def __init__(self, name, device):
        super().__init__(device)
        self.name = name
        self.attention_name = f"aten.{OPS[name]}"
        self.op = getattr(torch.ops.aten, OPS[name])
        self.pad_v = name == "torch-flash"

    def attention(self, q, k, v, scale, causal):
        try:
            return self._attention(q, k, v, scale, causal)
        except RuntimeError:
            if self.pad_v or v.shape[-1] == q.shape[-1]:
                raise
            self.pad_v = True  # this build rejects unequal head sizes: pad v like flash
            self.attention_name += " (v padded)"
            return self._attention(q, k, v, scale, causal)

    def _attention(self, q, k, v, scale, causal):
        m, N, D = q.shape
        Dv = v.shape[-1]
        if self.pad_v and Dv != D:
            v = torch.nn.functional.pad(v, (0, D - Dv))
        Q, K, V = _bhsd(q), _bhsd(k), _bhsd(v)
        if self.name == "torch-flash":
            r = self.op(Q, K, V, 0.0, causal, False, scale=scale)
        elif self.name == "torch-efficient":
            r = self.op(Q, K, V, None, True, 0.0, causal, scale=scale)
        else:
            r = self.op(Q, K, V, None, True, 0.0, causal, False, scale=scale)
        out, lse = r[0], r[1]
        out = out[0, :, :, :Dv].transpose(0, 1)  # [m, N, Dv]
        lse = lse.reshape(N, -1)[:, :m].float().transpose(0, 1)  # efficient pads tokens to 32
        return out, lse.contiguous()


def make(name, device):
    dev = torch.device(device)
    if dev.type != "cuda" or not torch.cuda.is_available():
        raise CannotRun(f"{name} needs a CUDA GPU (torch {torch.__version__}, cuda available: {torch.cuda.is_available()})")
    if not hasattr(torch.ops.aten, OPS[name]):
        raise CannotRun(f"{name}: this PyTorch ({torch.__version__}) has no aten.{OPS[name]}")
    return TorchSdpa(name, device)

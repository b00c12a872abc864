import math
import unittest

from common import need_torch, TORCH

if TORCH is None:
    import torch

    from chunkproof_runner.sets.merges import torch_merge
    from chunkproof_runner.sets.torch_math import math_attention

INF = float("inf")


@need_torch
class Merge(unittest.TestCase):
    def one(self, pl, sl, flavour):
        po = torch.full((1, 1, 2), 1.0)
        so = torch.full((1, 1, 2), 3.0)
        return torch_merge(po, torch.tensor([[pl]]), so, torch.tensor([[sl]]), flavour)

    def test_weights(self):
        for f in ("triton", "cuda"):
            o, l = self.one(0.0, 0.0, f)
            self.assertAlmostEqual(o[0, 0, 0].item(), 2.0, places=6)
            self.assertAlmostEqual(l.item(), math.log(2.0), places=6)

    def test_empty_rules(self):
        o, l = self.one(-INF, -INF, "triton")  # Triton: -inf - -inf = NaN
        self.assertTrue(math.isnan(l.item()))
        o, l = self.one(-INF, -INF, "cuda")  # CUDA: copies the prefix, lse -inf
        self.assertEqual(o[0, 0, 0].item(), 1.0)
        self.assertEqual(l.item(), -INF)
        o, l = self.one(INF, 0.0, "triton")  # +inf is "empty"
        self.assertEqual(o[0, 0, 0].item(), 3.0)
        o, l = self.one(-INF, 0.0, "cuda")
        self.assertEqual(o[0, 0, 0].item(), 3.0)


@need_torch
class MathAttention(unittest.TestCase):
    def test_against_float64(self):
        g = torch.Generator().manual_seed(3)
        q, k, v = (torch.randn(s, generator=g) for s in ((3, 2, 8), (5, 2, 8), (5, 2, 4)))
        out, lse = math_attention(q, k, v, 0.3, False)
        s = torch.einsum("mhd,nhd->hmn", q.double(), k.double()) * 0.3
        ref_lse = torch.logsumexp(s, -1).T
        ref = torch.einsum("hmn,nhd->mhd", torch.softmax(s, -1), v.double())
        self.assertLess((out.double() - ref).abs().max().item(), 1e-5)
        self.assertLess((lse.double() - ref_lse).abs().max().item(), 1e-5)

    def test_causal(self):
        q = torch.randn(4, 1, 8)
        k = torch.randn(4, 1, 8)
        v = torch.randn(4, 1, 3)
        out, _ = math_attention(q, k, v, 1.0, True)
        self.assertTrue(torch.allclose(out[0], v[0], atol=1e-6))  # token 0 sees key 0 only


if __name__ == "__main__":
    unittest.main()

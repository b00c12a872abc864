"""Issue 28: the merge kernels by version as the runner emulates them (sets/merges.kernel_merge),
the stride rule, LSE conventions, vllm-triton's loading by path (a pure-torch stand-in file: the
real ones need a GPU), and bad kernel outputs named as findings."""

import math
import os
import tempfile
import unittest

from common import need_torch, TORCH

if TORCH is None:
    import torch

    from chunkproof_runner.sets.merges import FLAVOUR_KERNELS, kernel_merge, torch_merge

INF = float("inf")
EF17 = {"id": "triton@ef17b1cc", "inf": "none", "zero_weight_guard": False, "both_empty": "nan", "strides": "contiguous"}
CFC4 = {"id": "triton@cfc4079e", "inf": "pos_to_neg", "zero_weight_guard": True, "both_empty": "nan",
        "strides": "prefix_stride"}
CUDA = {"id": "cuda@28181", "inf": "any_to_neg", "zero_weight_guard": False, "both_empty": "copy_prefix",
        "strides": "checked"}


@need_torch
class KernelMerge(unittest.TestCase):
    def one(self, rec, pl, sl, po=1.0):
        p = torch.full((1, 1, 2), po)
        s = torch.full((1, 1, 2), 3.0)
        return kernel_merge(rec)(p, torch.tensor([[pl]]), s, torch.tensor([[sl]]))

    def test_the_flavour_records_are_the_spec_flavours(self):
        for f in ("triton", "cuda"):
            for pl, sl in ((0.0, 0.0), (-INF, 0.0), (INF, 0.0), (0.5, -INF)):
                o, l = self.one(FLAVOUR_KERNELS[f], pl, sl)
                want_o, want_l = torch_merge(torch.full((1, 1, 2), 1.0), torch.tensor([[pl]]),
                                             torch.full((1, 1, 2), 3.0), torch.tensor([[sl]]), f)
                self.assertTrue(torch.equal(o, want_o), (f, pl, sl))
                self.assertTrue(torch.equal(l, want_l), (f, pl, sl))

    def test_fa2_inf_is_nan_only_for_the_early_kernel(self):
        o, _ = self.one(EF17, INF, 0.0)  # ef17b1cc: inf - inf
        self.assertTrue(math.isnan(o[0, 0, 0].item()))
        o, _ = self.one(CFC4, INF, 0.0)  # cfc4079e: +inf -> -inf, the suffix alone
        self.assertEqual(o[0, 0, 0].item(), 3.0)

    def test_both_empty(self):
        o, l = self.one(CFC4, -INF, -INF)
        self.assertTrue(math.isnan(l.item()))
        o, l = self.one(CUDA, -INF, -INF)  # #28181: copies the prefix, lse -inf
        self.assertEqual((o[0, 0, 0].item(), l.item()), (1.0, -INF))

    def test_zero_weight_guard(self):
        o, _ = self.one(CFC4, -INF, 0.0, po=float("nan"))  # garbage under a zero weight: zeroed
        self.assertEqual(o[0, 0, 0].item(), 3.0)
        o, _ = self.one(CUDA, -INF, 0.0, po=float("nan"))  # no guard: 0 * NaN
        self.assertTrue(math.isnan(o[0, 0, 0].item()))

    def test_prefix_stride_reads_a_padded_suffix_wrong_and_own_strides_right(self):
        T, N, D, W = 3, 2, 4, 6
        g = torch.Generator().manual_seed(1)
        p, wide = torch.randn(T, N, D, generator=g), torch.randn(T, N, W, generator=g)
        s = wide[..., :D]  # a padded view: head stride W
        pl, sl = torch.randn(T, N, generator=g), torch.randn(T, N, generator=g)
        want, _ = torch_merge(p, pl, s.contiguous(), sl, "triton")
        fn = kernel_merge(CFC4)
        got, _ = fn(p, pl, s, sl)
        self.assertFalse(torch.allclose(got, want))
        self.assertEqual(fn.stride_pairs, {(D, W)})
        own, _ = kernel_merge(dict(CFC4, strides="own"))(p, pl, s, sl)
        self.assertTrue(torch.allclose(own, want, atol=1e-6))


@need_torch
class VllmTritonByPath(unittest.TestCase):
    def test_loads_the_file_of_the_records_commit_and_calls_it_like_vllm(self):
        from chunkproof_runner import CannotRun
        from chunkproof_runner.sets import vllm_triton

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cfc4079e", vllm_triton._PATHS["cfc4079e"])
            os.makedirs(os.path.dirname(path))
            with open(path, "w") as f:  # a stand-in with the real signature and its imports
                f.write("from vllm.triton_utils import tl, triton\n"
                        "def merge_attn_states(output, prefix_output, prefix_lse, suffix_output, suffix_lse,"
                        " output_lse=None):\n"
                        "    output.copy_(prefix_output + suffix_output)\n"
                        "    output_lse.copy_(prefix_lse + suffix_lse)\n")
            os.environ["CHUNKPROOF_VLLM_SRC"] = d
            try:
                ks = vllm_triton.VllmTriton("cpu")
                ks.bind({"id": "triton@cfc4079e"})
                self.assertIn(path, ks.merge_name)
                o, l = ks.merge(torch.ones(2, 3, 4), torch.zeros(2, 3), torch.ones(2, 3, 4), torch.ones(2, 3), None)
                self.assertEqual(o.shape, (2, 3, 4))
                self.assertTrue(torch.equal(l, torch.ones(2, 3)))  # [heads, tokens] there and back
                with self.assertRaises(CannotRun):
                    ks.bind({"id": "cuda@28181"})  # a CUDA kernel is no Python file
            finally:
                del os.environ["CHUNKPROOF_VLLM_SRC"]


if __name__ == "__main__":
    unittest.main()

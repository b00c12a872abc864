import os
import tempfile
import unittest

from common import BROKEN, GOOD, TORCH, export, need_torch

if TORCH is None:
    import torch

    import fake_kernels
    from chunkproof_runner import CannotRun, EXIT_CANNOT_RUN, files, sets
    from chunkproof_runner.__main__ import main
    from chunkproof_runner.pipeline import Runner


def run(case, name, mode="chunked"):
    ex = files.Export(export(case))
    return Runner(ex, sets.make(name, "cpu")).run(mode)[0], ex


def rel(a, b):
    return ((a - b).abs().max() / b.abs().max().clamp(min=1e-30)).item()


@need_torch
class Plugins(unittest.TestCase):
    def tearDown(self):
        fake_kernels.remove()

    def test_missing_packages_cannot_run(self):
        fake_kernels.remove()
        for name in ("vllm", "aiter"):
            with self.assertRaises(CannotRun):
                sets.make(name, "cpu")
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(main(["run", export(GOOD), "--set", "vllm", "--out", d]), EXIT_CANNOT_RUN)
            if not torch.cuda.is_available():
                self.assertEqual(main(["run", export(GOOD), "--set", "torch-flash", "--out", d]), EXIT_CANNOT_RUN)

    def test_fake_vllm_matches_torch_math(self):
        math_t, ex = run(GOOD, "torch-math")
        fake_kernels.install(with_aiter=False)
        got, _ = run(GOOD, "vllm")
        self.assertGreater(fake_kernels.CALLS["cp_gather_cache"], 0)  # DCP gather went through the plug-in
        self.assertGreater(fake_kernels.CALLS["flash_attn_varlen_func"], 0)
        self.assertGreater(fake_kernels.CALLS["merge_attn_states"], 0)
        self.assertLess(rel(got["out"], math_t["out"]), 2**-6)
        self.assertLess((got["lse"] - math_t["lse"]).abs().max().item(), 2**-6)

    def test_fake_aiter(self):
        fake_kernels.install(with_vllm=False)
        math_t, _ = run(GOOD, "torch-math")
        got, _ = run(GOOD, "aiter") if torch.cuda.is_available() else (None, None)
        if got is None:  # without vllm the aiter set merges with Triton: needs a GPU
            with self.assertRaises(CannotRun):
                sets.make("aiter", "cpu")
            fake_kernels.install()
            got, _ = run(GOOD, "aiter")
        self.assertGreater(fake_kernels.CALLS["aiter"], 0)
        self.assertLess(rel(got["out"], math_t["out"]), 2**-6)

    def test_torch_math_chunk_invariant_on_a_good_plan(self):
        a, _ = run(GOOD, "torch-math", "chunked")
        b, _ = run(GOOD, "torch-math", "unchunked")
        self.assertLess(rel(a["out"], b["out"]), 1e-5)

    def test_torch_math_bf16_rounds_like_the_fused_kernels(self):
        got, _ = run(GOOD, "torch-math-bf16")
        math_t, _ = run(GOOD, "torch-math")
        for name, t in got.items():
            if name.endswith("out"):  # outputs and every partial are bf16 values; the LSE stays fp32
                self.assertTrue(torch.equal(t, t.bfloat16().float()), name)
        self.assertFalse(torch.equal(got["lse"], got["lse"].bfloat16().float()))
        self.assertGreater(rel(got["out"], math_t["out"]), 2**-12)  # it does round
        self.assertLess(rel(got["out"], math_t["out"]), 2**-6)
        self.assertLess((got["lse"] - math_t["lse"]).abs().max().item(), 1e-5)

    def test_broken_plan_moves_the_output(self):
        a, _ = run(BROKEN, "torch-math", "chunked")
        b, _ = run(BROKEN, "torch-math", "unchunked")
        self.assertGreater(rel(a["out"], b["out"]), 2**-4)

    def test_result_files_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(main(["run", export(GOOD), "--set", "torch-math", "--out", d]), 0)
            own = files.load_tensors(os.path.join(d, "result.safetensors"), force_own=True)
            self.assertIn("out", own)
            self.assertIn("chunk.0.out", own)


if __name__ == "__main__":
    unittest.main()

import struct
import unittest

from common import need_torch, TORCH

if TORCH is None:
    import torch

    from chunkproof_runner import st


@need_torch
class SafetensorsOwnReader(unittest.TestCase):
    def tensors(self):
        return {
            "a": torch.arange(12, dtype=torch.float32).reshape(3, 4) / 7,
            "b": (torch.arange(6, dtype=torch.float32) - 2.5).to(torch.bfloat16).reshape(2, 3),
            "i": torch.tensor([[1, -2], [3, 4]], dtype=torch.int32),
            "e": torch.zeros(0, 5, dtype=torch.float32),
        }

    def test_round_trip(self):
        t = self.tensors()
        out, meta = st.load_bytes(st.dump_bytes(t, {"case": "x"}))
        self.assertEqual(meta, {"case": "x"})
        for k, v in t.items():
            self.assertEqual(out[k].dtype, v.dtype, k)
            self.assertEqual(list(out[k].shape), list(v.shape), k)
            self.assertTrue(torch.equal(out[k], v), k)

    def test_header_is_aligned(self):
        b = st.dump_bytes(self.tensors())
        (n,) = struct.unpack("<Q", b[:8])
        self.assertEqual(n % 8, 0)

    def test_malformed(self):
        good = st.dump_bytes({"a": torch.ones(4)})
        bad = [
            b"\x01\x00",  # short
            struct.pack("<Q", 1 << 40) + b"{}",  # header past the file
            struct.pack("<Q", 2) + b"[]",  # not an object
            good + b"xx",  # trailing bytes
            good[:-1],  # truncated data
        ]
        h = b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}'
        bad.append(struct.pack("<Q", len(h)) + h + bytes(12))  # overlap
        h = b'{"a":{"dtype":"Q7","shape":[1],"data_offsets":[0,4]}}'
        bad.append(struct.pack("<Q", len(h)) + h + bytes(4))  # unknown dtype
        for i, b in enumerate(bad):
            with self.assertRaises(st.FormatError, msg=f"case {i}"):
                st.load_bytes(b)

    def test_against_the_package(self):
        try:
            import safetensors.torch as sft
        except Exception:  # noqa: BLE001
            self.skipTest("the safetensors package does not import here")
        t = {k: v for k, v in self.tensors().items() if v.numel()}
        ours = st.dump_bytes(t)
        theirs = sft.load(ours)
        for k in t:
            self.assertTrue(torch.equal(theirs[k], t[k]))
        back, _ = st.load_bytes(sft.save(t))
        for k in t:
            self.assertTrue(torch.equal(back[k], t[k]))


if __name__ == "__main__":
    unittest.main()

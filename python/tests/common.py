"""Shared helpers: skip cleanly without PyTorch; make small exports with the chunkproof CLI
(CHUNKPROOF_BIN, set by ctest; tests that need it skip when it is unset)."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # python/

try:
    import torch  # noqa: F401

    TORCH = None
except Exception as e:  # noqa: BLE001
    TORCH = f"PyTorch does not import ({e.__class__.__name__}: {e})"

GOOD = "version=v6-current platform=cuda workspace=256 block=16 dcp=4 interleave=2 ctx=300,0,77 q=3,2,4 heads=2"
# The corpus's interleave misrouting (I-9) scaled down: asserts stripped, requests get foreign rows.
BROKEN = "version=v2-interleave platform=cuda workspace=1024 block=64 dcp=8 interleave=64 ctx=3000,100,100 q=4,4,4 asserts=off"


def need_torch(cls):
    return unittest.skipIf(TORCH is not None, TORCH or "")(cls)


_cache = {}


def export(case):
    """An export directory for `case` (made once per process)."""
    b = os.environ.get("CHUNKPROOF_BIN")
    if not b:
        raise unittest.SkipTest("CHUNKPROOF_BIN is not set (ctest sets it): no export to run on")
    if case not in _cache:
        d = tempfile.mkdtemp(prefix="cp-export-")
        r = subprocess.run([b, "export", "--case", case, "--out", d], capture_output=True, text=True)
        if r.returncode not in (0, 1):
            raise RuntimeError(f"chunkproof export failed ({r.returncode}): {r.stderr}")
        _cache[case] = d
    return _cache[case]

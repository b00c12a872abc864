"""ctest entry: the unit tests, or exit 4 ("cannot run here") with a message when PyTorch does
not import. Plain `python3 -m unittest discover -s python/tests -t python/tests` works too."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import TORCH  # noqa: E402

EXIT_CANNOT_RUN = 4
if TORCH is not None:
    print(f"SKIP: {TORCH}; install python3-torch (tools/install-deps.sh) to run the Python runner tests")
    sys.exit(EXIT_CANNOT_RUN)
suite = unittest.defaultTestLoader.discover(os.path.dirname(os.path.abspath(__file__)), pattern="test_*.py")
sys.exit(0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1)

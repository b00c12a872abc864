"""chunkproof_runner: runs production attention kernels on `chunkproof export` directories.

The thin Python bridge of chunkproof (DESIGN section 7): it loads an export (safetensors + JSON
manifest, docs/export.md), runs the chunked-context MLA prefill the way vLLM does with a chosen
kernel set (gather, attention with LSE, merge), and writes the outputs back in the same format
for `chunkproof compare`, which does every comparison. Needs only PyTorch (Triton on GPUs for
the Triton merge); `safetensors` is used when it imports, else the reader in st.py.
"""

# Exit codes (DESIGN section 8). EXIT_CANNOT_RUN is the documented "this machine cannot run it"
# code (no GPU, the kernel set's package does not import); keep in step with the CLI's name.
EXIT_OK = 0
EXIT_FINDING = 1
EXIT_USAGE = 2
EXIT_INCONCLUSIVE = 3
EXIT_CANNOT_RUN = 4

RESULT_SCHEMA = "chunkproof-result"
RESULT_SCHEMA_VERSION = 1
EXPORT_SCHEMA = "chunkproof-export"
EXPORT_SCHEMA_VERSION = 1


class CannotRun(Exception):
    """This machine cannot run the request (missing package, no GPU): exit EXIT_CANNOT_RUN."""

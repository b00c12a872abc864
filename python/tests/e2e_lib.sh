# Sourced by the end-to-end scripts (e2e*.sh): their arguments, the PyTorch check (exit 4,
# "cannot run here", without it), PYTHONPATH, fail and a fresh work folder.
#   usage: . e2e_lib.sh CHUNKPROOF_BIN PYTHON WORKDIR   -> BIN, PY, W, ROOT
BIN=$1; PY=$2; W=$3
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if ! "$PY" -c 'import torch' 2>/dev/null; then
  echo "SKIP: PyTorch does not import for $PY; install python3-torch (tools/install-deps.sh)"; exit 4
fi
export PYTHONPATH=$ROOT/python
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$W"; mkdir -p "$W"

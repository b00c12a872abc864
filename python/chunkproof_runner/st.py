"""A small safetensors reader and writer over torch tensors, used when the `safetensors`
package does not import (Debian has none). Format: 8-byte little-endian header length, JSON
header {name: {dtype, shape, data_offsets}, "__metadata__": {...}}, then the data."""

import json
import struct

import torch

DTYPES = {
    "F64": torch.float64,
    "F32": torch.float32,
    "BF16": torch.bfloat16,
    "F16": torch.float16,
    "I64": torch.int64,
    "I32": torch.int32,
    "U8": torch.uint8,
}
NAMES = {v: k for k, v in DTYPES.items()}
# Same-size integer views for byte conversion (numpy has no bf16).
_INT_VIEW = {torch.bfloat16: torch.int16, torch.float16: torch.int16}
MAX_HEADER = 100 << 20


class FormatError(ValueError):
    pass


def load_bytes(buf, what="<bytes>"):
    """Returns ({name: tensor}, metadata) from the bytes of a safetensors file."""
    if len(buf) < 8:
        raise FormatError(f"{what}: shorter than its 8-byte header length")
    (n,) = struct.unpack("<Q", bytes(buf[:8]))
    if n > MAX_HEADER or n > len(buf) - 8:
        raise FormatError(f"{what}: header length {n} past the file")
    try:
        header = json.loads(bytes(buf[8 : 8 + n]).decode("utf-8"))
    except ValueError as e:
        raise FormatError(f"{what}: header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise FormatError(f"{what}: header is not a JSON object")
    data = memoryview(buf)[8 + n :]
    meta = header.pop("__metadata__", {}) or {}
    out, spans = {}, []
    for name, h in header.items():
        try:
            dtype = DTYPES[h["dtype"]]
            shape = [int(x) for x in h["shape"]]
            b, e = (int(x) for x in h["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise FormatError(f"{what}: tensor '{name}': bad or unsupported header entry {h!r}") from None
        numel = 1
        for x in shape:
            if x < 0:
                raise FormatError(f"{what}: tensor '{name}': negative dimension")
            numel *= x
        size = torch.tensor([], dtype=dtype).element_size()
        if not (0 <= b <= e <= len(data)) or e - b != numel * size:
            raise FormatError(f"{what}: tensor '{name}': data_offsets do not match its shape or the file")
        spans.append((b, e))
        if numel == 0:
            out[name] = torch.zeros(shape, dtype=dtype)
            continue
        t = torch.frombuffer(bytearray(data[b:e]), dtype=dtype)
        out[name] = t.reshape(shape)
    at = 0
    for b, e in sorted(spans):
        if b != at:
            raise FormatError(f"{what}: tensors overlap or leave a hole in the data section")
        at = e
    if at != len(data):
        raise FormatError(f"{what}: bytes after the last tensor")
    return out, meta


def load_file(path):
    with open(path, "rb") as f:
        return load_bytes(f.read(), path)


def _bytes_of(t):
    t = t.detach().to("cpu").contiguous()
    if t.dtype in _INT_VIEW:
        t = t.view(_INT_VIEW[t.dtype])
    return t.numpy().tobytes() if t.numel() else b""


def dump_bytes(tensors, metadata=None):
    header, blobs, off = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        if t.dtype not in NAMES:
            raise FormatError(f"tensor '{name}': dtype {t.dtype} not supported")
        b = _bytes_of(t)
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    hs = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hs += b" " * (-len(hs) % 8)
    return struct.pack("<Q", len(hs)) + hs + b"".join(blobs)


def save_file(tensors, path, metadata=None):
    with open(path, "wb") as f:
        f.write(dump_bytes(tensors, metadata))

"""chunkproof adapter for SGLang's chunked-prefix planner (DeepSeek MHA with chunked prefix
cache): each case is planned by SGLang's OWN `ForwardBatchDeepSeekMHAMixin.
prepare_chunked_prefix_cache_info` and `get_prefix_chunk_seq_lens`, run on a stand-in forward
batch (batch_size, extend_prefix_lens[_cpu]), and the prefix_chunk_* fields it sets are
converted into a chunkproof.plan/4 object. Under DCP (a source with layers/dcp/layout.py) each
span's rank-local rows come from SGLang's own `get_dcp_lens` and its padded send rows from the
formula of `all_gather_kv_cache_for_dcp` (comm.py; it is inlined in a collective, so it is
restated here: padded = (L + s mod W + W - 1) // W from local row (s - s mod W) // W).

    python3 -m chunkproof_adapters.sglang --src PATH

Import shims (loader.py): torch is real; the memory-pool check gets an MLATokenToKVPool
stand-in; `prepare_chunked_kv_indices` (a Triton kernel over req_to_token, no planning field)
is a no-op; the chunk capacity C is the case's workspace= when it has one (what
SGLANG_MAX_KV_CHUNK_CAPACITY sets in newer SGLang; a constant 128*1024 in the commits below),
else SGLang's own value. Exit 4 when the class or method is missing.

Checked against (docs/live.md): SGLang 8b9e9357fe28 (before #22688) and 5595f6e9888b (#22688),
from the Jonahcb/sglang mirror of sgl-project/sglang.
"""

import argparse
import os
import sys
import types

from . import protocol, schema

MIXIN = "python/sglang/srt/model_executor/forward_batch_deepseek_mha_mixin.py"
LAYOUT = "python/sglang/srt/layers/dcp/layout.py"
CHECKED_AGAINST = ["8b9e9357fe2850f17e4ca5a64d9387f2f02619d8", "5595f6e9888b8c8ee9e8cc627769131b94c27698"]


class Engine:
    def __init__(self, torch, mixin, dcp_lens, origin):
        self.torch, self.mixin, self.dcp_lens, self.origin = torch, mixin, dcp_lens, origin


def from_source(src):
    from . import loader

    try:
        import torch
    except ImportError as e:
        protocol.cannot_run(f"SGLang's planner code needs torch: {e}")
    import typing

    pool = types.ModuleType("sglang.srt.mem_cache.memory_pool")
    pool.MLATokenToKVPool = type("MLATokenToKVPool", (), {})
    pool.HybridLinearKVPool = type("HybridLinearKVPool", (), {})
    for name in ("sglang", "sglang.srt", "sglang.srt.mem_cache"):
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["sglang.srt.mem_cache.memory_pool"] = pool
    provided = dict(torch=torch, List=typing.List, Optional=typing.Optional,
                    get_token_to_kv_pool=lambda: pool.MLATokenToKVPool())
    try:
        got = loader.load([(os.path.join(src, MIXIN), ["ForwardBatchDeepSeekMHAMixin"])], provided,
                          module_name="chunkproof_adapters.loaded_sglang")
        mixin = got["ForwardBatchDeepSeekMHAMixin"]
        for method in ("prepare_chunked_prefix_cache_info", "get_prefix_chunk_seq_lens"):
            if not hasattr(mixin, method):
                raise loader.Missing(f"ForwardBatchDeepSeekMHAMixin has no {method}")
    except loader.Missing as e:
        protocol.cannot_run(f"{e} (expected SGLang's chunked prefix cache under --src {src})")
    dcp_lens = None
    if os.path.isfile(os.path.join(src, LAYOUT)):
        dcp_lens = loader.load([(os.path.join(src, LAYOUT), ["get_dcp_lens"])], dict(torch=torch),
                               module_name="chunkproof_adapters.loaded_sglang_dcp")["get_dcp_lens"]
    return Engine(torch, mixin, dcp_lens, f"--src {src}" + ("" if dcp_lens else " (no DCP layout)"))


def stand_in_batch(engine, prefix, capacity):
    """A forward batch with what the planner reads, on the CPU."""

    class Batch(engine.mixin):
        def prepare_chunked_kv_indices(self, device):  # Triton over req_to_token: no planning field
            self.prefix_chunk_kv_indices = []

    if capacity is not None:
        Batch.get_max_chunk_capacity = lambda self: capacity
    b = Batch()
    b.batch_size = len(prefix)
    b.extend_prefix_lens_cpu = list(prefix)
    b.extend_prefix_lens = engine.torch.tensor(prefix, dtype=engine.torch.int32)
    b.token_to_kv_pool = sys.modules["sglang.srt.mem_cache.memory_pool"].MLATokenToKVPool()
    b.prefix_chunk_len = None
    return b


def dcp_span(engine, start, length, world):
    torch = engine.torch
    kept = [int(engine.dcp_lens(torch.tensor([length]), world, r, torch.tensor([start]))[0]) for r in range(world)]
    m = start % world
    return {"local_start": (start - m) // world, "padded_local_len": (length + m + world - 1) // world,
            "kept_per_rank": kept}


def plan(engine, request):
    # SGLang's extend batch has no decode split: batch_size (and so C // bs) counts every request,
    # a 1-token extend included (the vLLM-style split made q=1 requests decodes: 4 diff kinds).
    request = dict(request, decode_split=False)
    num_decodes, prefills = schema.batch_split(request)
    world = request["dcp"]
    if world > 1 and engine.dcp_lens is None:
        raise NotImplementedError("this SGLang has no DCP layout (layers/dcp/layout.py)")
    prefix = [request["ctx"][r] for r in prefills]
    b = stand_in_batch(engine, prefix, request["workspace"])
    capacity = b.get_max_chunk_capacity()
    chunks = []
    if prefix:
        b.prepare_chunked_prefix_cache_info(engine.torch.device("cpu"))
    for c in range(b.num_prefix_chunks or 0):
        starts = b.prefix_chunk_starts[c].tolist()
        lens = b.prefix_chunk_seq_lens[c].tolist()
        spans = []
        for i, r in enumerate(prefills):
            span = {"request": r, "start": starts[i], "len": lens[i]}
            if world > 1:
                span.update(dcp_span(engine, starts[i], lens[i], world))
            spans.append(span)
        chunk = schema.chunk_object(request, spans, is_continuation=False, dcp=world > 1)
        chunk["cu_seq_lens"] = b.prefix_chunk_cu_seq_lens[c].tolist()
        chunks.append(chunk)
    return schema.plan_object(request, capacity, chunks, workspace_rows=capacity,
                              chunk_width=b.prefix_chunk_len if chunks else None)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m chunkproof_adapters.sglang", description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", metavar="PATH", required=True, help="an SGLang source checkout")
    ap.add_argument("--check", action="store_true", help="load the functions, say where from, and exit")
    a = ap.parse_args(argv)
    engine = from_source(a.src)
    print(f"chunkproof sglang adapter: {engine.origin}; checked against {', '.join(c[:12] for c in CHECKED_AGAINST)}",
          file=sys.stderr)
    if not a.check:
        protocol.serve(lambda req: plan(engine, req))


if __name__ == "__main__":
    main()

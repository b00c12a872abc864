"""chunkproof adapter for vLLM's packed MLA chunked-context planner (v6-current, v5-packed;
#50613 and after): each case is planned by vLLM's OWN `build_mla_chunked_context_metadata`
(and `plan_mla_context_chunks` under it) and, for a case sized from max_model_len/max_num_seqs,
its `MLACommonMetadataBuilder.determine_chunked_prefill_workspace_size` with
`align_mla_chunked_context_workspace_size`; the ChunkedContextMetadata it returns is converted
into a chunkproof.plan/4 object (docs/live.md lists which field comes from where). Versions
pcp-*: the rows of vLLM's PCPManager, each rank planned by the same builder (vllm_pcp.py).

    python3 -m chunkproof_adapters.vllm [--src PATH]

--src PATH: a vLLM source checkout; the planner functions are cut out of its files and run with
minimal import shims (loader.py): torch and numpy are real, `np_to_pinned_tensor` is
torch.from_numpy (no pinned memory on a CPU-only machine), every other engine name the code
mentions is a placeholder. Without --src the installed vllm package is imported normally.
Exit 4 with a message when a function is missing (an older vLLM, or a moved file).

Checked against (docs/live.md, "validation"): vLLM 63ac04a61e62 (#50484, v5-packed) and
608c12473f3f (#51733, v6-current), from the HollowMan6/vllm mirror of vllm-project/vllm.
"""

import argparse
import inspect
import os
import sys
import types

from . import protocol, schema, vllm_indexer, vllm_pcp

MODULE = "vllm/model_executor/layers/attention/mla_attention.py"
UTILS = "vllm/v1/attention/backends/utils.py"
MATH = "vllm/utils/math_utils.py"
CHECKED_AGAINST = ["63ac04a61e6272b746d82e180e7f6276b3ee1ede", "608c12473f3f93b5452ac3c4fa13fb280b7da674"]
PLANNER_NAMES = [
    "_ContextChunkPlan",
    "plan_mla_context_chunks",
    "_flat_int32",
    "align_mla_chunked_context_workspace_size",
    "MLACommonPrefillMetadata",
    "build_mla_chunked_context_metadata",
    "MLACommonMetadataBuilder.determine_chunked_prefill_workspace_size",
]


class Engine:
    """vLLM's functions the adapter calls: the packed planner's (build, sizing, local_seq_lens) and
    the sparse indexer's (vllm_indexer.Indexer); a part this vLLM lacks is None and its
    `*_missing` says why (a request for it exits 4 with that message)."""

    def __init__(self, torch, build, sizing, local_seq_lens, origin, indexer=None, indexer_missing=None,
                 packed_missing=None, pcp=None, pcp_missing="no PCPManager loaded"):
        self.torch, self.build, self.sizing, self.local_seq_lens, self.origin = torch, build, sizing, local_seq_lens, origin
        self.indexer, self.indexer_missing, self.packed_missing = indexer, indexer_missing, packed_missing
        self.pcp, self.pcp_missing = pcp, pcp_missing  # vllm_pcp.Pcp: the PCP rows (pcp-* versions)


def from_source(src):
    from . import loader

    try:
        import numpy as np
        import torch
    except ImportError as e:
        protocol.cannot_run(f"vLLM's planner code needs torch and numpy: {e}")
    import dataclasses, functools, itertools, math, typing  # noqa: E401
    from collections.abc import Callable

    provided = dict(torch=torch, np=np, math=math, itertools=itertools, functools=functools,
                    dataclass=dataclasses.dataclass, field=dataclasses.field, Callable=Callable,
                    lcm=math.lcm, ClassVar=typing.ClassVar, Generic=typing.Generic, TypeVar=typing.TypeVar,
                    cast=typing.cast, np_to_pinned_tensor=lambda a: torch.from_numpy(a))
    got, packed_missing = None, None
    try:
        got = loader.load([(os.path.join(src, MATH), ["cdiv", "round_down", "round_up"]),
                           (os.path.join(src, UTILS), ["get_dcp_local_seq_lens"]),
                           (os.path.join(src, MODULE), PLANNER_NAMES)], provided)
    except loader.Missing as e:
        packed_missing = f"{e} (expected vLLM's packed planner, #50613 or later, under --src {src})"
    indexer, indexer_missing = None, None
    try:
        extra = {"get_dcp_local_seq_lens": got["get_dcp_local_seq_lens"]} if got else {}
        indexer = vllm_indexer.load(loader, os.path.join(src, vllm_indexer.INDEXER), dict(provided, **extra), torch)
    except loader.Missing as e:
        indexer_missing = f"{e} under --src {src}"
    if got is None and indexer is None:
        protocol.cannot_run(f"{packed_missing}; and {indexer_missing}")
    if got is None:
        return Engine(torch, None, None, None, f"--src {src} (indexer only)", indexer, indexer_missing, packed_missing)
    pcp, pcp_missing = None, None
    try:
        pcp = vllm_pcp.load(loader, src, os.path.join(src, UTILS), dict(provided, cdiv=got["cdiv"]))
    except loader.Missing as e:
        pcp_missing = f"{e} under --src {src} (expected vLLM's MRV2 PCPManager, #46570 or later)"
    return Engine(torch, got["build_mla_chunked_context_metadata"], got["determine_chunked_prefill_workspace_size"],
                  got["get_dcp_local_seq_lens"], f"--src {src} (shimmed: {', '.join(got.placeholders)})",
                  indexer, indexer_missing, pcp=pcp, pcp_missing=pcp_missing)


def from_installed():
    try:
        import torch
        from vllm.model_executor.layers.attention import mla_attention as m
        from vllm.v1.attention.backends.utils import get_dcp_local_seq_lens
    except ImportError as e:
        protocol.cannot_run(f"no importable vllm ({e}); give --src PATH to a vLLM checkout")
    for name in ("build_mla_chunked_context_metadata", "MLACommonMetadataBuilder"):
        if not hasattr(m, name):
            protocol.cannot_run(f"vllm's mla_attention has no {name} (expected #50613 or later)")
    try:
        from vllm.v1.attention.backends.mla import indexer as ix
        indexer, missing = vllm_indexer.from_module(torch, ix), "the installed vllm's indexer has no chunker"
    except ImportError as e:
        indexer, missing = None, f"no importable vllm indexer ({e})"
    return Engine(torch, m.build_mla_chunked_context_metadata,
                  m.MLACommonMetadataBuilder.determine_chunked_prefill_workspace_size, get_dcp_local_seq_lens,
                  f"installed vllm at {os.path.dirname(m.__file__)}", indexer, missing)


def vllm_config(request):
    """The fields of VllmConfig the sizing helpers read."""
    ns = types.SimpleNamespace
    return ns(scheduler_config=ns(max_num_seqs=request["max_num_seqs"]),
              cache_config=ns(block_size=request["block"]),
              model_config=ns(max_model_len=request["max_model_len"]),
              parallel_config=ns(decode_context_parallel_size=request["dcp"],
                                 cp_kv_cache_interleave_size=request["interleave"]))


def to_list(x):
    return x.tolist() if hasattr(x, "tolist") else list(x)


def convert(request, metadata, workspace, local_context_lens):
    """ChunkedContextMetadata (or None: no prefill has context) -> chunkproof.plan/3.

    Fields read from the metadata: per ContextChunk `request_slice` (prefill indices, shifted by
    the decodes to case indices), `token_slice`, `is_continuation`, `seq_lens`, `cu_seq_lens`,
    `starts` (global without DCP), and under DCP `local_starts`, `padded_local_seq_lens`,
    `padded_local_cu_seq_lens`; `empty_token_slices`. Under DCP a span's global start is not
    kept by vLLM (`starts` are local): it is the sum of the request's earlier pieces, in chunk
    order. Not sent (chunkproof's model fills them, docs/live.md): workspace_rows, chunk_width,
    align, row_budget (locals of the builder), kept_per_rank (the forward pass's reorg)."""
    num_decodes, prefills = schema.batch_split(request)
    dcp = request["dcp"] > 1
    if metadata is None:  # no prefill has context: vLLM builds no chunked-context metadata at all
        return schema.plan_object(request, workspace, [], planner="packed", local_context_lens=local_context_lens)
    chunks, done = [], {}
    for ch in metadata.chunks:
        first = ch.request_slice.start
        lens = to_list(ch.seq_lens)
        starts = to_list(ch.starts)
        spans = []
        for k, length in enumerate(lens):
            r = num_decodes + first + k
            start = done.get(r, 0) if dcp else starts[k]
            done[r] = start + length
            span = {"request": r, "start": start, "len": length}
            if dcp:
                span.update(local_start=ch.local_starts[k], padded_local_len=ch.padded_local_seq_lens[k])
            spans.append(span)
        c = schema.chunk_object(request, spans, is_continuation=ch.is_continuation, dcp=dcp)
        c["token_start"], c["token_end"] = ch.token_slice.start, ch.token_slice.stop
        c["cu_seq_lens"] = to_list(ch.cu_seq_lens)
        if dcp:
            c["padded_local_cu_seq_lens"] = to_list(ch.padded_local_cu_seq_lens)
        chunks.append(c)
    empty = [[s.start, s.stop] for s in metadata.empty_token_slices]
    return schema.plan_object(request, workspace, chunks, planner="packed", empty_token_ranges=empty,
                              local_context_lens=local_context_lens)


def call_build(engine, request, workspace):
    """vLLM's builder call (the dense builder passes align_chunk_to_block=True; the sparse one
    current_platform.is_cuda()), with the keyword arguments this vLLM's signature takes."""
    torch = engine.torch
    num_decodes, prefills = schema.batch_split(request)
    ctx = [request["ctx"][r] for r in prefills]
    world, interleave = request["dcp"], request["interleave"]
    args = dict(context_lens_cpu=torch.tensor(ctx, dtype=torch.int32),
                prefill_query_start_loc_cpu=torch.tensor(schema.prefill_query_start_loc(request), dtype=torch.int32),
                num_prefills=len(prefills), chunked_prefill_workspace=torch.empty(0),
                chunked_prefill_workspace_size=workspace, block_size=request["block"],
                align_chunk_to_block=request["builder"] == "dense" or request["platform"] == "cuda",
                device=torch.device("cpu"), dcp_world_size=world, dcp_local_block_size=interleave,
                dcp_virtual_block_size=world * interleave, dcp_manager=None)
    accepted = inspect.signature(engine.build).parameters
    return engine.build(**{k: v for k, v in args.items() if k in accepted}), ctx


def plan_packed(engine, request, workspace):
    """vLLM's builder over the request's batch -> (plan object, ChunkedContextMetadata or None)."""
    world = request["dcp"]
    metadata, ctx = call_build(engine, request, workspace)
    local = None
    if world > 1:
        torch = engine.torch
        local = to_list(engine.local_seq_lens(torch.tensor(ctx, dtype=torch.int32), world, None, request["interleave"]))
    return convert(request, metadata, workspace, local), metadata


def plan(engine, request):
    if request["version"].startswith("indexer-"):  # the sparse indexer chunker (vllm_indexer.py)
        if engine.indexer is None:
            protocol.cannot_run(engine.indexer_missing)
        return vllm_indexer.plan(engine.indexer, request)
    if engine.build is None:
        protocol.cannot_run(engine.packed_missing)
    if request["version"].startswith("pcp-") and engine.pcp is None:
        protocol.cannot_run(engine.pcp_missing)
    if request["workspace"] is not None:
        workspace = request["workspace"]
    else:
        workspace = engine.sizing(vllm_config(request))
    world = request["dcp"]
    if world > 1:
        # MLACommonMetadataBuilder.__init__ asserts this before allocating the workspace.
        assert workspace % world == 0, "chunked_prefill_workspace_size % dcp_world_size == 0"
    if request["version"].startswith("pcp-"):  # PCP rows, each rank's v6 plan over them (vllm_pcp.py)
        return vllm_pcp.plan(engine, request, lambda sub, ws: plan_packed(engine, sub, ws), workspace)
    return plan_packed(engine, request, workspace)[0]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m chunkproof_adapters.vllm", description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", metavar="PATH", help="a vLLM source checkout (default: the installed vllm)")
    ap.add_argument("--check", action="store_true", help="load the functions, say where from, and exit")
    a = ap.parse_args(argv)
    engine = from_source(a.src) if a.src else from_installed()
    print(f"chunkproof vllm adapter: {engine.origin}; checked against {', '.join(c[:12] for c in CHECKED_AGAINST)}",
          file=sys.stderr)
    print("chunkproof vllm adapter: PCP rows " + (
        f"(PCPManager); checked against {', '.join(vllm_pcp.CHECKED_AGAINST)}" if engine.pcp
        else f"not available: {engine.pcp_missing}"), file=sys.stderr)
    print("chunkproof vllm adapter: sparse indexer " + (
        f"({engine.indexer.style} shape); checked against {', '.join(c[:12] for c in vllm_indexer.CHECKED_AGAINST)}"
        if engine.indexer else f"not available: {engine.indexer_missing}"), file=sys.stderr)
    if a.check:
        return
    protocol.serve(lambda req: plan(engine, req))


if __name__ == "__main__":
    main()

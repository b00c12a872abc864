"""The vLLM adapter's PCP part (versions pcp-a, pcp-b, pcp-c; docs/live.md): the rows come
from vLLM's OWN `PCPManager` (vllm/v1/worker/gpu/pcp_manager.py, MRV2 prefill context
parallel, #46570 and after): `PCPManager._build_batch_layout` cuts every prefill into 2P
DualChunkSwap pieces and orders each rank's `RankSegment`s; the dense MLA builder's batch split
is vLLM's `split_decodes_and_prefills(..., treat_short_extends_as_decodes=not use_pcp)`; each
rank's rows (context = start, query = len) then go through v6-current's
`build_mla_chunked_context_metadata` exactly as the packed path of vllm.py does. The reply is
the selected rank's v6 plan (chunk requests are row indices) plus `pcp`: every rank's rows,
decode boundary, whether the chunked-context path runs, the rows gathered per chunk and the
rank's tokens (chunkproof.plan/4, docs/plan-json.md).

Glue (not the engine's code; what vLLM's forward does around the calls): a rank without rows
gets `partition_batch`'s dummy segment (request 0, its computed tokens, 0 tokens);
`is_prefilling` comes from the case (`prefilling=`, default: a request decodes iff q <= 1 and
ctx > 0); query_start_loc is the prefix sum of q. `async_copy_to_gpu` is torch.from_numpy (no
GPU), `PAD_SLOT_ID` is vLLM's -1; every other engine name in the manager is a placeholder.

Checked against (docs/live.md): the PCPManager of HollowMan6/vllm (a mirror of vllm-project/vllm)
at b6ff8a2f5 (#46570, the first MRV2 PCP) and 0a94d85a6 (2026-08-11, after #50066, #51210,
#51865): ceil pieces, pure prefills last (pcp-b).
"""

import os
import types

PCP_MANAGER = "vllm/v1/worker/gpu/pcp_manager.py"
CHECKED_AGAINST = ["b6ff8a2f5", "0a94d85a6"]
PAD_SLOT_ID = -1  # vllm/v1/attention/backends/utils.py


class Pcp:
    """vLLM's PCPManager class and split_decodes_and_prefills, and the torch/numpy they use."""

    def __init__(self, torch, np, manager_cls, split):
        self.torch, self.np, self.manager_cls, self.split = torch, np, manager_cls, split


def load(loader, src, utils_path, provided):
    """PCPManager (with RankSegment) cut out of the tree's pcp_manager.py; Missing when absent."""
    torch, np = provided["torch"], provided["np"]
    extra = dict(provided, replace=__import__("dataclasses").replace, PAD_SLOT_ID=PAD_SLOT_ID,
                 async_copy_to_gpu=lambda x, out=None, device=None: torch.from_numpy(x) if out is None
                 else out.copy_(torch.from_numpy(x)))
    got = loader.load([(utils_path, ["split_decodes_and_prefills"]),
                       (os.path.join(src, PCP_MANAGER), ["RankSegment", "PCPManager"])], extra,
                      module_name="chunkproof_adapters.loaded_pcp")
    return Pcp(torch, np, got["PCPManager"], got["split_decodes_and_prefills"])


def is_prefilling(request):
    """The case's is_prefilling per request (prefilling=, else decode iff q <= 1 and ctx > 0)."""
    if request.get("prefilling"):
        return [bool(x) for x in request["prefilling"]]
    return [not (q <= 1 and n > 0) for n, q in zip(request["ctx"], request["q"])]


def rows_from_segments(segments_by_rank, num_computed, query_start_loc, prefilling):
    """RankSegment lists (global_batch_req_idx, global_batch_slice) -> per rank the rows
    {request, start, len, prefilling}: start = num_computed + the slice's offset in the request
    (the manager's local_start_pos); an empty rank gets partition_batch's dummy segment."""
    ranks = []
    for segments in segments_by_rank:
        rows = []
        for s in segments or [types.SimpleNamespace(global_batch_req_idx=0, global_batch_slice=slice(0, 0))]:
            j = int(s.global_batch_req_idx)
            start = int(num_computed[j]) + s.global_batch_slice.start - int(query_start_loc[j])
            rows.append({"request": j, "start": start, "len": s.global_batch_slice.stop - s.global_batch_slice.start,
                         "prefilling": bool(prefilling[j])})
        ranks.append(rows)
    return ranks


def num_decodes(pcp, rows):
    """vLLM's split_decodes_and_prefills over a rank's rows as the dense MLA builder calls it
    under PCP (decode_threshold = reorder_batch_threshold = 1, require_uniform for
    QueryLenSupport.SINGLE_ONLY, treat_short_extends_as_decodes = not use_pcp = False)."""
    torch = pcp.torch
    lens = [w["len"] for w in rows]
    qsl = [0]
    for n in lens:
        qsl.append(qsl[-1] + n)
    md = types.SimpleNamespace(max_query_len=max(lens), num_reqs=len(rows), num_actual_tokens=qsl[-1],
                               query_start_loc_cpu=torch.tensor(qsl, dtype=torch.int32),
                               is_prefilling=torch.tensor([w["prefilling"] for w in rows], dtype=torch.bool))
    return int(pcp.split(md, decode_threshold=1, require_uniform=True, treat_short_extends_as_decodes=False)[0])


def rank_request(request, rows, decodes):
    """The request one rank's v6 builder sees: its rows as requests (ctx = start, q = len)."""
    return dict(request, ctx=[w["start"] for w in rows], q=[w["len"] for w in rows], num_decodes=decodes)


def rank_summary(rows, decodes, plan, metadata, tokens, dcp):
    """The rank's entry of the plan's `pcp.ranks[]` from its v6 plan object."""
    key = "num_local_context_tokens" if dcp else "num_context_tokens"
    return {"rows": rows, "num_decodes": decodes, "context_path": metadata is not None,
            "plan_built": True, "gathered": [c[key] for c in plan["chunks"]], "tokens": tokens}


def plan(engine, request, plan_packed, workspace):
    """The selected rank's v6 plan with every rank's rows (`plan_packed(request, workspace)` ->
    (plan object, metadata) is vllm.py's packed path)."""
    pcp, np = engine.pcp, engine.pcp.np
    size, rank = request["pcp"], request.get("pcp_rank") or 0
    q = np.array(request["q"], dtype=np.int32)
    computed = np.array(request["ctx"], dtype=np.int32)
    prefilling = is_prefilling(request)
    qsl = np.concatenate([[0], np.cumsum(q)]).astype(np.int32)
    manager = pcp.manager_cls(pcp_world_size=size, pcp_rank=rank, device=pcp.torch.device("cpu"),
                              dcp_world_size=request["dcp"], cp_interleave=request["interleave"])
    segments, per_rank_tokens = manager._build_batch_layout(q, computed, np.array(prefilling, dtype=np.bool_), qsl)
    ranks, mine = [], None
    for r, rows in enumerate(rows_from_segments(segments, computed, qsl, prefilling)):
        decodes = num_decodes(pcp, rows)
        sub = rank_request(request, rows, decodes)
        p, metadata = plan_packed(sub, workspace)
        ranks.append(rank_summary(rows, decodes, p, metadata, int(per_rank_tokens[r]), request["dcp"] > 1))
        if r == rank:
            mine = p
    mine["pcp"] = {"size": size, "rank": rank, "tp": request.get("tp") or 1, "ranks": ranks}
    return mine

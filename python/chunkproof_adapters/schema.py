"""chunkproof.plan/4 objects (docs/plan-json.md) from the spans a planner decided.

Every adapter reduces its engine's metadata to one list of chunks, each a list of spans
(request, start, len[, local_start, padded_local_len]) in case request indices, and lets
`plan_object` build the schema's fields: prefix sums, token slices and the batch split are
derived here once, the same way for every engine.
"""

from .protocol import PLAN_SCHEMA


def batch_split(request):
    """(num_decodes, prefills): leading requests with q <= 1 are decodes (vLLM's
    split_decodes_and_prefills at threshold 1, the batch already reordered). An adapter whose
    engine plans every request of the batch (SGLang's extend batch: batch_size counts them all)
    sets request["decode_split"] = False: no decodes."""
    q = request["q"]
    if request.get("num_decodes") is not None:  # decided by the engine's own split (PCP rows: vllm_pcp.py)
        return request["num_decodes"], list(range(request["num_decodes"], len(q)))
    if request.get("decode_split") is False:
        return 0, list(range(len(q)))
    num_decodes = 0
    while num_decodes < len(q) and q[num_decodes] <= 1:
        num_decodes += 1
    return num_decodes, list(range(num_decodes, len(q)))


def prefill_query_start_loc(request):
    """Query-token offsets of the prefills, from 0 (vLLM's prefill_query_start_loc)."""
    num_decodes, prefills = batch_split(request)
    loc = [0]
    for r in prefills:
        loc.append(loc[-1] + request["q"][r])
    return loc


def _prefix(values):
    out = [0]
    for v in values:
        out.append(out[-1] + v)
    return out


def chunk_object(request, spans, is_continuation=None, dcp=False):
    """One chunk: `spans` in workspace order, each a dict with request, start, len (and under
    DCP local_start, padded_local_len, optionally kept_per_rank)."""
    num_decodes, _ = batch_split(request)
    loc = prefill_query_start_loc(request)
    first, last = spans[0]["request"], spans[-1]["request"]
    chunk = {
        "request_start": first,
        "request_end": last + 1,
        "token_start": loc[first - num_decodes],
        "token_end": loc[last + 1 - num_decodes],
        "is_continuation": spans[0]["start"] > 0 if is_continuation is None else bool(is_continuation),
        "num_context_tokens": sum(s["len"] for s in spans),
        "cu_seq_lens": _prefix([s["len"] for s in spans]),
        "requests": [dict(s) for s in spans],
    }
    if dcp:
        local = [s["padded_local_len"] for s in spans]
        chunk["num_local_context_tokens"] = sum(local)
        chunk["padded_local_cu_seq_lens"] = _prefix(local)
    return chunk


def plan_object(request, workspace, chunks, **fields):
    """The plan object. `chunks`: chunk_object()s. `fields`: any other schema field the planner
    knows (workspace_rows, planner, chunk_width, align, row_budget, local_context_lens,
    empty_token_ranges, prefill_tokens_with_context, ...); the geometry comes from the request."""
    num_decodes, prefills = batch_split(request)
    plan = {
        "schema": PLAN_SCHEMA,
        "case": request["case"],
        "version": request["version"],
        "platform": request["platform"],
        "builder": request["builder"],
        "block": request["block"],
        "dcp": request["dcp"],
        "interleave": request["interleave"],
        "virtual_block": request["dcp"] * request["interleave"],
        "workspace": workspace,
        "num_decodes": num_decodes,
        "prefills": prefills,
        "num_prefills_with_context": sum(1 for r in prefills if request["ctx"][r] > 0),
        "plan_built": True,
        "chunks": chunks,
    }
    plan.update({k: v for k, v in fields.items() if v is not None})
    return plan


def dcp_local_seq_lens(ctx, world, interleave):
    """Rows of a context of `ctx` tokens each of `world` ranks holds, interleave-sized stripes
    dealt round-robin (the layout of vLLM's get_dcp_local_seq_lens, written out here)."""
    virtual = world * interleave
    full, rest = divmod(ctx, virtual)
    return [full * interleave + min(max(rest - rank * interleave, 0), interleave) for rank in range(world)]

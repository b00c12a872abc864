"""A reference test planner for the protocol's tests (docs/live.md): vLLM's packed chunked-context
planner (v6-current; --sizing v5 for v5-packed's workspace floor) written from the spec's
description (spec §2.3), not from chunkproof's C++ model and not from vLLM's code.

It carries ONE deliberate bug, in one mode: under DCP with interleave > 1 the split alignment
takes lcm(block, W) where the engine takes lcm(block, I*W) (see `split_alignment`). Every other
mode agrees with the engine, and `--no-bug` fixes that line. `chunkproof diff` and `chunkproof
fuzz --planner-cmd ... --version v6-current` must find it; the tests check that they do.

--misbehave MODE@N makes every N-th request of each process life misbehave, for the error-path
tests: crash (exit 3), hang, garbage (a line that is not JSON), schema (a plan without chunks),
raise (a ValueError in the planner), noise (a line on stderr; the reply stays correct).

    python3 -m chunkproof_adapters.testplanner [--no-bug] [--sizing v5|v6] [--misbehave MODE@N]
"""

import argparse
import math
import os
import sys
import time

from . import protocol, schema

WORKSPACE_CAP = 64 * 1024


def cdiv(a, b):
    return -(-a // b)


def workspace_size(request, align, sizing):
    """Rows of the chunked-context workspace: the case's explicit value, else the engine's rule
    from max_model_len / max_num_seqs (8 full requests or 4 pages each, capped at 64K, aligned)."""
    if request["workspace"] is not None:
        return request["workspace"]
    mml, mns, block = request["max_model_len"], request["max_num_seqs"], request["block"]
    base = min(max(8 * mml, 4 * mns * block), WORKSPACE_CAP)
    if sizing == "v5":
        base = max(base, mns * align)
    return cdiv(max(base, align), align) * align


def split_alignment(request, bug):
    block, world, interleave = request["block"], request["dcp"], request["interleave"]
    aligned = request["builder"] == "dense" or request["platform"] == "cuda"
    align = block if aligned else 1
    if world > 1:
        align = math.lcm(align, world if bug else world * interleave)  # the deliberate bug (I > 1 only)
    return align


class Packer:
    """The greedy packing loop: one open chunk, the rows it uses, the chunks closed so far."""

    def __init__(self, request, row_budget, max_piece, align):
        self.world, self.interleave = request["dcp"], request["interleave"]
        self.row_budget, self.max_piece, self.align = row_budget, max_piece, align
        self.chunks, self.open, self.rows = [], [], 0

    def rows_for(self, end):
        """Local rows (per rank) a prefix of `end` context tokens occupies."""
        if self.world == 1:
            return end
        return cdiv(end, self.world * self.interleave) * self.interleave

    def need(self, start, length):
        return self.rows_for(start + length) - self.rows_for(start)

    def close(self):
        assert self.open, "a chunk with no request piece"
        self.chunks.append(self.open)
        self.open, self.rows = [], 0

    def take(self, r, start, length):
        self.open.append((r, start, length))
        self.rows += self.need(start, length)

    def largest_split(self, start, ctx):
        """The longest aligned piece [start, start + k*align) that fits the open chunk and leaves
        some context for the next one."""
        fits = lambda k: self.rows + self.need(start, k * self.align) <= self.row_budget  # noqa: E731
        lo, hi = 0, min(self.max_piece, (ctx - start - 1) // self.align * self.align) // self.align
        while lo < hi:  # the rows a piece needs grow with its length: bisect
            mid = hi - (hi - lo) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
        return lo * self.align

    def add_request(self, r, ctx):
        if ctx == 0:
            if self.open:
                self.close()
            return
        start = 0
        while start < ctx:
            if self.rows + self.need(start, ctx - start) <= self.row_budget:
                self.take(r, start, ctx - start)
                return
            split = self.largest_split(start, ctx)
            if split:
                self.take(r, start, split)
                start += split
            self.close()


def plan(request, bug=True, sizing="v6"):
    world, interleave = request["dcp"], request["interleave"]
    num_decodes, prefills = schema.batch_split(request)
    align = split_alignment(request, bug)
    sizing_align = request["block"] if world == 1 else math.lcm(request["block"], world * interleave)
    workspace = workspace_size(request, sizing_align, sizing)
    if world > 1:
        assert workspace % world == 0, "chunked_prefill_workspace_size % dcp_world_size == 0"
    rows = workspace + workspace // world if world > 1 else workspace
    if max((request["ctx"][r] for r in prefills), default=0) <= 0:
        return schema.plan_object(request, workspace, [], workspace_rows=rows, planner="packed")  # nothing to plan
    row_budget = workspace // world if world > 1 else workspace
    max_piece = workspace // align * align
    assert max_piece > 0, "workspace smaller than the split alignment"
    packer = Packer(request, row_budget, max_piece, align)
    for r in prefills:
        packer.add_request(r, request["ctx"][r])
    if packer.open:
        packer.close()
    local = {r: schema.dcp_local_seq_lens(request["ctx"][r], world, interleave) for r in prefills} if world > 1 else {}
    chunks = []
    for pieces in packer.chunks:
        spans = []
        for r, start, length in pieces:
            span = {"request": r, "start": start, "len": length}
            if world > 1:
                ls = packer.rows_for(start)
                pl = packer.rows_for(start + length) - ls
                span.update(local_start=ls, padded_local_len=pl,
                            kept_per_rank=[min(max(n - ls, 0), pl) for n in local[r]])
            spans.append(span)
        chunks.append(schema.chunk_object(request, spans, dcp=world > 1))
    loc = schema.prefill_query_start_loc(request)
    empty = [[loc[i], loc[i + 1]] for i, r in enumerate(prefills) if request["ctx"][r] == 0]
    return schema.plan_object(
        request, workspace, chunks,
        workspace_rows=rows,
        planner="packed", chunk_width=max_piece, align=align, row_budget=row_budget,
        local_context_lens=[local[r] for r in prefills] if world > 1 else None,
        empty_token_ranges=empty)


def misbehaving(inner, mode, every):
    count = [0]

    def planner(request):
        count[0] += 1
        if count[0] % every:
            return inner(request)
        if mode == "crash":
            sys.stdout.flush()
            os._exit(3)
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            sys.stdout.write("this is not JSON\n")
            sys.stdout.flush()
            return inner(request)
        if mode == "schema":
            return {"schema": protocol.PLAN_SCHEMA, "workspace": 0}
        if mode == "raise":
            raise ValueError("deliberate failure of request %d" % count[0])
        print("noise on stderr", file=sys.stderr)
        return inner(request)

    return planner


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m chunkproof_adapters.testplanner", description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-bug", action="store_true", help="fix the deliberate bug")
    ap.add_argument("--sizing", choices=["v5", "v6"], default="v6")
    ap.add_argument("--misbehave", metavar="MODE@N", help="crash|hang|garbage|schema|raise|noise, every N-th request")
    a = ap.parse_args(argv)
    planner = lambda req: plan(req, bug=not a.no_bug, sizing=a.sizing)  # noqa: E731
    if a.misbehave:
        mode, _, n = a.misbehave.partition("@")
        if mode not in ("crash", "hang", "garbage", "schema", "raise", "noise") or not n.isdigit() or int(n) < 1:
            ap.error("--misbehave MODE@N, N >= 1")
        planner = misbehaving(planner, mode, int(n))
    protocol.serve(planner)


if __name__ == "__main__":
    main()

"""Case lines for a `chunkproof diff` campaign of vLLM's PCPManager rows (docs/live.md,
"validation"): PCP sizes P in {2, 4, 8}, every rank, TP sizes with the DCP sizes the
version accepts (pcp-b/pcp-c: {1, P, TP*P}; pcp-a: {1, P}), interleaves dividing the block,
batches in the engine's input order mixing decodes (q=1 with context), fresh prefills, continued
prefills and short prefills (q < 2P: empty pieces), sometimes an explicit `prefilling=` (a 1-token
prefill), and workspaces small enough that the rows' contexts take several chunks.

    python3 gen_pcp_cases.py VERSION [SEED]   # endless; pipe into chunkproof diff --cases -
"""

import math
import random

from case_stream import stream_cases


def case(rng, version):
    P = rng.choice([2, 2, 2, 4, 4, 8])  # P = 1: vLLM builds no PCPManager (maybe_build_pcp_manager)
    tp = rng.choice([1, 1, 2, 4])
    dcps = [1, P] if version == "pcp-a" else [1, P, tp * P]
    dcp = rng.choice(dcps)
    block = rng.choice([16, 64])
    interleave = rng.choice([i for i in (1, 2, 4, 8, 16) if block % i == 0]) if dcp > 1 else 1
    n = rng.choice([1, 1, 2, 3, 5, 8, 16])
    ctx, q, pre = [], [], []
    for _ in range(n):
        kind = rng.randrange(5)
        if kind == 0:  # a decode
            ctx.append(rng.randint(1, 5000)), q.append(1), pre.append(0)
        elif kind == 1:  # a fresh prefill
            ctx.append(0), q.append(rng.choice([1, 2, 3, rng.randint(2, 4 * P), rng.randint(2, 3000)])), pre.append(1)
        elif kind == 2:  # a short prefill after a cached prefix: empty pieces
            ctx.append(rng.randint(1, 2000)), q.append(rng.randint(1, 2 * P)), pre.append(1)
        else:  # a continued prefill
            ctx.append(rng.randint(1, 20000)), q.append(rng.randint(2, 4000)), pre.append(1)
    V = dcp * interleave
    total = sum(ctx) + sum(q)
    unit = math.lcm(block, V)
    ws = unit * rng.randint(1, max(1, total // unit // rng.choice([1, 2, 4, 8]) + 1))
    keys = [f"version={version}", "platform=cuda", f"workspace={ws}", f"block={block}", f"dcp={dcp}",
            f"interleave={interleave}", f"pcp={P}", f"pcp_rank={rng.randrange(P)}", f"tp={tp}"]
    explicit = rng.randrange(4) == 0
    if explicit or any(k == 1 and c > 0 and p == 1 for c, k, p in zip(ctx, q, pre)):
        keys.append("prefilling=" + ",".join(map(str, pre)))
    return " ".join(keys) + f" ctx={','.join(map(str, ctx))} q={','.join(map(str, q))}"


if __name__ == "__main__":
    stream_cases(case)

"""Case lines for a `chunkproof diff` campaign of vLLM's sparse indexer chunker (docs/live.md,
"validation"): deployments as vLLM builds them (K budget 40 * max_model_len, or an explicit
workspace= no smaller than the longest request's K rows, which the engine's sizing guarantees),
leading decodes, prefills with ctx + q <= max_model_len, small logits budgets so row slices close
on E and long requests are cut into query sub-slices, and for DeepSeek V4 compress ratios under
which short requests have no K rows at all (dropped chunks, E-5).

    python3 gen_indexer_cases.py VERSION [SEED]   # endless; pipe into chunkproof diff --cases -
"""

import random

from case_stream import stream_cases


def case(rng, version):
    mml = rng.choice([256, 1024, 4096, 16384, 163840])
    rho = rng.choice([4, 4, 128, 2]) if version == "indexer-dsv4" else 1
    decodes = rng.choice([0, 0, 0, 1, 3])
    prefills = rng.choice([1, 1, 2, 3, 5, 8, 16, 48])
    ctx, q = [], []
    for i in range(decodes + prefills):
        qi = 1 if i < decodes else rng.choice([2, 3, rng.randint(2, 64), rng.randint(2, 2048)])
        qi = min(qi, mml) if i < decodes else max(2, min(qi, mml))
        room = mml - qi
        shape = rng.randrange(5)
        ci = (0 if shape == 0 else rng.randint(0, min(room, 3 * rho)) if shape == 1 else room if shape == 2
              else rng.randint(0, room))
        ctx.append(ci)
        q.append(qi)
    keys = [f"version={version}", "platform=cuda", "block=64", "dcp=1", "interleave=1", f"compress_ratio={rho}"]
    if rng.randrange(4) == 0:  # an explicit K budget, never below one request's K rows
        longest = max(1, max((c + k) // rho for c, k in zip(ctx, q)))
        keys.append(f"workspace={rng.randint(longest, longest * 4)}")
    else:
        keys += [f"max_model_len={mml}", f"max_num_seqs={max(64, len(q))}"]
    mb = rng.choice([None, None, 1, 1, 2, 16])
    if mb:
        keys.append(f"max_logits_mb={mb}")
    return " ".join(keys) + f" ctx={','.join(map(str, ctx))} q={','.join(map(str, q))}"


if __name__ == "__main__":
    stream_cases(case)

"""The planner side of the protocol without any engine (docs/live.md): the protocol loop's
error records, the test planner against the engine's own unit-test expectation, the source
loader, and the vLLM and SGLang adapters' conversion on objects shaped like the engines' (the
fields each adapter reads, as the engine's dataclasses name them)."""

import io
import json
import os
import tempfile
import textwrap
import types
import unittest

from chunkproof_adapters import loader, protocol, schema, testplanner, vllm, vllm_indexer, vllm_pcp

try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False


def request(**kw):
    r = dict(schema=protocol.REQUEST_SCHEMA, id=1, case="c", version="v6-current", platform="cuda", builder="dense",
             workspace=128, max_model_len=None, max_num_seqs=None, block=64, dcp=1, interleave=1, ctx=[], q=[],
             asserts=True)
    r.update(kw)
    return r


class Protocol(unittest.TestCase):
    def test_an_assert_is_an_error_record_with_its_location(self):
        def planner(req):
            assert req["ctx"], "no context"

        rec = protocol.answer(planner, json.dumps(request()))["error"]
        self.assertEqual((rec["kind"], rec["type"], rec["message"]), ("assert", "AssertionError", "no context"))
        self.assertRegex(rec["location"], r"^test_adapters\.py:\d+ in planner$")

    def test_another_exception_and_a_bad_request(self):
        rec = protocol.answer(lambda req: 1 // 0, json.dumps(request()))["error"]
        self.assertEqual((rec["kind"], rec["type"]), ("exception", "ZeroDivisionError"))
        self.assertEqual(protocol.answer(lambda req: {}, "[1]")["error"]["type"], "ValueError")

    def test_serve_answers_one_line_per_request(self):
        out = io.StringIO()
        protocol.serve(lambda req: {"id": req["id"]}, io.StringIO(json.dumps(request(id=7)) + "\n\n"), out)
        self.assertEqual(out.getvalue(), '{"id":7}\n')


class TestPlanner(unittest.TestCase):
    def test_matches_vllms_own_unit_test(self):
        # vLLM test_dcp_chunked_context_accepts_non_virtual_block_aligned_prefix (spec S10).
        p = testplanner.plan(request(ctx=[65, 96], q=[3, 3], dcp=4))
        self.assertEqual([[s["len"] for s in c["requests"]] for c in p["chunks"]], [[65], [96]])
        self.assertEqual(p["local_context_lens"], [[17, 16, 16, 16], [24, 24, 24, 24]])
        self.assertEqual([c["requests"][0]["padded_local_len"] for c in p["chunks"]], [17, 24])

    def test_the_deliberate_bug_is_in_the_interleaved_mode_only(self):
        for kw in (dict(dcp=1), dict(dcp=4, interleave=1), dict(dcp=2, interleave=2, block=2, workspace=32)):
            req = request(ctx=[70, 0, 41], q=[4, 2, 3], **kw)
            same = testplanner.plan(req, bug=True) == testplanner.plan(req, bug=False)
            self.assertEqual(same, kw.get("interleave", 1) == 1, kw)

    def test_a_context_free_prefill_closes_the_chunk(self):
        # vLLM test_prefills_without_context_are_skipped_and_reported: ctx [64,0,64,0], q=4 each.
        p = testplanner.plan(request(ctx=[64, 0, 64, 0], q=[4, 4, 4, 4], workspace=1024, block=16))
        self.assertEqual([(c["request_start"], c["request_end"]) for c in p["chunks"]], [(0, 1), (2, 3)])
        self.assertEqual(p["empty_token_ranges"], [[4, 8], [12, 16]])


class Loader(unittest.TestCase):
    def test_cuts_definitions_out_and_shims_the_rest(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.py")
            with open(path, "w") as f:
                f.write(textwrap.dedent("""
                    from engine.heavy import Thing, helper
                    def twice(x) -> Thing | None:
                        return 2 * x
                    class Builder:
                        @staticmethod
                        def size(cfg):
                            return twice(cfg)
                    """))
            got = loader.load([(path, ["twice", "Builder.size"])], {})
            self.assertEqual(got["size"](4), 8)
            self.assertEqual(got.placeholders, ["Thing"])
            with self.assertRaises(loader.Missing):
                loader.load([(path, ["plan_mla_context_chunks"])], {})

    def test_a_vllm_tree_without_the_planner_exits_4(self):
        if not HAVE_TORCH:
            self.skipTest("the vLLM adapter needs torch before it looks at the tree")
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(SystemExit) as e:
                vllm.from_source(d)
            self.assertEqual(e.exception.code, protocol.EXIT_CANNOT_RUN)


def ns(**kw):
    return types.SimpleNamespace(**kw)


class VllmConversion(unittest.TestCase):
    """ChunkedContextMetadata / ContextChunk as vLLM 608c12473 names their fields."""

    def test_dcp_chunks_and_a_continuation(self):
        # Two decodes, then prefills with ctx [100, 40] under W=2, I=1: request 0 split at 64.
        req = request(ctx=[5, 5, 100, 40], q=[1, 1, 3, 2], dcp=2, workspace=128, block=16)
        c0 = ns(request_slice=slice(0, 1), token_slice=slice(0, 3), is_continuation=False, seq_lens=[64],
                starts=[0], cu_seq_lens=[0, 64], local_starts=[0], padded_local_seq_lens=[32],
                padded_local_cu_seq_lens=[0, 32])
        c1 = ns(request_slice=slice(0, 2), token_slice=slice(0, 5), is_continuation=True, seq_lens=[36, 40],
                starts=[32, 0], cu_seq_lens=[0, 36, 76], local_starts=[32, 0], padded_local_seq_lens=[18, 20],
                padded_local_cu_seq_lens=[0, 18, 38])
        p = vllm.convert(req, ns(chunks=[c0, c1], empty_token_slices=[]), 128, [[50, 50], [20, 20]])
        spans = [[(s["request"], s["start"], s["len"], s["local_start"]) for s in c["requests"]] for c in p["chunks"]]
        # Global starts are the request's earlier pieces (vLLM keeps only local starts under DCP).
        self.assertEqual(spans, [[(2, 0, 64, 0)], [(2, 64, 36, 32), (3, 0, 40, 0)]])
        self.assertEqual([c["request_start"] for c in p["chunks"]], [2, 2])
        self.assertEqual(p["chunks"][1]["padded_local_cu_seq_lens"], [0, 18, 38])
        self.assertTrue(p["chunks"][1]["is_continuation"])
        self.assertEqual((p["num_decodes"], p["prefills"]), (2, [2, 3]))

    def test_no_metadata_is_a_plan_without_chunks(self):
        p = vllm.convert(request(ctx=[0, 0], q=[2, 2]), None, 128, None)
        self.assertEqual((p["chunks"], "empty_token_ranges" in p), ([], False))

    def test_empty_slices_become_ranges(self):
        c0 = ns(request_slice=slice(0, 1), token_slice=slice(0, 4), is_continuation=False, seq_lens=[64], starts=[0],
                cu_seq_lens=[0, 64])
        p = vllm.convert(request(ctx=[64, 0], q=[4, 4]), ns(chunks=[c0], empty_token_slices=[slice(4, 8)]), 128, None)
        self.assertEqual(p["empty_token_ranges"], [[4, 8]])


def segment(req, start, stop):
    """A RankSegment as vLLM 0a94d85a6 names its fields (pcp_manager.py)."""
    return ns(global_batch_req_idx=req, global_batch_slice=slice(start, stop), rank_local_batch_slice=slice(0, 0))


class VllmPcpConversion(unittest.TestCase):
    """PCPManager's RankSegments -> the plan's pcp.ranks[] (vllm_pcp.py)."""

    def test_rows_start_at_the_computed_tokens_plus_the_slice_offset(self):
        # PB-2 (spec §1.9): q=[32,1], N=[100,20], P=2; query_start_loc [0,32,33]. Rank 0 keeps
        # pieces 0 and 3 of request 0 and the decode; rank 1 has no segment: the dummy row.
        rows = vllm_pcp.rows_from_segments([[segment(0, 0, 8), segment(0, 24, 32), segment(1, 32, 33)], []],
                                           [100, 20], [0, 32, 33], [True, False])
        self.assertEqual([(w["request"], w["start"], w["len"], w["prefilling"]) for w in rows[0]],
                         [(0, 100, 8, True), (0, 124, 8, True), (1, 20, 1, False)])
        self.assertEqual(rows[1], [{"request": 0, "start": 100, "len": 0, "prefilling": True}])

    def test_the_default_is_prefilling_and_the_rank_request(self):
        req = request(version="pcp-b", ctx=[100, 20, 0], q=[32, 1, 1], pcp=2, prefilling=[])
        self.assertEqual(vllm_pcp.is_prefilling(req), [True, False, True])  # q <= 1 with context decodes
        self.assertEqual(vllm_pcp.is_prefilling(dict(req, prefilling=[1, 1, 0])), [True, True, False])
        rows = [{"request": 1, "start": 20, "len": 1, "prefilling": False},
                {"request": 0, "start": 100, "len": 8, "prefilling": True}]
        sub = vllm_pcp.rank_request(req, rows, 1)
        self.assertEqual((sub["ctx"], sub["q"]), ([20, 100], [1, 8]))
        self.assertEqual(schema.batch_split(sub), (1, [1]))  # the engine's split, not q <= 1

    def test_a_ranks_summary_counts_local_rows_under_dcp(self):
        plan = {"chunks": [{"num_context_tokens": 200, "num_local_context_tokens": 100},
                           {"num_context_tokens": 50, "num_local_context_tokens": 26}]}
        s = vllm_pcp.rank_summary([], 0, plan, object(), 16, dcp=True)
        self.assertEqual((s["gathered"], s["context_path"], s["tokens"]), ([100, 26], True, 16))
        self.assertEqual(vllm_pcp.rank_summary([], 0, {"chunks": []}, None, 0, dcp=False)["context_path"], False)

    @unittest.skipUnless(HAVE_TORCH, "the manager stand-in returns numpy arrays like vLLM's")
    def test_plan_is_the_selected_ranks_plan_with_every_ranks_rows(self):
        import numpy as np
        import torch

        calls = []

        class Manager:  # PCPManager's constructor and _build_batch_layout, with vLLM's names
            def __init__(self, pcp_world_size, pcp_rank, device, dcp_world_size=1, cp_interleave=1):
                self.pcp_world_size = pcp_world_size

            def _build_batch_layout(self, num_scheduled_tokens, num_computed_tokens, is_prefilling, query_start_loc_np):
                calls.append((num_scheduled_tokens.tolist(), num_computed_tokens.tolist(), is_prefilling.tolist(),
                              query_start_loc_np.tolist()))
                return [[segment(0, 0, 2), segment(0, 6, 8)], [segment(0, 2, 4), segment(0, 4, 6)]], [4, 4]

        def split(md, decode_threshold, require_uniform, treat_short_extends_as_decodes):
            self.assertEqual((decode_threshold, require_uniform, treat_short_extends_as_decodes), (1, True, False))
            return 0, md.num_reqs, 0, md.num_actual_tokens

        engine = ns(pcp=vllm_pcp.Pcp(torch, np, Manager, split))
        packed = lambda sub, ws: ({"chunks": [{"num_context_tokens": sum(sub["ctx"])}], "ctx": sub["ctx"]}, object())
        p = vllm_pcp.plan(engine, request(version="pcp-b", ctx=[100], q=[8], pcp=2, pcp_rank=1, tp=None), packed, 128)
        self.assertEqual(calls, [([8], [100], [True], [0, 8])])
        self.assertEqual(p["ctx"], [102, 104])  # rank 1's rows as its v6 requests
        self.assertEqual((p["pcp"]["size"], p["pcp"]["rank"], p["pcp"]["tp"]), (2, 1, 1))
        self.assertEqual([[w["start"] for w in r["rows"]] for r in p["pcp"]["ranks"]], [[100, 106], [102, 104]])
        self.assertEqual([r["gathered"] for r in p["pcp"]["ranks"]], [[206], [206]])


class VllmIndexerConversion(unittest.TestCase):
    """DeepseekV32IndexerPrefillChunkMetadata as vLLM 8bdc70ec7 names its fields."""

    def test_sub_slices_share_the_gather_and_dropped_chunks_are_empty_ranges(self):
        # One decode (q=1), then a long prefill cut into two query sub-slices, then a prefill with
        # no compressed K rows (seq < rho): its metadata is None.
        req = request(version="indexer-dsv4", ctx=[5, 100, 0], q=[1, 8, 2], workspace=1000)
        md0 = ns(cu_seq_lens=[0, 27], token_start=1, token_end=5, skip_kv_gather=False)
        md1 = ns(cu_seq_lens=[0, 27], token_start=5, token_end=9, skip_kv_gather=True)
        p = vllm_indexer.convert(req, 1000, [(slice(1, 2), slice(0, 4), md0), (slice(1, 2), slice(4, 8), md1),
                                             (slice(2, 3), slice(0, 2), None)])
        self.assertEqual([(c["token_start"], c["token_end"], c["is_continuation"]) for c in p["chunks"]],
                         [(0, 4, False), (4, 8, True)])  # batch token space shifted by the decode's token
        self.assertEqual(p["chunks"][0]["requests"], [{"request": 1, "start": 0, "len": 27}])
        self.assertEqual(p["empty_token_ranges"], [[8, 10]])
        self.assertEqual((p["num_decodes"], p["prefills"]), (1, [1, 2]))


@unittest.skipUnless(HAVE_TORCH, "the SGLang adapter runs SGLang's torch code")
class SglangConversion(unittest.TestCase):
    """A stand-in of ForwardBatchDeepSeekMHAMixin with SGLang's field names (0220422f)."""

    def test_rectangular_chunks_and_dcp_rows(self):
        import torch
        from chunkproof_adapters import sglang

        class Mixin:
            prefix_chunk_len = None

            def get_max_chunk_capacity(self):
                return 1 << 17

            def prepare_chunked_prefix_cache_info(self, device):
                self.prefix_chunk_len = self.get_max_chunk_capacity() // self.batch_size
                n = -(-max(self.extend_prefix_lens_cpu) // self.prefix_chunk_len)
                self.num_prefix_chunks = n
                starts = torch.arange(n).unsqueeze(1).expand(-1, self.batch_size) * self.prefix_chunk_len
                lens = (torch.min(self.extend_prefix_lens.unsqueeze(0), starts + self.prefix_chunk_len) - starts).clamp(min=0)
                self.prefix_chunk_starts, self.prefix_chunk_seq_lens = starts, lens
                self.prefix_chunk_cu_seq_lens = torch.cat([torch.zeros(n, 1, dtype=lens.dtype), lens.cumsum(1)], 1)

        def dcp_lens(lens, size, rank, start):
            first = start + torch.remainder(rank - start, size)
            return torch.clamp((start + lens - first + size - 1) // size, min=0)

        import sys
        sys.modules.setdefault("sglang.srt.mem_cache.memory_pool", ns(MLATokenToKVPool=type("P", (), {})))
        engine = sglang.Engine(torch, Mixin, dcp_lens, "stand-in")
        p = sglang.plan(engine, request(ctx=[10, 3], q=[2, 2], workspace=8, dcp=2, block=1))
        self.assertEqual([[(s["start"], s["len"]) for s in c["requests"]] for c in p["chunks"]],
                         [[(0, 4), (0, 3)], [(4, 4), (4, 0)], [(8, 2), (8, 0)]])
        self.assertEqual(p["chunks"][0]["requests"][1]["kept_per_rank"], [2, 1])
        self.assertEqual(p["chunks"][0]["requests"][1]["padded_local_len"], 2)


class Schema(unittest.TestCase):
    def test_local_lens_deal_interleave_stripes_round_robin(self):
        self.assertEqual(schema.dcp_local_seq_lens(65, 4, 1), [17, 16, 16, 16])
        self.assertEqual(schema.dcp_local_seq_lens(10, 2, 4), [6, 4])


if __name__ == "__main__":
    unittest.main()

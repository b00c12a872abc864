"""The vLLM adapter's sparse-indexer path (versions indexer-dsv32, indexer-dsv4; vLLM #36178,
spec vllm-pcp-and-sparse.md §5): vLLM's OWN `split_indexer_prefill_chunks` cuts the prefill rows,
and its own per-chunk builder (`build_prefill_chunk_metadata`, or before it the builder method
`DeepseekV32IndexerMetadataBuilder.build_one_prefill_chunk`) builds each chunk's metadata; the
adapter converts those DeepseekV32IndexerPrefillChunkMetadata objects into a chunkproof.plan/4.

The glue (the prefill half of `DeepseekV32IndexerMetadataBuilder.build`, a dozen lines, written
out here because `build` needs a GPU for its decode buffers): the batch split (leading q <= 1
requests are decodes, `decode_threshold = 1` without speculative decoding), the compressed
lengths `seq // compress_ratio` of `seq = ctx + q` (`seq_lens_cpu_upper_bound`, exact for
prefills), `max_logits_bytes = VLLM_SPARSE_INDEXER_MAX_LOGITS_MB * 2**20` (the case's
max_logits_mb, else vLLM's default 512), the K budget `get_max_prefill_buffer_size` (40 * mml)
unless the case gives workspace=, and the builder's rule that a chunk whose metadata is None
(no compressed K rows) is dropped: its tokens become an empty token range. Shims: the Triton
kernel that fills cu_seqlen_ks/ke and token_to_seq (no planning field) is a no-op; the per-chunk
method's `self` is a namespace with `device` (CPU) and `max_prefill_buffer_size`.

Checked against (docs/live.md): vLLM eb474549 (#36178, the chunker's first commit; per-chunk
metadata by the builder method, V3.2 only) and 8bdc70ec7 (2026-08-21, the last change to
indexer.py in the HollowMan6/vllm mirror; `build_prefill_chunk_metadata` with compression and
DCP).
"""

import inspect
import types

from . import protocol, schema

INDEXER = "vllm/v1/attention/backends/mla/indexer.py"
CHECKED_AGAINST = ["eb47454987452c7ee10253839b0c7289c3352c60", "8bdc70ec7b379279ec0152343239c2d50aced687"]
DEFAULT_MAX_LOGITS_MB = 512  # vllm/envs.py VLLM_SPARSE_INDEXER_MAX_LOGITS_MB
# The per-chunk builder, newest first: (names to cut out, how it is called).
SHAPES = [
    (["split_indexer_prefill_chunks", "get_max_prefill_buffer_size", "DeepseekV32IndexerPrefillChunkMetadata",
      "build_prefill_chunk_metadata"], "function"),
    (["split_indexer_prefill_chunks", "get_max_prefill_buffer_size", "kv_spans_from_batches",
      "DeepseekV32IndexerPrefillChunkMetadata", "DeepseekV32IndexerMetadataBuilder.build_one_prefill_chunk"], "method"),
]


class Indexer:
    """vLLM's indexer functions the adapter calls; `style` names the per-chunk builder's shape."""

    def __init__(self, torch, split, buffer_size, chunk, style):
        self.torch, self.split, self.buffer_size, self.chunk, self.style = torch, split, buffer_size, chunk, style


def load(loader, path, provided, torch):
    """Indexer from vLLM's indexer.py at `path`; loader.Missing when neither shape is there."""
    provided = dict(provided, _BUILD_PREFILL_CHUNK_METADATA_KERNEL=lambda *a, **k: None)
    missing = []
    for names, style in SHAPES:
        try:
            got = loader.load([(path, names)], provided, module_name="chunkproof_adapters.loaded_indexer")
        except loader.Missing as e:
            missing.append(str(e))
            continue
        chunk = got["build_prefill_chunk_metadata" if style == "function" else "build_one_prefill_chunk"]
        return Indexer(torch, got["split_indexer_prefill_chunks"], got["get_max_prefill_buffer_size"], chunk, style)
    raise loader.Missing(" and ".join(missing) + " (expected vLLM's sparse indexer chunker, #36178 or later)")


def from_module(torch, m):
    """Indexer from an imported vllm.v1.attention.backends.mla.indexer; None when it has no chunker."""
    if not hasattr(m, "split_indexer_prefill_chunks"):
        return None
    if hasattr(m, "build_prefill_chunk_metadata"):
        return Indexer(torch, m.split_indexer_prefill_chunks, m.get_max_prefill_buffer_size,
                       m.build_prefill_chunk_metadata, "function")
    return Indexer(torch, m.split_indexer_prefill_chunks, m.get_max_prefill_buffer_size,
                   m.DeepseekV32IndexerMetadataBuilder.build_one_prefill_chunk, "method")


def to_list(x):
    return x.tolist() if hasattr(x, "tolist") else list(x)


def convert(request, workspace, built):
    """[(req_slice, query_slice, metadata or None)] in vLLM's order -> chunkproof.plan/4.

    Read from each DeepseekV32IndexerPrefillChunkMetadata: `cu_seq_lens` (the rows' compressed K
    lengths, one span [0, n) per request of the slice: the K gather), `token_start`/`token_end`
    (batch token space; shifted to prefill token space by the decodes' tokens), `skip_kv_gather`
    (is_continuation: a later query sub-slice reuses the K rows the first gathered). A None
    metadata is a dropped chunk: its query sub-slice is an empty token range."""
    num_decodes, _ = schema.batch_split(request)
    base = sum(request["q"][:num_decodes])
    loc = schema.prefill_query_start_loc(request)
    chunks, empty = [], []
    for req_slice, query_slice, md in built:
        if md is None:
            first = loc[req_slice.start - num_decodes]
            empty.append([first + query_slice.start, first + query_slice.stop])
            continue
        cu = [int(v) for v in to_list(md.cu_seq_lens)]
        spans = [{"request": req_slice.start + k, "start": 0, "len": cu[k + 1] - cu[k]} for k in range(len(cu) - 1)]
        c = schema.chunk_object(request, spans, is_continuation=bool(md.skip_kv_gather))
        c["token_start"], c["token_end"] = int(md.token_start) - base, int(md.token_end) - base
        c["cu_seq_lens"] = cu
        chunks.append(c)
    return schema.plan_object(request, workspace, chunks, empty_token_ranges=empty or None)


def plan(ix, request):
    torch = ix.torch
    num_decodes, prefills = schema.batch_split(request)
    rho = request.get("compress_ratio") or 1
    if rho > 1 and ix.style == "method":  # #36178's builder: DeepSeek V3.2 only, no compressed K cache
        protocol.cannot_run(f"compress_ratio={rho}: this vLLM's indexer (build_one_prefill_chunk, before "
                            "DeepSeek V4) has no KV compression (expected a vLLM with build_prefill_chunk_metadata)")
    if request["workspace"] is not None:
        workspace = request["workspace"]
    else:
        workspace = ix.buffer_size(types.SimpleNamespace(model_config=types.SimpleNamespace(
            max_model_len=request["max_model_len"])))
    q = request["q"]
    seq = torch.tensor([c + k for c, k in zip(request["ctx"], q)], dtype=torch.int32)
    compressed = seq // rho if rho > 1 else seq
    qsl = [0]
    for k in q:
        qsl.append(qsl[-1] + k)
    qsl = torch.tensor(qsl, dtype=torch.int32)
    mb = request.get("max_logits_mb") or DEFAULT_MAX_LOGITS_MB
    specs = ix.split(compressed[num_decodes:], torch.diff(qsl[num_decodes:]), workspace, mb * 1024 * 1024,
                     request_offset=num_decodes)
    block_table = torch.zeros((len(q), 1), dtype=torch.int32)
    built = []
    for req_slice, query_slice in specs:
        if ix.style == "method":
            me = types.SimpleNamespace(device=torch.device("cpu"), max_prefill_buffer_size=workspace)
            md = ix.chunk(me, req_slice, query_slice, qsl, seq, block_table, skip_kv_gather=query_slice.start > 0)
        else:
            args = dict(start_idx=req_slice.start, end_idx=req_slice.stop, query_start_loc=qsl, query_start_loc_cpu=qsl,
                        uncompressed_seq_lens=seq, compressed_seq_lens=compressed,
                        compressed_seq_lens_cpu=compressed, block_table=block_table, compress_ratio=rho,
                        query_slice=query_slice, skip_kv_gather=query_slice.start > 0)
            accepted = inspect.signature(ix.chunk).parameters
            md = ix.chunk(**{k: v for k, v in args.items() if k in accepted})
        built.append((req_slice, query_slice, md))
    return convert(request, workspace, built)

"""The chunked-context MLA prefill as vLLM runs it, over an export, with one kernel set.

Per chunk (manifest "chunks"): gather the chunk's workspace rows from the paged latent cache
(DCP: every rank gathers its padded local rows, all-gather = concatenation, reorg keeps
`kept[r]` rows per rank and entry); per entry: up-project (kv_b_proj: W_UK, W_UV), attention of
the request's new tokens over the entry's rows -> (out, lse), merged into the request's running
context state (first piece copied). Then causal attention over the new tokens and the final
merge(context, suffix); tokens at or past prefill_tokens_with_context take the suffix alone.
This is the same order as the CPU reference (reference/mla/check.cpp). Layouts: out
[tokens][heads][v_dim], lse [tokens][heads] (natural log).
"""

import time

import torch


class KernelSet:
    """Base kernel set: torch gather and up-projection; subclasses give attention and merge."""

    name = "?"
    gather_name = "torch-index"
    # Optional production gather: gather_slots(runner, rank, request, local_start, n, dst)
    # writes the n rows a cp_gather_cache call would into dst[:n]. None: torch indexing.
    gather_slots = None
    attention_name = "?"
    merge_name = "?"
    compute_dtype = torch.bfloat16  # q/k/v dtype handed to attention (vLLM: bf16)
    # LSE conventions as data (issue 28): the base of the LSE the attention returns and the one
    # the merge assumes ("e" natural log, "2"), and the layouts at the kernel boundary
    # ("head-major" [heads][tokens] as FlashAttention returns it, "token-major"). The runner
    # passes LSEs on unconverted, as the engine does; compare's K-3 checks the pairing.
    lse_base = "e"
    merge_lse_base = "e"
    lse_layout = "token-major"
    merge_lse_layout = "token-major"
    # Zero-length key ranges: "kernel" hands them to the attention kernel (vLLM's varlen call
    # has zero-length segments), "skip" gives (0, -inf) without calling it.
    empty_keys = "kernel"
    # The merge follows the export's merge kernel record (emulated in torch) when True.
    follows_merge_kernel = False

    def __init__(self, device):
        self.device = torch.device(device)

    # --- gather: rows of the flat paged cache
    def gather_rows(self, cache_flat, index):
        """cache_flat [slots, row]; index: LongTensor of slot indices -> [len(index), row]."""
        return cache_flat.index_select(0, index)

    # --- up-projection (kv_b_proj): [n, L] x [L, N, D] -> [n, N, D] in the compute dtype
    def upproject(self, kv_c, w):
        L, N, D = w.shape
        y = torch.matmul(kv_c.to(self.compute_dtype), w.reshape(L, N * D).to(self.compute_dtype))
        return y.reshape(-1, N, D)

    def attention(self, q, k, v, scale, causal):  # -> (out [m, N, Dv], lse [m, N] f32)
        raise NotImplementedError

    def merge(self, p_out, p_lse, s_out, s_lse, flavour):  # -> (out, lse)
        raise NotImplementedError


class KernelOutputError(Exception):
    """A kernel set returned a tensor of the wrong shape or dtype (a finding, exit 1)."""


class Options:
    """Boundary options of a run (docs/kernels.md "Kernel contracts"): empty_lse replaces the
    LSE of zero-length key ranges ("+inf" as FA2 returns it, "-inf", "0" a finite LSE as in
    #49294, "nan"); v_layout "padded-view" pads v to the qk size and hands the merges the
    output sliced back as a view (head stride qk_dim), the call-site pattern of the 192-vs-128
    stride bug; merge_kernel overrides the export's merge kernel id."""

    def __init__(self, empty_lse=None, v_layout="dense", merge_kernel=None):
        self.empty_lse, self.v_layout, self.merge_kernel = empty_lse, v_layout, merge_kernel


_EMPTY_LSE = {"+inf": float("inf"), "-inf": float("-inf"), "0": 0.0, "nan": float("nan")}


def lse_class(t):
    if t.numel() == 0:
        return "none"
    if torch.isnan(t).all():
        return "nan"
    if torch.isposinf(t).all():
        return "+inf"
    if torch.isneginf(t).all():
        return "-inf"
    return "finite" if torch.isfinite(t).all() else "mixed"


def empty_attention(q, v):
    """No keys: (0, -inf), as the CPU reference's end_partial."""
    m, N, _ = q.shape
    return (
        torch.zeros(m, N, v.shape[-1], dtype=v.dtype, device=q.device),
        torch.full((m, N), float("-inf"), dtype=torch.float32, device=q.device),
    )


class Runner:
    def __init__(self, export, kset, opts=None):
        self.ex = export
        self.ks = kset
        self.opts = opts or Options()
        self.boundary = {"empty_key_calls": 0, "empty_probe": None, "v_layout": self.opts.v_layout,
                         "empty_lse": self.opts.empty_lse or "kernel"}
        dev = kset.device
        inp = export.inputs
        self.W = int(export.geometry["dcp"])
        self.I = int(export.geometry["interleave"])
        self.B = int(export.geometry["block"])
        cache = inp["kv_cache"].to(dev)  # [W, pages, B, row]
        self.pages = cache.shape[1]
        self.row = cache.shape[3]
        self.cache = cache.reshape(-1, self.row)
        self.bt = inp["block_table"].to(dev).long()  # [requests, vblocks], 0-padded
        self.q = inp["q"].to(dev)
        self.new_kv = inp["new_kv"].to(dev)
        self.w_uk = inp["w_uk"].to(dev)
        self.w_uv = inp["w_uv"].to(dev)
        s = export.shape
        self.L, self.N, self.Vd = int(s["kv_lora_rank"]), int(s["heads"]), int(s["v_dim"])
        self.scale = float(s["scale"])
        self.flavour = export.geometry["merge_flavour"]
        self.merge_kernel = self._merge_kernel_record()
        if hasattr(kset, "bind"):  # a set that loads the kernel the record names (vllm-triton)
            kset.bind(self.merge_kernel)
        elif kset.follows_merge_kernel:
            from .sets.merges import kernel_merge

            kset.merge = kernel_merge(self.merge_kernel)
            kset.merge_name = f"emulated {self.merge_kernel['id']}"
        self.reqs = export.m["requests"]
        self.T = int(export.m["prefill_tokens"])

    def _merge_kernel_record(self):
        from .sets.merges import FLAVOUR_KERNELS

        rec = dict(self.ex.geometry.get("merge_kernel") or FLAVOUR_KERNELS[self.flavour])
        want = self.opts.merge_kernel
        if want and want != rec.get("id"):
            known = getattr(self.ex, "merge_kernels", {})
            if want in FLAVOUR_KERNELS:
                rec = dict(FLAVOUR_KERNELS[want])
            elif want in known:
                rec = dict(known[want])
            else:
                raise KeyError(f"unknown merge kernel '{want}' (known: {', '.join(list(FLAVOUR_KERNELS) + list(known))})")
        return rec

    def stride_pairs(self):
        pairs = getattr(self.ks, "stride_pairs", None)
        return sorted(pairs if pairs is not None else getattr(self.ks.merge, "stride_pairs", set()))

    # Slot index of (rank, request, local index) in the flat cache; past the block table vLLM
    # reads the table's 0 padding, so do we (the CPU reference reads deterministic garbage).
    def slots(self, rank, request, local):
        vb = torch.div(local, self.B, rounding_mode="floor")
        ok = vb < self.bt.shape[1]
        page = torch.where(ok, self.bt[request].index_select(0, vb.clamp(max=self.bt.shape[1] - 1)), torch.zeros_like(vb))
        return (rank * self.pages + page) * self.B + local % self.B

    def position_slots(self, request, pos):  # global positions -> slots (DCP ownership, spec 3.1)
        rank = torch.div(pos, self.I, rounding_mode="floor") % self.W
        local = torch.div(pos, self.I * self.W, rounding_mode="floor") * self.I + pos % self.I
        return self.slots(rank, request, local)

    def _gather(self, rank, request, local_start, n, dst):
        if self.ks.gather_slots is not None:
            self.ks.gather_slots(self, rank, request, local_start, n, dst)
        else:
            local = torch.arange(local_start, local_start + n, device=dst.device)
            dst[:n] = self.ks.gather_rows(self.cache, self.slots(rank, request, local))

    def gather_chunk(self, ch, ws):
        dev = self.ks.device
        total = int(ch["total_tokens"])
        if self.W == 1:
            gather_kind = self.ex.geometry["gather"]
            for b, e in enumerate(ch["entries"]):
                first = e["start"] // self.B * self.B if gather_kind == "page_rounding" else e["start"]
                c0 = ch["cu_seq_lens"][b]
                self._gather(0, e["request"], first, e["len"], ws[c0 : c0 + e["len"]])
            return ws[:total]
        toks = int(ch["local_tokens"])
        G = torch.zeros(self.W, max(toks, 1), self.row, dtype=self.cache.dtype, device=dev)  # all-gather output
        for r in range(self.W):
            for b, e in enumerate(ch["entries"]):
                n = e["padded_local_len"]
                if n == 0:
                    continue
                c0 = ch["padded_local_cu"][b]
                self._gather(r, e["request"], e["local_start"], n, G[r, c0 : c0 + n])
        o = 0  # reorg: kept[r] rows of every rank, entry by entry; rows nothing writes stay stale
        for b, e in enumerate(ch["entries"]):
            for r in range(self.W):
                k = e["kept"][r]
                c0 = ch["padded_local_cu"][b]
                k = max(0, min(k, total - o, toks - c0))
                if k > 0:
                    ws[o : o + k] = G[r, c0 : c0 + k]
                o += e["kept"][r]
        return ws[:total]

    def kv(self, rows):
        kv_c, k_pe = rows[:, : self.L], rows[:, self.L :]
        k_nope = self.ks.upproject(kv_c, self.w_uk)
        v = self.ks.upproject(kv_c, self.w_uv)
        k = torch.cat([k_nope, k_pe.to(k_nope.dtype).unsqueeze(1).expand(-1, self.N, -1)], dim=-1)
        return k.contiguous(), v.contiguous()

    def attend(self, q, rows, causal):
        if rows.shape[0] == 0:
            return self.attend_empty(q, rows)
        k, v = self.kv(rows)
        return self.call_attention(q, k, v, causal)

    def call_attention(self, q, k, v, causal):
        q = q.to(self.ks.compute_dtype)
        what = "causal attention" if causal else "context attention"
        if self.opts.v_layout != "padded-view" or v.shape[-1] == q.shape[-1]:
            o, l = self.checked(what, *self.ks.attention(q, k, v, self.scale, causal), q.shape[0], (v.shape[-1],))
            return o.contiguous(), l  # as FlashAttention returns it: dense [tokens][heads][dim]
        Vd = v.shape[-1]
        o, l = self.ks.attention(q, k, torch.nn.functional.pad(v, (0, q.shape[-1] - Vd)), self.scale, causal)
        self.checked(what, o, l, q.shape[0], (q.shape[-1], Vd))
        if o.shape[-1] != q.shape[-1] or not o.is_contiguous():
            o = o.contiguous() if o.shape[-1] == q.shape[-1] else torch.nn.functional.pad(o, (0, q.shape[-1] - o.shape[-1]))
        return o[..., :Vd], l  # a view: head stride qk_dim, as the padded FA output sliced back

    def checked(self, what, o, l, m, dims):
        """A kernel set's (out, lse) against the shapes the pipeline needs: a finding naming the
        tensor instead of a broadcast error later (exit 1, docs/kernels.md)."""
        if not isinstance(o, torch.Tensor) or not isinstance(l, torch.Tensor):
            raise KernelOutputError(f"{self.ks.name} {what}: returned {type(o).__name__}, {type(l).__name__}, not tensors")
        if tuple(o.shape) not in [(m, self.N, d) for d in dims]:
            raise KernelOutputError(f"{self.ks.name} {what}: out has shape {tuple(o.shape)}, want ({m}, {self.N}, {dims[0]})")
        if tuple(l.shape) != (m, self.N):
            raise KernelOutputError(f"{self.ks.name} {what}: lse has shape {tuple(l.shape)}, want ({m}, {self.N})")
        if not o.dtype.is_floating_point or l.dtype != torch.float32:
            raise KernelOutputError(f"{self.ks.name} {what}: out dtype {o.dtype}, lse dtype {l.dtype} (want float, float32)")
        return o, l

    def merged(self, po, pl, so, sl):
        mo, ml = self.ks.merge(po, pl, so, sl, self.flavour)
        return self.checked("merge", mo, ml, po.shape[0], (po.shape[-1],))

    def attend_empty(self, q, rows):
        """A zero-length key range, as vLLM's varlen call has it: through the kernel (empty_keys
        "kernel"), its (out, lse) recorded once; then the empty_lse option if given."""
        self.boundary["empty_key_calls"] += 1
        v0 = torch.empty(0, self.N, self.Vd, dtype=self.ks.compute_dtype, device=q.device)
        o, l = empty_attention(q, v0)
        probe = {"by": self.ks.empty_keys}
        if self.ks.empty_keys == "kernel":
            try:
                k, v = self.kv(rows)
                o, l = self.call_attention(q, k, v, False)
                probe.update(lse=lse_class(l), out_max_abs=float(o.float().abs().nan_to_num(float("inf")).max()) if o.numel() else 0.0)
            except Exception as e:  # noqa: BLE001 - a kernel that refuses zero keys: record, use (0, -inf)
                probe.update(raised=f"{e.__class__.__name__}: {str(e)[:200]}", lse="-inf (runner)")
                o, l = empty_attention(q, v0)
        if self.boundary["empty_probe"] is None:
            self.boundary["empty_probe"] = probe
        if self.opts.empty_lse is not None:
            l = torch.full_like(l, _EMPTY_LSE[self.opts.empty_lse])
        return o, l

    def prefills(self):
        for r in self.ex.m["prefills"]:
            req = self.reqs[r]
            yield r, int(req["token0"]), int(req["q"]), int(req["ctx"])

    def run(self, mode):
        dev = self.ks.device
        t0 = time.perf_counter()
        state = {}  # request -> (out, lse) running context partial
        chunk_out = {}
        if mode == "chunked":
            ws = torch.zeros(max(int(self.ex.geometry["workspace_rows"]), 1), self.row, dtype=self.cache.dtype, device=dev)
            token0 = {r: t for r, t, _, _ in self.prefills()}
            qn_of = {r: n for r, _, n, _ in self.prefills()}
            for ci, ch in enumerate(self.ex.m["chunks"]):
                rows = self.gather_chunk(ch, ws)
                outs, lses = [], []
                for b, e in enumerate(ch["entries"]):
                    r = e["request"]
                    q = self.q[token0[r] : token0[r] + qn_of[r]]
                    o, l = self.attend(q, rows[ch["cu_seq_lens"][b] : ch["cu_seq_lens"][b + 1]], False)
                    outs.append(o)
                    lses.append(l)
                    state[r] = (o, l) if r not in state else self.merged(*state[r], o, l)
                if outs:
                    chunk_out[ci] = (torch.cat(outs), torch.cat(lses))
        else:  # unchunked: each request's whole context, fetched by ownership, one attention call
            for r, t, n, ctx in self.prefills():
                if ctx == 0:
                    continue
                rows = self.ks.gather_rows(self.cache, self.position_slots(r, torch.arange(ctx, device=dev)))
                state[r] = self.attend(self.q[t : t + n], rows, False)
        out = torch.zeros(self.T, self.N, self.Vd, dtype=torch.float32, device=dev)
        lse = torch.zeros(self.T, self.N, dtype=torch.float32, device=dev)
        ptwc = self.ex.m.get("prefill_tokens_with_context")
        for r, t, n, _ in self.prefills():
            so, sl = self.attend(self.q[t : t + n], self.new_kv[t : t + n], True)
            if r in state:
                po, pl = state[r]
            else:  # never in a chunk: (0, -inf), merged like the reference does
                po, pl = torch.zeros_like(so), torch.full_like(sl, float("-inf"))
            if self.merge_kernel.get("masks_empty_context") and int(self.reqs[r]["ctx"]) == 0:
                pl = torch.full_like(pl, float("-inf"))  # #49294: mask_empty_context_lse before the merge
            mo, ml = self.merged(po, pl, so, sl)
            mo, ml = mo.float(), ml.float()
            if ptwc is not None and mode == "chunked":
                for k in range(n):
                    if t + k >= ptwc:
                        mo[k], ml[k] = so[k].float(), sl[k].float()
            out[t : t + n] = mo
            lse[t : t + n] = ml
        if dev.type == "cuda":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        tensors = {"out": out, "lse": lse}
        for ci, (o, l) in chunk_out.items():
            tensors[f"chunk.{ci}.out"] = o.float()
            tensors[f"chunk.{ci}.lse"] = l.float()
        return tensors, seconds

#include "kernels/harness/pipeline.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "kernels/collective.h"
#include "kernels/mla_launch.h"
#include "kernels/runtime.h"
#include "reference/dcp/movement.h"
#include "reference/mla/math/all.h"

namespace cp::gpu {

const char* step_name(Step s) {
  switch (s) {
    case Step::gather: return "gather";
    case Step::all_gather: return "all-gather";
    case Step::reorg: return "reorg";
    case Step::up_project: return "up-projection";
    case Step::attention: return "attention";
    case Step::merge: return "merge";
  }
  return "?";
}

namespace {

using mla::ExactAcc;

struct Stage {
  const PipelineOptions& o;
  PipelineResult& r;
  Timer t;
  std::string name;
  void begin(const char* n) {
    if (!o.time_stages) return;
    name = n;
    t.start();
  }
  double end() {
    if (!o.time_stages) return 0;
    const double ms = t.stop_ms();
    r.stage_ms[name] += ms;
    return ms;
  }
};

// FNV-1a 64 over the raw bytes of device buffers (downloaded).
struct Span {
  const void* p;
  std::size_t bytes;
};
std::uint64_t hash_device(std::initializer_list<Span> spans) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  std::vector<unsigned char> host;
  for (const Span& sp : spans) {
    host.resize(sp.bytes);
    if (sp.bytes) download(host.data(), sp.p, sp.bytes);
    for (unsigned char b : host) h = (h ^ b) * 0x100000001b3ull;
    h = (h ^ 0xff) * 0x100000001b3ull;  // span separator
  }
  return h;
}

// A piece of keys for one request: rows [cu, cu + n) of a workspace buffer.
struct Piece {
  int work;
  std::int64_t cu, n;
  int entry = -1;  // the chunk entry it comes from (-1: unchunked or causal suffix)
};

struct Work {
  int request = 0, qn = 0;
  std::int64_t ctx = 0, token0 = 0, key0 = 0, keys = 0;
  DeviceBuffer<float> q, store, suf_store, mx;
  DeviceBuffer<std::uint32_t> mx_key;
  DeviceBuffer<ExactAcc> num, den;
  bool have_part = false;
  DeviceBuffer<float> part_out[2], part_lse[2];
  DeviceBuffer<std::uint16_t> suffix;  // multi-rank: the new tokens' own KV rows
};

// Grow-only reuse of a scratch buffer (no allocation inside a timed stage once it is big enough).
template <class T>
void ensure(DeviceBuffer<T>& b, std::size_t n) {
  if (b.size() < n) b = DeviceBuffer<T>(n);
}

}  // namespace

PipelineResult run_pipeline(const Case& c, const Plan& plan, const mla::Inputs& in, const PipelineOptions& o) {
  PipelineResult res;
  Stage st{o, res, {}, {}};
  Timer total;
  total.start();
  const mla::Shape& s = in.s;
  const int R = s.row(), N = s.N, Pn = s.Pn, Rr = s.Rr, Vd = s.Vd;
  const std::int64_t W = c.dcp;
  Communicator* const comm = o.comm;
  if (comm && (comm->ranks() != W || !o.chunked))
    throw std::logic_error("run_pipeline: a multi-rank run needs ranks == dcp and a chunked run");
  const int my_rank = comm ? comm->rank() : -1;

  // The paged cache: one device buffer per rank (multi-rank: only this rank's), block tables.
  std::vector<DeviceBuffer<std::uint16_t>> shards;
  std::vector<const std::uint16_t*> shard_ptrs;
  for (std::size_t r = 0; r < in.shard.size(); ++r) {
    if (comm && static_cast<int>(r) != my_rank) {
      shard_ptrs.push_back(nullptr);
      continue;
    }
    shards.emplace_back(in.shard[r]);
    shard_ptrs.push_back(shards.back().data());
  }
  DeviceBuffer<const std::uint16_t*> shard_dev(shard_ptrs);
  std::vector<std::int64_t> bt, bt_off, bt_len;
  for (const auto& t : in.block_table) {
    bt_off.push_back(static_cast<std::int64_t>(bt.size()));
    bt_len.push_back(static_cast<std::int64_t>(t.size()));
    bt.insert(bt.end(), t.begin(), t.end());
  }
  if (bt.empty()) bt.push_back(0);
  DeviceBuffer<std::int64_t> bt_dev(bt), bt_off_dev(bt_off), bt_len_dev(bt_len);
  CacheView cv{shard_dev.data(), bt_dev.data(), bt_off_dev.data(), bt_len_dev.data(), in.B, in.W, in.I, R, in.seed};
  DeviceBuffer<float> w_uk(in.w_uk), w_uv(in.w_uv);
  // --mode fast: W as bf16 bits for the matrix units (exact: the weights are bf16 values).
  auto bf16_bits = [&](const std::vector<float>& w) {
    std::vector<std::uint16_t> b(o.fast ? w.size() : 0);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = mla::float_to_bf16(w[i]);
    return b;
  };
  DeviceBuffer<std::uint16_t> w_uk_b(bf16_bits(in.w_uk)), w_uv_b(bf16_bits(in.w_uv));

  // Works, one per prefill, in prefill order.
  std::vector<Work> works(plan.prefills.size());
  std::vector<int> work_of(c.ctx.size(), -1);
  std::int64_t T = 0;
  for (std::size_t k = 0; k < plan.prefills.size(); ++k) {
    Work& w = works[k];
    w.request = plan.prefills[k];
    w.qn = static_cast<int>(c.q[static_cast<std::size_t>(w.request)]);
    w.ctx = c.ctx[static_cast<std::size_t>(w.request)];
    w.token0 = T;
    T += w.qn;
    work_of[static_cast<std::size_t>(w.request)] = static_cast<int>(k);
  }

  // The key pieces of every "chunk": the plan's chunks, or one per request (unchunked).
  struct ChunkRef {
    const Chunk* ch;  // null: unchunked request `work`
    int work;
    std::size_t index;
  };
  std::vector<ChunkRef> chunks;
  if (o.chunked)
    for (std::size_t ci = 0; ci < plan.chunks.size(); ++ci) chunks.push_back({&plan.chunks[ci], -1, ci});
  else
    for (std::size_t k = 0; k < works.size(); ++k)
      if (works[k].ctx > 0) chunks.push_back({nullptr, static_cast<int>(k), 0});
  for (const auto& cr : chunks) {
    if (cr.ch)
      for (std::size_t b = 0; b < cr.ch->entries.size(); ++b)
        works[static_cast<std::size_t>(work_of[static_cast<std::size_t>(cr.ch->entries[b].request)])].keys +=
            cr.ch->cu_seq_lens[b + 1] - cr.ch->cu_seq_lens[b];
    else
      works[static_cast<std::size_t>(cr.work)].keys += works[static_cast<std::size_t>(cr.work)].ctx;
  }
  for (auto& w : works) {
    const std::size_t th = static_cast<std::size_t>(w.qn) * N;
    w.q = DeviceBuffer<float>(in.query[static_cast<std::size_t>(w.request)]);
    w.store = DeviceBuffer<float>(static_cast<std::size_t>(std::max<std::int64_t>(w.keys, 1)) * th);
    w.suf_store = DeviceBuffer<float>(static_cast<std::size_t>(w.qn) * th);
    w.mx = DeviceBuffer<float>(th);
    w.mx_key = DeviceBuffer<std::uint32_t>(th);
    w.mx_key.zero();
    if (o.poison) {
      w.store.poison();
      w.suf_store.poison();
    }
    if (o.exact) {
      w.num = DeviceBuffer<ExactAcc>(th * static_cast<std::size_t>(Vd));
      w.den = DeviceBuffer<ExactAcc>(th);
      launch_init_acc(w.num.data(), static_cast<std::int64_t>(w.num.size()));
      launch_init_acc(w.den.data(), static_cast<std::int64_t>(w.den.size()));
    }
    for (int f = 0; f < 2; ++f) {
      w.part_out[f] = DeviceBuffer<float>(th * static_cast<std::size_t>(Vd));
      w.part_lse[f] = DeviceBuffer<float>(th);
    }
    if (comm) {  // the same rows the emulation gathers from the cache (in.fetch: same bits)
      std::vector<std::uint16_t> rows(static_cast<std::size_t>(w.qn) * R);
      for (int k = 0; k < w.qn; ++k) in.fetch(w.request, w.ctx + k, rows.data() + static_cast<std::size_t>(k) * R);
      w.suffix = DeviceBuffer<std::uint16_t>(rows);
    }
  }

  // Digests (o.digests): the pass and chunk the next steps belong to.
  int cur_pass = 0, cur_chunk = 0;
  auto digest = [&](Step step, int rank, std::initializer_list<Span> spans) {
    if (o.digests) res.digests.push_back({cur_pass, cur_chunk, step, rank, hash_device(spans)});
  };

  // Builds a chunk's workspace rows on the device: the version's gather (dcp=1), or per-rank
  // cp_gather_cache into separate buffers + all-gather + reorg (DCP). Returns the pieces.
  DeviceBuffer<std::uint16_t> ws;
  auto build = [&](const ChunkRef& cr, std::vector<Piece>& pieces) -> std::int64_t {
    pieces.clear();
    cur_chunk = cr.ch ? static_cast<int>(cr.index) : -2 - cr.work;
    st.begin("gather");
    std::int64_t rows_total = 0;
    if (!cr.ch) {
      const Work& w = works[static_cast<std::size_t>(cr.work)];
      rows_total = w.ctx;
      ensure(ws, static_cast<std::size_t>(std::max<std::int64_t>(rows_total, 1)) * R);
      if (o.poison) ws.poison();
      DeviceBuffer<GatherEntry> e(std::vector<GatherEntry>{{w.request, 0, 0, rows_total}});
      launch_gather_positions(cv, e.data(), 1, rows_total, ws.data());
      pieces.push_back({cr.work, 0, rows_total});
      st.end();
      return rows_total;
    }
    const Chunk& ch = *cr.ch;
    rows_total = ch.total_tokens();
    ensure(ws, static_cast<std::size_t>(std::max<std::int64_t>(rows_total, 1)) * R);
    const ChunkMovement mv = chunk_movement(plan, ch);  // the one description of the data path
    std::vector<GatherEntry> es;
    for (const auto& g : mv.gather) es.push_back({g.request, g.src, g.dst, g.len});
    DeviceBuffer<GatherEntry> ed(es);
    if (!mv.dcp) {
      if (o.poison) ws.poison();
      launch_gather_positions(cv, ed.data(), static_cast<int>(es.size()), rows_total, ws.data());
    } else {
      const std::int64_t toks = mv.local_rows;
      DeviceBuffer<std::uint16_t> G(static_cast<std::size_t>(mv.gathered_rows) * R);
      if (o.poison) G.poison();
      if (comm) {  // this rank's cp_gather_cache, then the all-gather through NCCL/RCCL
        DeviceBuffer<std::uint16_t> local(static_cast<std::size_t>(toks) * R);
        if (o.poison) local.poison();
        launch_gather_local(cv, my_rank, ed.data(), static_cast<int>(es.size()), toks, local.data());
        digest(Step::gather, my_rank, {{local.data(), local.bytes()}});
        st.end();
        const std::string what =
            "all-gather of chunk " + std::to_string(cr.index) + " (pass " + std::to_string(cur_pass) + ")";
        if (o.time_stages) {  // the ranks' skew first, apart, so the all-gather time is the transfer
          st.begin("rank skew (barrier)");
          comm->barrier("barrier before the " + what);
          st.end();
        }
        // Timed by events around the collective itself (kernels/multi/collective.hip), not by a
        // host-synchronised stage timer: the stage is the transfer.
        double ms = 0;
        if (toks > 0) comm->all_gather(local.data(), G.data(), local.bytes(), what, o.time_stages ? &ms : nullptr);
        if (o.time_stages) {
          res.stage_ms["all-gather"] += std::abs(ms);
          res.all_gathers.push_back(
              {cur_pass, static_cast<int>(cr.index), static_cast<std::int64_t>(local.bytes()), ms});
        }
        st.begin("reorg");
      } else {
        for (std::int64_t r = 0; r < W; ++r) {  // each rank gathers into its own buffer
          DeviceBuffer<std::uint16_t> local(static_cast<std::size_t>(toks) * R);
          if (o.poison) local.poison();
          launch_gather_local(cv, r, ed.data(), static_cast<int>(es.size()), toks, local.data());
          digest(Step::gather, static_cast<int>(r), {{local.data(), local.bytes()}});
          if (toks > 0) copy_d2d(G.data() + static_cast<std::size_t>(r * toks) * R, local.data(), local.bytes());
        }
      }
      digest(Step::all_gather, -1, {{G.data(), G.bytes()}});
      // Reorg (un-pad): the workspace's stale contents, then the kept rows.
      launch_fill_garbage(cv, 1000 + cr.index, rows_total, ws.data());
      std::vector<CopySegment> segs;
      std::int64_t maxc = 0;
      for (const auto& run : mv.reorg) {
        segs.push_back({run.src, run.dst, run.len});
        maxc = std::max(maxc, run.len);
      }
      DeviceBuffer<CopySegment> sd(segs);
      launch_copy_rows(sd.data(), static_cast<int>(segs.size()), maxc, R, G.data(), ws.data());
      digest(Step::reorg, -1, {{ws.data(), static_cast<std::size_t>(rows_total) * R * sizeof(std::uint16_t)}});
    }
    for (std::size_t b = 0; b < ch.entries.size(); ++b)
      pieces.push_back({work_of[static_cast<std::size_t>(ch.entries[b].request)], ch.cu_seq_lens[b],
                        ch.cu_seq_lens[b + 1] - ch.cu_seq_lens[b], static_cast<int>(b)});
    st.end();
    return rows_total;
  };

  // The causal suffix rows of a work: its new tokens' own latent KV.
  auto build_suffix = [&](const Work& w) {
    cur_chunk = -1;
    st.begin("gather");
    ensure(ws, static_cast<std::size_t>(std::max(w.qn, 1)) * R);
    if (o.poison) ws.poison();
    if (comm) {
      if (w.qn > 0) copy_d2d(ws.data(), w.suffix.data(), w.suffix.bytes());
    } else {
      DeviceBuffer<GatherEntry> e(std::vector<GatherEntry>{{w.request, w.ctx, 0, w.qn}});
      launch_gather_positions(cv, e.data(), 1, w.qn, ws.data());
    }
    st.end();
  };

  DeviceBuffer<float> kn, kpe, v;
  auto up = [&](std::int64_t rows, bool key) {
    if (key) {
      st.begin("up-project K");
      ensure(kn, static_cast<std::size_t>(std::max<std::int64_t>(rows, 1)) * N * Pn);
      ensure(kpe, static_cast<std::size_t>(std::max<std::int64_t>(rows, 1)) * std::max(Rr, 1));
      if (o.poison) {
        kn.poison();
        kpe.poison();
      }
      if (o.fast)
        launch_up_project_fast(ws.data(), rows, s.L, Rr, N, Pn, w_uk_b.data(), kn.data(), kpe.data());
      else
        launch_up_project(ws.data(), rows, s.L, Rr, N, Pn, w_uk.data(), kn.data(), kpe.data());
      digest(Step::up_project, -1,
             {{kn.data(), static_cast<std::size_t>(rows) * N * Pn * sizeof(float)},
              {kpe.data(), static_cast<std::size_t>(rows) * Rr * sizeof(float)}});
    } else {
      st.begin("up-project V");
      ensure(v, static_cast<std::size_t>(std::max<std::int64_t>(rows, 1)) * N * Vd);
      if (o.poison) v.poison();
      if (o.fast)
        launch_up_project_fast(ws.data(), rows, s.L, Rr, N, Vd, w_uv_b.data(), v.data(), nullptr);
      else
        launch_up_project(ws.data(), rows, s.L, Rr, N, Vd, w_uv.data(), v.data(), nullptr);
      digest(Step::up_project, -1, {{v.data(), static_cast<std::size_t>(rows) * N * Vd * sizeof(float)}});
    }
    st.end();
  };
  auto scores = [&](Work& w, const Piece& p, bool causal) {
    st.begin("scores + max");
    launch_scores(w.q.data(), w.qn, N, Pn, Rr, kn.data() + p.cu * N * Pn, kpe.data() + p.cu * Rr, p.n, causal, in.scale,
                  causal ? w.suf_store.data() : w.store.data(), causal ? 0 : w.key0, w.mx_key.data());
    {
      const std::size_t th = static_cast<std::size_t>(w.qn) * N;
      const float* sp = causal ? w.suf_store.data() : w.store.data() + static_cast<std::size_t>(w.key0) * th;
      digest(Step::attention, -1, {{sp, static_cast<std::size_t>(p.n) * th * sizeof(float)}});
    }
    if (!causal) w.key0 += p.n;
    st.end();
  };
  DeviceBuffer<ExactAcc> scratch;
  auto accumulate = [&](Work& w, const Piece& p, bool causal) {
    const float* store = causal ? w.suf_store.data() : w.store.data();
    const std::int64_t key0 = causal ? 0 : w.key0;
    const float* vp = v.data() + p.cu * N * Vd;
    if (o.exact) {
      st.begin("exact accumulate");
      const auto need = static_cast<std::size_t>(exact_scratch_size(p.n, w.qn, N, Vd));
      ensure(scratch, need);
      if (o.poison) scratch.poison();
      launch_exact_accumulate(store, key0, p.n, causal, w.qn, N, Vd, w.mx.data(), vp, scratch.data(), w.num.data(),
                              w.den.data());
      digest(Step::attention, -1, {{w.num.data(), w.num.bytes()}, {w.den.data(), w.den.bytes()}});
      st.end();
    }
    if (o.vllm) {
      st.begin("vllm partial");
      const std::size_t th = static_cast<std::size_t>(w.qn) * N;
      DeviceBuffer<float> po(th * Vd), pl(th);
      if (o.poison) {
        po.poison();
        pl.poison();
      }
      launch_vllm_partial(store, key0, p.n, causal, w.qn, N, Vd, vp, po.data(), pl.data());
      digest(Step::attention, -1, {{po.data(), po.bytes()}, {pl.data(), pl.bytes()}});
      if (o.keep_partials && !causal && p.entry >= 0)
        res.partials.push_back({cur_chunk, p.entry, w.request, w.qn, w.token0, po.get(), pl.get()});
      st.end();
      st.begin("merge");
      if (causal) {
        const std::size_t base = static_cast<std::size_t>(w.token0) * N * Vd;
        for (int f = 0; f < 2; ++f) {
          if (!w.have_part) {  // never in a chunk: (0, -inf)
            w.part_out[f].zero();
            std::vector<float> ninf(th, mla::neg_inf());
            w.part_lse[f].put(ninf);
          }
          DeviceBuffer<float> mo(th * Vd), ml(th);
          if (o.poison) {
            mo.poison();
            ml.poison();
          }
          launch_merge(f, w.qn, N, Vd, w.part_out[f].data(), w.part_lse[f].data(), po.data(), pl.data(), mo.data(),
                       ml.data());
          digest(Step::merge, -1, {{mo.data(), mo.bytes()}, {ml.data(), ml.bytes()}});
          auto host = mo.get();
          const auto lse = ml.get();  // [N][qn]
          for (int t = 0; t < w.qn; ++t)
            for (int h = 0; h < N; ++h)
              res.vllm_lse[f][static_cast<std::size_t>(w.token0 + t) * N + h] =
                  lse[static_cast<std::size_t>(h) * w.qn + t];
          if (plan.prefill_tokens_with_context) {
            const auto pof = po.get();
            for (int t = 0; t < w.qn; ++t)
              if (w.token0 + t >= *plan.prefill_tokens_with_context)
                std::copy(pof.begin() + static_cast<long>(t) * N * Vd, pof.begin() + static_cast<long>(t + 1) * N * Vd,
                          host.begin() + static_cast<long>(t) * N * Vd);
          }
          std::copy(host.begin(), host.end(), res.vllm[f].begin() + static_cast<long>(base));
        }
      } else {
        for (int f = 0; f < 2; ++f) {
          if (!w.have_part) {
            copy_d2d(w.part_out[f].data(), po.data(), po.bytes());
            copy_d2d(w.part_lse[f].data(), pl.data(), pl.bytes());
            continue;
          }
          DeviceBuffer<float> mo(th * Vd), ml(th);
          if (o.poison) {
            mo.poison();
            ml.poison();
          }
          launch_merge(f, w.qn, N, Vd, w.part_out[f].data(), w.part_lse[f].data(), po.data(), pl.data(), mo.data(),
                       ml.data());
          digest(Step::merge, -1, {{mo.data(), mo.bytes()}, {ml.data(), ml.bytes()}});
          w.part_out[f] = std::move(mo);
          w.part_lse[f] = std::move(ml);
        }
        w.have_part = true;
      }
      st.end();
    }
  };

  for (int f = 0; f < 2; ++f) {
    res.vllm[f].assign(static_cast<std::size_t>(T) * N * Vd, 0.0f);
    res.vllm_lse[f].assign(o.vllm ? static_cast<std::size_t>(T) * N : 0, 0.0f);
  }
  std::vector<Piece> pieces;
  if (o.exact) {
    // Pass 1: K, scores, global max over every attended key (context pieces + causal suffix).
    cur_pass = 1;
    for (const auto& cr : chunks) {
      const std::int64_t rows = build(cr, pieces);
      up(rows, true);
      for (const auto& p : pieces) scores(works[static_cast<std::size_t>(p.work)], p, false);
    }
    for (auto& w : works) {
      build_suffix(w);
      up(w.qn, true);
      scores(w, Piece{0, 0, w.qn}, true);
      launch_decode_max(w.mx_key.data(), static_cast<std::int64_t>(w.mx.size()), w.mx.data());
      w.key0 = 0;
    }
    // Pass 2: V, exact accumulation (and the vLLM partials from the same scores).
    cur_pass = 2;
    for (const auto& cr : chunks) {
      const std::int64_t rows = build(cr, pieces);
      up(rows, false);
      for (const auto& p : pieces) {
        Work& w = works[static_cast<std::size_t>(p.work)];
        accumulate(w, p, false);
        w.key0 += p.n;
      }
    }
    for (auto& w : works) {
      build_suffix(w);
      up(w.qn, false);
      accumulate(w, Piece{0, 0, w.qn}, true);
    }
    st.begin("normalize");
    res.exact.assign(static_cast<std::size_t>(T) * N * Vd, 0.0f);
    DeviceBuffer<std::uint32_t> flags(1);
    flags.zero();
    for (auto& w : works) {
      const std::size_t th = static_cast<std::size_t>(w.qn) * N;
      DeviceBuffer<float> out(th * Vd);
      if (o.poison) out.poison();
      launch_normalize(w.num.data(), w.den.data(), static_cast<std::int64_t>(th), Vd, out.data(), flags.data());
      const auto host = out.get();
      std::copy(host.begin(), host.end(), res.exact.begin() + static_cast<long>(w.token0) * N * Vd);
      if (o.exact_lse) {  // reference/mla/check.cpp's formula, on the host: the same bits
        if (res.exact_lse.empty()) res.exact_lse.assign(static_cast<std::size_t>(T) * N, 0.0f);
        const auto mx = w.mx.get();
        const auto den = w.den.get();
        for (std::size_t i = 0; i < th; ++i)  // i = t * N + h
          res.exact_lse[static_cast<std::size_t>(w.token0) * N + i] =
              static_cast<float>(static_cast<double>(mx[i]) + std::log(mla::to_double(den[i])));
      }
    }
    res.overflow = flags.get()[0] != 0u;
    st.end();
  } else if (o.vllm) {
    // The vLLM-style path alone: one pass per chunk (K, V, scores, partial, merge).
    for (const auto& cr : chunks) {
      const std::int64_t rows = build(cr, pieces);
      up(rows, true);
      up(rows, false);
      for (const auto& p : pieces) {
        Work& w = works[static_cast<std::size_t>(p.work)];
        scores(w, p, false);
        w.key0 -= p.n;
        accumulate(w, p, false);
        w.key0 += p.n;
      }
    }
    for (auto& w : works) {
      build_suffix(w);
      up(w.qn, true);
      up(w.qn, false);
      scores(w, Piece{0, 0, w.qn}, true);
      accumulate(w, Piece{0, 0, w.qn}, true);
    }
  }
  synchronize();
  res.total_ms = total.stop_ms();
  return res;
}

}  // namespace cp::gpu

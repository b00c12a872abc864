#include "kernels/harness/pipeline.h"

#include <algorithm>
#include <memory>

#include "kernels/mla_launch.h"
#include "kernels/runtime.h"
#include "reference/dcp/movement.h"
#include "reference/mla/math/all.h"

namespace cp::gpu {

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
  void end() {
    if (o.time_stages) r.stage_ms[name] += t.stop_ms();
  }
};

// A piece of keys for one request: rows [cu, cu + n) of a workspace buffer.
struct Piece {
  int work;
  std::int64_t cu, n;
};

struct Work {
  int request = 0, qn = 0;
  std::int64_t ctx = 0, token0 = 0, key0 = 0, keys = 0;
  DeviceBuffer<float> q, store, suf_store, mx;
  DeviceBuffer<std::uint32_t> mx_key;
  DeviceBuffer<ExactAcc> num, den;
  bool have_part = false;
  DeviceBuffer<float> part_out[2], part_lse[2];
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

  // The paged cache: one device buffer per rank, and the block tables.
  std::vector<DeviceBuffer<std::uint16_t>> shards;
  std::vector<const std::uint16_t*> shard_ptrs;
  for (const auto& sh : in.shard) {
    shards.emplace_back(sh);
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
  }

  // Builds a chunk's workspace rows on the device: the version's gather (dcp=1), or per-rank
  // cp_gather_cache into separate buffers + all-gather + reorg (DCP). Returns the pieces.
  DeviceBuffer<std::uint16_t> ws;
  auto build = [&](const ChunkRef& cr, std::vector<Piece>& pieces) -> std::int64_t {
    pieces.clear();
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
      for (std::int64_t r = 0; r < W; ++r) {  // each rank gathers into its own buffer
        DeviceBuffer<std::uint16_t> local(static_cast<std::size_t>(toks) * R);
        if (o.poison) local.poison();
        launch_gather_local(cv, r, ed.data(), static_cast<int>(es.size()), toks, local.data());
        if (toks > 0) copy_d2d(G.data() + static_cast<std::size_t>(r * toks) * R, local.data(), local.bytes());
      }
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
    }
    for (std::size_t b = 0; b < ch.entries.size(); ++b)
      pieces.push_back({work_of[static_cast<std::size_t>(ch.entries[b].request)], ch.cu_seq_lens[b],
                        ch.cu_seq_lens[b + 1] - ch.cu_seq_lens[b]});
    st.end();
    return rows_total;
  };

  // The causal suffix rows of a work: its new tokens' own latent KV.
  auto build_suffix = [&](const Work& w) {
    st.begin("gather");
    ensure(ws, static_cast<std::size_t>(std::max(w.qn, 1)) * R);
    if (o.poison) ws.poison();
    DeviceBuffer<GatherEntry> e(std::vector<GatherEntry>{{w.request, w.ctx, 0, w.qn}});
    launch_gather_positions(cv, e.data(), 1, w.qn, ws.data());
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
      launch_up_project(ws.data(), rows, s.L, Rr, N, Pn, w_uk.data(), kn.data(), kpe.data());
    } else {
      st.begin("up-project V");
      ensure(v, static_cast<std::size_t>(std::max<std::int64_t>(rows, 1)) * N * Vd);
      if (o.poison) v.poison();
      launch_up_project(ws.data(), rows, s.L, Rr, N, Vd, w_uv.data(), v.data(), nullptr);
    }
    st.end();
  };
  auto scores = [&](Work& w, const Piece& p, bool causal) {
    st.begin("scores + max");
    launch_scores(w.q.data(), w.qn, N, Pn, Rr, kn.data() + p.cu * N * Pn, kpe.data() + p.cu * Rr, p.n, causal, in.scale,
                  causal ? w.suf_store.data() : w.store.data(), causal ? 0 : w.key0, w.mx_key.data());
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

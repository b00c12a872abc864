// The GPU pipeline for one case (pipeline.h): the stage list of reference/mla/stages.h, one
// function per stage over an explicit State, walked pass by pass as the CPU's CheckRun walks it.
#include "kernels/harness/pipeline.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "kernels/collective.h"
#include "kernels/mla_launch.h"
#include "kernels/runtime.h"
#include "reference/dcp/movement.h"
#include "reference/mla/math/all.h"
#include "reference/mla/merge_rules.h"
#include "reference/mla/stages.h"
#include "reference/mla/token_groups.h"

namespace cp::gpu {

const char* step_name(Step s) { return s == Step::collective ? "all-gather" : mla::stage_name(s); }

namespace {

using mla::ExactAcc;
using mla::Pass;

// Host-synchronised stage timing (o.time_stages), accumulated per stage name.
struct StageTimer {
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
  // Local attention (Exchange::local_attend): the rank whose rows these are (-1: every other
  // movement); `last`: the entry's last rank piece (its cross-rank merge is complete). Multi-rank:
  // `holders` are the ranks with rows for the entry (the combine's operands, in rank order).
  int rank = -1;
  bool last = false;
  std::vector<int> holders;
};

// One token group's running state on the device (reference/mla/token_groups.h: a prefill, or one
// of a PCP context-reuse merged row's two groups).
struct Work {
  int request = 0, qn = 0, q_offset = 0;
  std::int64_t ctx = 0, token0 = 0, key0 = 0, keys = 0;
  std::int64_t lead_ctx = 0;  // the causal suffix's leading keys [lead_ctx, lead_ctx + lead_q)
  int lead_q = 0;
  std::int64_t suffix_rows() const { return lead_q + qn; }
  DeviceBuffer<float> q, store, suf_store, mx;
  DeviceBuffer<std::uint32_t> mx_key;
  DeviceBuffer<ExactAcc> num, den;
  bool have_part = false;
  DeviceBuffer<float> part_out[2], part_lse[2];
  DeviceBuffer<std::uint16_t> suffix;                   // multi-rank: the new tokens' own KV rows
  std::vector<DeviceBuffer<float>> pend_out, pend_lse;  // MergeOrder::suffix_first: the chunk partials
  // The local-shard family (Plan::local_attention, mla_pcp.py's order): [DCP rank] each rank's
  // running partial over its own chunk partials (qn, part_out, part_lse, have_part used; the
  // reference's ranks_). Multi-rank: only this rank's entry is folded. fold_rank: the DCP rank
  // a shard entry folds (its merge digests are that rank's step), -1 for a request's own state.
  std::vector<Work> shard;
  int fold_rank = -1;
};

// The key pieces of one "chunk": a plan chunk, or one unchunked request.
struct ChunkRef {
  const Chunk* ch;  // null: unchunked request `work`
  int work;
  std::size_t index;
};

// Grow-only reuse of a scratch buffer (no allocation inside a timed stage once it is big enough).
template <class T>
void ensure(DeviceBuffer<T>& b, std::size_t n) {
  if (b.size() < n) b = DeviceBuffer<T>(n);
}

std::size_t at_least_1(std::int64_t n) { return static_cast<std::size_t>(std::max<std::int64_t>(n, 1)); }

// Everything one run holds: the case on the device, the works, the stages' scratch, the result.
struct State {
  State(const Case& c_, const Plan& plan_, const mla::Inputs& in_, const PipelineOptions& o_, PipelineResult& res_)
      : c(c_),
        plan(plan_),
        in(in_),
        o(o_),
        res(res_),
        st{o_, res_, {}, {}},
        R(in_.s.row()),
        N(in_.s.N),
        Pn(in_.s.Pn),
        Rr(in_.s.Rr),
        Vd(in_.s.Vd),
        W(c_.dcp),
        comm(o_.comm),
        my_rank(o_.comm ? o_.comm->rank() : -1),
        cm(mla::context_merge(plan_)) {}

  const Case& c;
  const Plan& plan;
  const mla::Inputs& in;
  const PipelineOptions& o;
  PipelineResult& res;
  StageTimer st;
  const int R, N, Pn, Rr, Vd;
  const std::int64_t W;
  Communicator* const comm;
  const int my_rank;
  const mla::ContextMerge cm;  // the engine's merges (reference/mla/merge_rules.h)
  // The paged cache (one device buffer per rank; multi-rank: only this rank's) and the weights.
  std::vector<DeviceBuffer<std::uint16_t>> shards;
  DeviceBuffer<const std::uint16_t*> shard_dev;
  DeviceBuffer<std::int64_t> bt_dev, bt_off_dev, bt_len_dev;
  CacheView cv{};
  DeviceBuffer<float> w_uk, w_uv;
  DeviceBuffer<std::uint16_t> w_uk_b, w_uv_b;  // --mode fast: the weights as bf16 bits
  // Works, one per token group, in prefill order; the chunks of the run.
  std::vector<Work> works;
  mla::TokenGroups groups;
  std::int64_t T = 0;
  std::vector<ChunkRef> chunks;
  // The stages' buffers: the workspace rows and their pieces, K and V, the exact scratch.
  DeviceBuffer<std::uint16_t> ws;
  std::vector<Piece> pieces;
  DeviceBuffer<float> kn, kpe, v;
  DeviceBuffer<ExactAcc> scratch;
  // Digests (o.digests): the pass and chunk the next steps belong to.
  int cur_pass = 0, cur_chunk = 0;
  // Local attention: some chunk's movement is Exchange::local_attend; the entry's cross-rank
  // state (the ranks' partials merged so far, rank order).
  bool local_attention = false;
  DeviceBuffer<float> entry_out, entry_lse;
  bool entry_have = false;

  Work& work(int k) { return works[static_cast<std::size_t>(k)]; }
  void digest(Step step, int rank, std::initializer_list<Span> spans) {
    if (o.digests) res.digests.push_back({cur_pass, cur_chunk, step, rank, hash_device(spans)});
  }
};

// ---------------------------------------------------------------------------------------------
// Set-up: the case on the device, the works and the chunks.

void upload_cache(State& s) {
  std::vector<const std::uint16_t*> shard_ptrs;
  for (std::size_t r = 0; r < s.in.shard.size(); ++r) {
    if (s.comm && static_cast<int>(r) != s.my_rank) {
      shard_ptrs.push_back(nullptr);
      continue;
    }
    s.shards.emplace_back(s.in.shard[r]);
    shard_ptrs.push_back(s.shards.back().data());
  }
  s.shard_dev = DeviceBuffer<const std::uint16_t*>(shard_ptrs);
  std::vector<std::int64_t> bt, bt_off, bt_len;
  for (const auto& t : s.in.block_table) {
    bt_off.push_back(static_cast<std::int64_t>(bt.size()));
    bt_len.push_back(static_cast<std::int64_t>(t.size()));
    bt.insert(bt.end(), t.begin(), t.end());
  }
  if (bt.empty()) bt.push_back(0);
  s.bt_dev = DeviceBuffer<std::int64_t>(bt);
  s.bt_off_dev = DeviceBuffer<std::int64_t>(bt_off);
  s.bt_len_dev = DeviceBuffer<std::int64_t>(bt_len);
  s.cv = CacheView{
      s.shard_dev.data(), s.bt_dev.data(), s.bt_off_dev.data(), s.bt_len_dev.data(), s.in.B, s.in.W, s.in.I, s.R,
      s.in.seed};
  s.w_uk = DeviceBuffer<float>(s.in.w_uk);
  s.w_uv = DeviceBuffer<float>(s.in.w_uv);
  // --mode fast: W as bf16 bits for the matrix units (exact: the weights are bf16 values).
  auto bf16_bits = [&](const std::vector<float>& w) {
    std::vector<std::uint16_t> b(s.o.fast ? w.size() : 0);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = mla::float_to_bf16(w[i]);
    return b;
  };
  s.w_uk_b = DeviceBuffer<std::uint16_t>(bf16_bits(s.in.w_uk));
  s.w_uv_b = DeviceBuffer<std::uint16_t>(bf16_bits(s.in.w_uv));
}

// Works in prefill order (mla::token_groups, the CPU's groups), and the chunks: the plan's, or one
// per work (unchunked), with the number of keys each work attends.
void make_works(State& s) {
  s.groups = mla::token_groups(s.c, s.plan, s.o.chunked);
  s.works.resize(s.groups.groups.size());
  for (std::size_t k = 0; k < s.works.size(); ++k) {
    const mla::TokenGroup& g = s.groups.groups[k];
    Work& w = s.works[k];
    w.request = g.request;
    w.qn = g.qn;
    w.q_offset = g.q_offset;
    w.ctx = g.ctx;
    w.token0 = g.token0;
    w.lead_ctx = g.lead_ctx;
    w.lead_q = g.lead_q;
    s.T += w.qn;
  }
  if (s.o.chunked)
    for (std::size_t ci = 0; ci < s.plan.chunks.size(); ++ci) s.chunks.push_back({&s.plan.chunks[ci], -1, ci});
  else
    for (std::size_t k = 0; k < s.works.size(); ++k)
      if (s.works[k].ctx > 0) s.chunks.push_back({nullptr, static_cast<int>(k), 0});
  for (const auto& cr : s.chunks) {
    if (!cr.ch) {
      s.work(cr.work).keys += s.work(cr.work).ctx;
      continue;
    }
    const ChunkMovement mv = s.o.movement ? s.o.movement(s.plan, *cr.ch) : chunk_movement(s.plan, *cr.ch);
    s.local_attention = s.local_attention || mv.exchange == Exchange::local_attend;
    for (std::size_t b = 0; b < cr.ch->entries.size(); ++b) {
      std::int64_t keys = 0;  // the rows the entry attends (on every rank, under local attention)
      for (const AttendSpan& sp : attended_spans(mv, *cr.ch, b, s.W)) keys += sp.hi - sp.lo;
      for (int k : s.groups.served(*cr.ch, b)) s.work(k).keys += keys;
    }
  }
}

// The local-shard family: every DCP rank's running partial of a work (multi-rank: this rank's
// buffers only; the others fold on their own GPUs).
void allocate_shards(State& s, Work& w) {
  const std::size_t th = static_cast<std::size_t>(w.qn) * s.N;
  w.shard.resize(static_cast<std::size_t>(s.W));
  for (int r = 0; r < static_cast<int>(s.W); ++r) {
    Work& f = w.shard[static_cast<std::size_t>(r)];
    f.request = w.request;
    f.qn = w.qn;
    f.fold_rank = r;
    if (s.comm && r != s.my_rank) continue;
    for (int k = 0; k < 2; ++k) {
      f.part_out[k] = DeviceBuffer<float>(th * static_cast<std::size_t>(s.Vd));
      f.part_lse[k] = DeviceBuffer<float>(th);
      if (s.o.poison) {
        f.part_out[k].poison();
        f.part_lse[k].poison();
      }
    }
  }
}

// Every work's device buffers (scores store, max, exact sums, running partials), and the outputs.
void allocate_works(State& s) {
  for (auto& w : s.works) {
    const std::size_t th = static_cast<std::size_t>(w.qn) * s.N;
    const auto& query = s.in.query[static_cast<std::size_t>(w.request)];
    const std::size_t per = static_cast<std::size_t>(s.N) * (s.Pn + s.Rr);
    w.q = DeviceBuffer<float>(std::vector<float>(query.begin() + static_cast<long>(w.q_offset * per),
                                                 query.begin() + static_cast<long>((w.q_offset + w.qn) * per)));
    w.store = DeviceBuffer<float>(at_least_1(w.keys) * th);
    w.suf_store = DeviceBuffer<float>(static_cast<std::size_t>(w.suffix_rows()) * th);
    w.mx = DeviceBuffer<float>(th);
    w.mx_key = DeviceBuffer<std::uint32_t>(th);
    w.mx_key.zero();
    if (s.o.poison) {
      w.store.poison();
      w.suf_store.poison();
    }
    if (s.o.exact) {
      w.num = DeviceBuffer<ExactAcc>(th * static_cast<std::size_t>(s.Vd));
      w.den = DeviceBuffer<ExactAcc>(th);
      launch_init_acc(w.num.data(), static_cast<std::int64_t>(w.num.size()));
      launch_init_acc(w.den.data(), static_cast<std::int64_t>(w.den.size()));
    }
    for (int f = 0; f < 2; ++f) {
      w.part_out[f] = DeviceBuffer<float>(th * static_cast<std::size_t>(s.Vd));
      w.part_lse[f] = DeviceBuffer<float>(th);
    }
    if (s.plan.local_attention && s.o.chunked && s.o.vllm) allocate_shards(s, w);
    if (s.comm) {  // the same rows the emulation gathers from the cache (in.fetch: same bits)
      std::vector<std::uint16_t> rows(static_cast<std::size_t>(w.suffix_rows()) * s.R);
      for (int k = 0; k < w.suffix_rows(); ++k)
        s.in.fetch(w.request, k < w.lead_q ? w.lead_ctx + k : w.ctx + k - w.lead_q,
                   rows.data() + static_cast<std::size_t>(k) * s.R);
      w.suffix = DeviceBuffer<std::uint16_t>(rows);
    }
  }
  for (int f = 0; f < 2; ++f) {
    s.res.vllm[f].assign(static_cast<std::size_t>(s.T) * s.N * s.Vd, 0.0f);
    s.res.vllm_lse[f].assign(s.o.vllm ? static_cast<std::size_t>(s.T) * s.N : 0, 0.0f);
  }
}

// ---------------------------------------------------------------------------------------------
// The workspace stages: gather, collective, reorg.

// The gather entries of rank `rank` (the movement's gather runs it runs, clip_gather: what fits
// its send buffer), in send-row order (launch_gather_local finds a row's entry by binary
// search); `covered`: they write every send row (vLLM's shape), else the rest is garbage first.
std::vector<GatherEntry> rank_gathers(const ChunkMovement& mv, std::int64_t rank, bool& covered) {
  std::vector<GatherEntry> es;
  std::vector<std::uint8_t> written(static_cast<std::size_t>(mv.local_rows), 0);
  for (const auto& g0 : mv.gather) {
    if (!runs_on(mv, g0, rank)) continue;
    const CopyRun g = clip_gather(mv, g0);
    if (g.len > 0) es.push_back({g.request, g.src, g.dst, g.len});
    std::fill_n(written.begin() + g.dst, g.len, 1);
  }
  std::sort(es.begin(), es.end(), [](const GatherEntry& a, const GatherEntry& b) { return a.cu < b.cu; });
  covered = std::all_of(written.begin(), written.end(), [](std::uint8_t w) { return w != 0; });
  return es;
}

// gather, one rank (DCP): cp_gather_cache of this rank's local rows from its own shard; rows no
// run writes hold the send buffer's garbage (unsent_stream, the CPU's bits).
DeviceBuffer<std::uint16_t> gather_local(State& s, const ChunkRef& cr, const ChunkMovement& mv, int rank) {
  const std::int64_t toks = mv.local_rows;
  bool covered = false;
  const std::vector<GatherEntry> es = rank_gathers(mv, rank, covered);
  const DeviceBuffer<GatherEntry> ed(es);
  DeviceBuffer<std::uint16_t> local(static_cast<std::size_t>(toks) * s.R);
  if (s.o.poison) local.poison();
  if (!covered)
    launch_fill_garbage(s.cv, mla::unsent_stream(cr.index, static_cast<std::uint64_t>(rank)), toks, local.data());
  launch_gather_local(s.cv, rank, ed.data(), static_cast<int>(es.size()), toks, local.data());
  s.digest(Step::gather, rank, {{local.data(), local.bytes()}});
  return local;
}

// collective (multi-rank): the all-gather of this rank's local rows through NCCL/RCCL, timed
// by events around the collective itself (kernels/multi/collective.hip), the ranks' skew apart.
void collective(State& s, const ChunkRef& cr, const DeviceBuffer<std::uint16_t>& local, DeviceBuffer<std::uint16_t>& G,
                std::int64_t toks) {
  const std::string what =
      "all-gather of chunk " + std::to_string(cr.index) + " (pass " + std::to_string(s.cur_pass) + ")";
  if (s.o.time_stages) {  // the ranks' skew first, apart, so the all-gather time is the transfer
    s.st.begin("rank skew (barrier)");
    s.comm->barrier("barrier before the " + what);
    s.st.end();
  }
  double ms = 0;
  if (toks > 0) s.comm->all_gather(local.data(), G.data(), local.bytes(), what, s.o.time_stages ? &ms : nullptr);
  if (s.o.time_stages) {
    s.res.stage_ms["all-gather"] += std::abs(ms);
    s.res.all_gathers.push_back({s.cur_pass, static_cast<int>(cr.index), static_cast<std::int64_t>(local.bytes()), ms});
  }
}

// gather + collective (DCP): the all-gather's output in the movement's layout (rank-major, or
// SGLang's transpose: rank r's send row j at row j * W + r). Multi-rank: this rank's gather and
// the library's all-gather (rank-major; the transpose a copy after it); emulated: every rank's
// gather into its own buffer, then device copies. The timer runs as "gather" on entry;
// multi-rank, it leaves as "reorg".
DeviceBuffer<std::uint16_t> gather_and_collect(State& s, const ChunkRef& cr, const ChunkMovement& mv) {
  const std::int64_t toks = mv.local_rows;
  const bool interleaved = mv.layout == GatherLayout::row_interleaved;
  DeviceBuffer<std::uint16_t> G(static_cast<std::size_t>(toks * s.W) * s.R);
  if (s.o.poison) G.poison();
  // Rank r's rows [0, toks) of `from` (at row from_row0) to rows r, r + W, ... of G.
  auto transpose_in = [&](const std::uint16_t* from, std::int64_t from_row0, std::int64_t r) {
    const DeviceBuffer<CopySegment> sd(std::vector<CopySegment>{{from_row0, r, toks, s.W}});
    launch_copy_rows(sd.data(), 1, toks, s.R, from, G.data());
  };
  if (s.comm) {
    const DeviceBuffer<std::uint16_t> local = gather_local(s, cr, mv, s.my_rank);
    s.st.end();
    if (!interleaved) {
      collective(s, cr, local, G, toks);
    } else {
      DeviceBuffer<std::uint16_t> rm(G.size());
      collective(s, cr, local, rm, toks);
      for (std::int64_t r = 0; r < s.W; ++r) transpose_in(rm.data(), r * toks, r);
    }
    s.st.begin("reorg");
  } else {
    for (std::int64_t r = 0; r < s.W; ++r) {
      const DeviceBuffer<std::uint16_t> local = gather_local(s, cr, mv, static_cast<int>(r));
      if (toks == 0) continue;
      if (interleaved)
        transpose_in(local.data(), 0, r);
      else
        copy_d2d(G.data() + static_cast<std::size_t>(r * toks) * s.R, local.data(), local.bytes());
    }
  }
  s.digest(Step::collective, -1, {{G.data(), G.bytes()}});
  return G;
}

// reorg (un-pad): the workspace's stale contents, then the kept rows of the all-gather output.
void reorg(State& s, const ChunkRef& cr, const ChunkMovement& mv, const DeviceBuffer<std::uint16_t>& G,
           std::int64_t rows) {
  launch_fill_garbage(s.cv, 1000 + cr.index, rows, s.ws.data());
  std::vector<CopySegment> segs;
  std::int64_t maxc = 0;
  for (const auto& run0 : mv.reorg) {
    const CopyRun run = clip_keep(mv, run0);  // the rows inside both buffers
    if (run.len == 0) continue;
    segs.push_back({run.src, run.dst, run.len, run.dst_stride});
    maxc = std::max(maxc, run.len);
  }
  const DeviceBuffer<CopySegment> sd(segs);
  launch_copy_rows(sd.data(), static_cast<int>(segs.size()), maxc, s.R, G.data(), s.ws.data());
  s.digest(Step::reorg, -1, {{s.ws.data(), static_cast<std::size_t>(rows) * s.R * sizeof(std::uint16_t)}});
}

// The local-shard family's pieces of one entry (Plan::local_attention, mla_pcp.py's order): one
// piece per DCP rank 0..W-1, in rank order, holding every span of that rank (attended_spans lists
// them rank by rank), an empty piece for a rank without rows of the entry: the reference's
// local_ranks_entry runs a partial for every rank, (0, -inf) for an empty shard. Multi-rank:
// only this rank's piece (the others' fold on their own GPUs). Appends the copy segments.
void shard_pieces(State& s, int work, int entry, const std::vector<AttendSpan>& spans, std::vector<CopySegment>& segs,
                  std::int64_t& cursor, std::int64_t& maxc) {
  for (int r = 0; r < static_cast<int>(s.W); ++r) {
    if (s.comm && r != s.my_rank) continue;
    const std::int64_t cu = cursor;
    for (const AttendSpan& sp : spans) {
      if (sp.rank != r) continue;
      const std::int64_t n = sp.hi - sp.lo;
      segs.push_back({sp.lo, cursor, n, 1});
      maxc = std::max(maxc, n);
      cursor += n;
    }
    s.pieces.push_back({work, cu, cursor - cu, entry, r, r + 1 == static_cast<int>(s.W), {}});
  }
}

// Local attention (Exchange::local_attend, vLLM's PCP x DCP local shard): every rank gathers its
// own rows and attends them; nothing is exchanged before attention. The workspace holds, entry by
// entry and rank by rank, the rows each rank attends for the entry (attended_spans, in its order:
// the rows of one rank are one piece, so its vLLM-style partial is one softmax over them in the
// CPU's key order); an entry no rank has rows for is one empty piece ((0, -inf)). Emulated: every
// rank's gather into the rank-major buffer the CPU builds (gather_and_collect's emulation), then
// copies. Multi-rank: this rank's gather only, and only its own pieces hold rows; the pieces of
// the other ranks are empty here and their partials arrive with the cross-rank combine
// (combine_ranks). Returns the workspace rows.
std::int64_t local_workspace(State& s, const ChunkRef& cr, const ChunkMovement& mv) {
  const Chunk& ch = *cr.ch;
  const std::int64_t toks = mv.local_rows;
  DeviceBuffer<std::uint16_t> G(at_least_1(toks * s.W) * s.R);
  if (s.o.poison) G.poison();
  for (std::int64_t r = 0; r < s.W; ++r) {
    if (s.comm && r != s.my_rank) continue;
    const DeviceBuffer<std::uint16_t> local = gather_local(s, cr, mv, static_cast<int>(r));
    if (toks > 0) copy_d2d(G.data() + static_cast<std::size_t>(r * toks) * s.R, local.data(), local.bytes());
  }
  std::vector<CopySegment> segs;
  std::int64_t cursor = 0, maxc = 0;
  for (std::size_t b = 0; b < ch.entries.size(); ++b) {
    const int work = s.groups.first[static_cast<std::size_t>(ch.entries[b].request)];  // DCP: no merged rows
    const std::vector<AttendSpan> spans = attended_spans(mv, ch, b, s.W);
    if (s.plan.local_attention) {
      shard_pieces(s, work, static_cast<int>(b), spans, segs, cursor, maxc);
      continue;
    }
    std::vector<int> holders;
    for (const AttendSpan& sp : spans)
      if (holders.empty() || holders.back() != sp.rank) holders.push_back(sp.rank);
    const std::size_t first = s.pieces.size();
    if (spans.empty()) s.pieces.push_back({work, cursor, 0, static_cast<int>(b), 0, true, {}});
    for (std::size_t i = 0; i < spans.size();) {
      const int rank = spans[i].rank;
      const std::int64_t cu = cursor;
      for (; i < spans.size() && spans[i].rank == rank; ++i) {
        const std::int64_t n = spans[i].hi - spans[i].lo;
        if (s.comm && rank != s.my_rank) continue;  // another rank's rows: not on this GPU
        segs.push_back({spans[i].lo, cursor, n, 1});
        maxc = std::max(maxc, n);
        cursor += n;
      }
      s.pieces.push_back({work, cu, cursor - cu, static_cast<int>(b), rank, false, holders});
    }
    s.pieces.back().last = true;
    if (s.comm)  // every rank takes part in the entry's combine: one piece per holder
      for (std::size_t k = first; k < s.pieces.size(); ++k) s.pieces[k].holders = holders;
  }
  ensure(s.ws, at_least_1(cursor) * s.R);
  if (s.o.poison) s.ws.poison();
  const DeviceBuffer<CopySegment> sd(segs);
  launch_copy_rows(sd.data(), static_cast<int>(segs.size()), maxc, s.R, G.data(), s.ws.data());
  s.digest(Step::collective, s.comm ? s.my_rank : -1, {{G.data(), G.bytes()}});
  return cursor;
}

// A chunk's workspace rows on the device (the version's gather at dcp=1; gather, collective and
// reorg under DCP) and its pieces in s.pieces. Returns the rows.
std::int64_t workspace(State& s, const ChunkRef& cr) {
  s.pieces.clear();
  s.cur_chunk = cr.ch ? static_cast<int>(cr.index) : -2 - cr.work;
  s.st.begin("gather");
  if (!cr.ch) {
    const Work& w = s.work(cr.work);
    ensure(s.ws, at_least_1(w.ctx) * s.R);
    if (s.o.poison) s.ws.poison();
    const DeviceBuffer<GatherEntry> e(std::vector<GatherEntry>{{w.request, 0, 0, w.ctx}});
    launch_gather_positions(s.cv, e.data(), 1, w.ctx, s.ws.data());
    s.pieces.push_back({cr.work, 0, w.ctx});
    s.st.end();
    return w.ctx;
  }
  const Chunk& ch = *cr.ch;
  const std::int64_t rows = ch.total_tokens();
  ensure(s.ws, at_least_1(rows) * s.R);
  if (!s.plan.version_info().family->spans_are_context)
    throw std::invalid_argument("the GPU pipeline attends context spans; the " +
                                std::string(s.plan.version_info().family->name) + " family's spans are not context");
  const ChunkMovement mv = s.o.movement ? s.o.movement(s.plan, ch) : chunk_movement(s.plan, ch);  // the data path
  if (mv.exchange == Exchange::local_attend) {
    const std::int64_t attended = local_workspace(s, cr, mv);
    s.st.end();
    return attended;
  }
  if (!mv.dcp) {
    std::vector<GatherEntry> es;
    for (const auto& g : mv.gather) es.push_back({g.request, g.src, g.dst, g.len});
    const DeviceBuffer<GatherEntry> ed(es);
    if (s.o.poison) s.ws.poison();
    launch_gather_positions(s.cv, ed.data(), static_cast<int>(es.size()), rows, s.ws.data());
  } else {
    const DeviceBuffer<std::uint16_t> G = gather_and_collect(s, cr, mv);
    reorg(s, cr, mv, G, rows);
  }
  for (std::size_t b = 0; b < ch.entries.size(); ++b)
    for (int k : s.groups.served(ch, b))  // a merged row's shared chunk: both groups, its tail: b's
      s.pieces.push_back({k, ch.cu_seq_lens[b], ch.cu_seq_lens[b + 1] - ch.cu_seq_lens[b], static_cast<int>(b)});
  s.st.end();
  return rows;
}

// gather of a work's causal suffix rows: its leading keys (a merged row's a tokens), then its new
// tokens' own latent KV.
void gather_suffix(State& s, const Work& w) {
  s.cur_chunk = -1;
  s.st.begin("gather");
  const std::int64_t rows = w.suffix_rows();
  ensure(s.ws, at_least_1(rows) * s.R);
  if (s.o.poison) s.ws.poison();
  if (s.comm) {
    if (rows > 0) copy_d2d(s.ws.data(), w.suffix.data(), w.suffix.bytes());
  } else {
    std::vector<GatherEntry> es;
    if (w.lead_q > 0) es.push_back({w.request, w.lead_ctx, 0, w.lead_q});
    es.push_back({w.request, w.ctx, w.lead_q, w.qn});
    const DeviceBuffer<GatherEntry> e(es);
    launch_gather_positions(s.cv, e.data(), static_cast<int>(es.size()), rows, s.ws.data());
  }
  s.st.end();
}

// ---------------------------------------------------------------------------------------------
// The compute stages: up-projection, scores, accumulate, merge, normalize.

// up-projection of the workspace's first `rows` rows: K (k_nope and k_pe) or V.
void up_project(State& s, std::int64_t rows, bool key) {
  const int L = s.in.s.L;
  if (key) {
    s.st.begin("up-project K");
    ensure(s.kn, at_least_1(rows) * s.N * s.Pn);
    ensure(s.kpe, at_least_1(rows) * static_cast<std::size_t>(std::max(s.Rr, 1)));
    if (s.o.poison) {
      s.kn.poison();
      s.kpe.poison();
    }
    if (s.o.fast)
      launch_up_project_fast(s.ws.data(), rows, L, s.Rr, s.N, s.Pn, s.w_uk_b.data(), s.kn.data(), s.kpe.data());
    else
      launch_up_project(s.ws.data(), rows, L, s.Rr, s.N, s.Pn, s.w_uk.data(), s.kn.data(), s.kpe.data());
    s.digest(Step::up_project, -1,
             {{s.kn.data(), static_cast<std::size_t>(rows) * s.N * s.Pn * sizeof(float)},
              {s.kpe.data(), static_cast<std::size_t>(rows) * s.Rr * sizeof(float)}});
  } else {
    s.st.begin("up-project V");
    ensure(s.v, at_least_1(rows) * s.N * s.Vd);
    if (s.o.poison) s.v.poison();
    if (s.o.fast)
      launch_up_project_fast(s.ws.data(), rows, L, s.Rr, s.N, s.Vd, s.w_uv_b.data(), s.v.data(), nullptr);
    else
      launch_up_project(s.ws.data(), rows, L, s.Rr, s.N, s.Vd, s.w_uv.data(), s.v.data(), nullptr);
    s.digest(Step::up_project, -1, {{s.v.data(), static_cast<std::size_t>(rows) * s.N * s.Vd * sizeof(float)}});
  }
  s.st.end();
}

// The rank a piece's digests belong to: the local-shard family's pieces are one DCP rank's steps
// (multi-rank: only this rank's run here), every other piece's steps are every rank's (-1).
int digest_rank(const State& s, const Piece& p) { return s.plan.local_attention ? p.rank : -1; }

// scores of a piece into the work's store (context: at key0; causal suffix: its own store), and
// the running global row max.
void scores(State& s, Work& w, const Piece& p, bool causal) {
  s.st.begin("scores + max");
  launch_scores(w.q.data(), w.qn, s.N, s.Pn, s.Rr, s.kn.data() + p.cu * s.N * s.Pn, s.kpe.data() + p.cu * s.Rr, p.n,
                causal, s.in.scale, causal ? w.suf_store.data() : w.store.data(), causal ? 0 : w.key0, w.mx_key.data());
  const std::size_t th = static_cast<std::size_t>(w.qn) * s.N;
  const float* sp = causal ? w.suf_store.data() : w.store.data() + static_cast<std::size_t>(w.key0) * th;
  s.digest(Step::scores, digest_rank(s, p), {{sp, static_cast<std::size_t>(p.n) * th * sizeof(float)}});
  s.st.end();
}

// accumulate a piece: the exact sums (o.exact) and the vLLM-style partial (o.vllm) into po/pl.
void accumulate(State& s, Work& w, const Piece& p, bool causal, DeviceBuffer<float>& po, DeviceBuffer<float>& pl) {
  const float* store = causal ? w.suf_store.data() : w.store.data();
  const std::int64_t key0 = causal ? 0 : w.key0;
  const float* vp = s.v.data() + p.cu * s.N * s.Vd;
  if (s.o.exact) {
    s.st.begin("exact accumulate");
    ensure(s.scratch, static_cast<std::size_t>(exact_scratch_size(p.n, w.qn, s.N, s.Vd)));
    if (s.o.poison) s.scratch.poison();
    launch_exact_accumulate(store, key0, p.n, causal, w.qn, s.N, s.Vd, w.mx.data(), vp, s.scratch.data(), w.num.data(),
                            w.den.data());
    s.digest(Step::accumulate, digest_rank(s, p), {{w.num.data(), w.num.bytes()}, {w.den.data(), w.den.bytes()}});
    s.st.end();
  }
  if (!s.o.vllm) return;
  s.st.begin("vllm partial");
  const std::size_t th = static_cast<std::size_t>(w.qn) * s.N;
  po = DeviceBuffer<float>(th * s.Vd);
  pl = DeviceBuffer<float>(th);
  if (s.o.poison) {
    po.poison();
    pl.poison();
  }
  launch_vllm_partial(store, key0, p.n, causal, w.qn, s.N, s.Vd, vp, po.data(), pl.data());
  s.digest(Step::accumulate, digest_rank(s, p), {{po.data(), po.bytes()}, {pl.data(), pl.bytes()}});
  // (The local-shard family's rank partials are not the reference's entry partials: none kept.)
  if (s.o.keep_partials && !causal && p.entry >= 0 && !s.plan.local_attention)
    s.res.partials.push_back({s.cur_chunk, p.entry, w.request, w.qn, w.token0, po.get(), pl.get()});
  s.st.end();
}

// merge_attn_states(prefix, suffix) of qn tokens in flavour f under `rule`, into fresh (poisoned)
// device buffers: the one merge launch of every loop here.
std::pair<DeviceBuffer<float>, DeviceBuffer<float>> merged(State& s, int f, int qn, const float* p_out,
                                                           const float* p_lse, const float* s_out, const float* s_lse,
                                                           mla::MergeRule rule) {
  const std::size_t th = static_cast<std::size_t>(qn) * s.N;
  DeviceBuffer<float> mo(th * s.Vd), ml(th);
  if (s.o.poison) {
    mo.poison();
    ml.poison();
  }
  launch_merge(f, qn, s.N, s.Vd, p_out, p_lse, s_out, s_lse, mo.data(), ml.data(), rule);
  return {std::move(mo), std::move(ml)};
}

// merge_attn_states(the work's running partial, (po, pl)) in flavour f, on the device.
std::pair<DeviceBuffer<float>, DeviceBuffer<float>> merge_states(State& s, int f, const Work& w,
                                                                 const DeviceBuffer<float>& po,
                                                                 const DeviceBuffer<float>& pl) {
  auto m = merged(s, f, w.qn, w.part_out[f].data(), w.part_lse[f].data(), po.data(), pl.data(), s.cm.rule[f]);
  s.digest(Step::merge, w.fold_rank, {{m.first.data(), m.first.bytes()}, {m.second.data(), m.second.bytes()}});
  return m;
}

// The final merge's outputs of a work in flavour f: lse, and out honouring
// prefill_tokens_with_context (S4/S5: tokens at or past it take the suffix alone).
void write_output(State& s, const Work& w, int f, const DeviceBuffer<float>& po, const DeviceBuffer<float>& mo,
                  const DeviceBuffer<float>& ml) {
  const std::size_t ts = static_cast<std::size_t>(s.N) * s.Vd;  // floats per token
  auto host = mo.get();
  const auto lse = ml.get();  // [N][qn]
  for (int t = 0; t < w.qn; ++t)
    for (int h = 0; h < s.N; ++h)
      s.res.vllm_lse[f][static_cast<std::size_t>(w.token0 + t) * s.N + h] = lse[static_cast<std::size_t>(h) * w.qn + t];
  if (s.plan.prefill_tokens_with_context) {
    const auto pof = po.get();
    for (int t = 0; t < w.qn; ++t)
      if (w.token0 + t >= *s.plan.prefill_tokens_with_context)
        std::copy(pof.begin() + static_cast<long>(t * ts), pof.begin() + static_cast<long>((t + 1) * ts),
                  host.begin() + static_cast<long>(t * ts));
  }
  std::copy(host.begin(), host.end(), s.res.vllm[f].begin() + static_cast<long>(w.token0 * ts));
}

// merge, per flavour: a context piece into the work's running partial (the first one copied,
// later ones merged, in plan order); the causal suffix with that partial (never in a chunk:
// (0, -inf)) into the outputs.
DeviceBuffer<float> device_copy(const DeviceBuffer<float>& b) {
  DeviceBuffer<float> c(b.size());
  if (b.size()) copy_d2d(c.data(), b.data(), b.bytes());
  return c;
}

// The engine's loop ends from the causal suffix (reference/mla/check.cpp final_merge): SGLang's
// running state starts as the suffix and every kept chunk partial is merged into it (chunk as
// prefix); TensorRT-LLM's op 2 copies the suffix when no loop had keys.
void merge_from_suffix(State& s, Work& w, const DeviceBuffer<float>& po, const DeviceBuffer<float>& pl) {
  for (int f = 0; f < 2; ++f) {
    DeviceBuffer<float> ro = device_copy(po), rl = device_copy(pl);
    for (std::size_t k = 0; k < w.pend_out.size(); ++k)
      std::tie(ro, rl) =
          merged(s, f, w.qn, w.pend_out[k].data(), w.pend_lse[k].data(), ro.data(), rl.data(), s.cm.rule[f]);
    write_output(s, w, f, po, ro, rl);
  }
}

void merge(State& s, Work& w, const DeviceBuffer<float>& po, const DeviceBuffer<float>& pl, bool causal,
           std::int64_t rows) {
  s.st.begin("merge");
  if (!causal && s.cm.skip_empty && rows == 0) {  // TensorRT-LLM's op 0: not merged
    s.st.end();
    return;
  }
  if (!causal && s.cm.suffix_first) {  // SGLang: kept, merged into the suffix at the end
    w.pend_out.push_back(device_copy(po));
    w.pend_lse.push_back(device_copy(pl));
    w.have_part = true;
    s.st.end();
    return;
  }
  if (causal && (s.cm.suffix_first || (s.cm.skip_empty && !w.have_part))) {
    merge_from_suffix(s, w, po, pl);
    s.st.end();
    return;
  }
  for (int f = 0; f < 2; ++f) {
    if (!w.have_part && !causal) {
      copy_d2d(w.part_out[f].data(), po.data(), po.bytes());
      copy_d2d(w.part_lse[f].data(), pl.data(), pl.bytes());
      continue;
    }
    if (!w.have_part) {
      w.part_out[f].zero();
      w.part_lse[f].put(std::vector<float>(static_cast<std::size_t>(w.qn) * s.N, mla::neg_inf()));
    }
    auto [mo, ml] = merge_states(s, f, w, po, pl);
    if (causal) {
      write_output(s, w, f, po, mo, ml);
    } else {
      w.part_out[f] = std::move(mo);
      w.part_lse[f] = std::move(ml);
    }
  }
  if (!causal) w.have_part = true;
  s.st.end();
}

// normalize: the exact path's outputs (and, with exact_lse, the natural-log LSE on the host with
// reference/mla/check.cpp's formula: the same bits).
void normalize(State& s) {
  s.st.begin("normalize");
  s.res.exact.assign(static_cast<std::size_t>(s.T) * s.N * s.Vd, 0.0f);
  DeviceBuffer<std::uint32_t> flags(1);
  flags.zero();
  for (auto& w : s.works) {
    const std::size_t th = static_cast<std::size_t>(w.qn) * s.N;
    DeviceBuffer<float> out(th * s.Vd);
    if (s.o.poison) out.poison();
    launch_normalize(w.num.data(), w.den.data(), static_cast<std::int64_t>(th), s.Vd, out.data(), flags.data());
    const auto host = out.get();
    std::copy(host.begin(), host.end(), s.res.exact.begin() + static_cast<long>(w.token0) * s.N * s.Vd);
    if (!s.o.exact_lse) continue;
    if (s.res.exact_lse.empty()) s.res.exact_lse.assign(static_cast<std::size_t>(s.T) * s.N, 0.0f);
    const auto mx = w.mx.get();
    const auto den = w.den.get();
    for (std::size_t i = 0; i < th; ++i)  // i = t * N + h
      s.res.exact_lse[static_cast<std::size_t>(w.token0) * s.N + i] =
          static_cast<float>(static_cast<double>(mx[i]) + std::log(mla::to_double(den[i])));
  }
  s.res.overflow = flags.get()[0] != 0u;
  s.st.end();
}

// ---------------------------------------------------------------------------------------------
// The passes (mla::passes): every chunk, then every work's causal suffix.

// The pass's stages on one piece of keys, in stage order.
void attend_piece(State& s, const Pass& pass, Work& w, const Piece& p, bool causal) {
  if (pass.scores) scores(s, w, p, causal);
  if (pass.accumulate) {
    DeviceBuffer<float> po, pl;
    accumulate(s, w, p, causal, po, pl);
    if (pass.merge && s.o.vllm) merge(s, w, po, pl, causal, p.n);
  }
  if (!causal) w.key0 += p.n;
}

// Multi-rank local attention: the partial of piece p's rank, from that rank (an all-gather of
// every rank's partial for the piece: only its rank's holds rows), into (po, pl).
void take_rank_partial(State& s, const Piece& p, DeviceBuffer<float>& po, DeviceBuffer<float>& pl) {
  DeviceBuffer<float> ro(po.size() * static_cast<std::size_t>(s.W)), rl(pl.size() * static_cast<std::size_t>(s.W));
  s.comm->all_gather(po.data(), ro.data(), po.bytes(),
                     "local-attention partial (out) of rank " + std::to_string(p.rank));
  s.comm->all_gather(pl.data(), rl.data(), pl.bytes(),
                     "local-attention partial (lse) of rank " + std::to_string(p.rank));
  copy_d2d(po.data(), ro.data() + static_cast<std::size_t>(p.rank) * po.size(), po.bytes());
  copy_d2d(pl.data(), rl.data() + static_cast<std::size_t>(p.rank) * pl.size(), pl.bytes());
}

// Local attention, one rank's piece of an entry (reference/mla/check.cpp rank_partial): scores,
// the exact sums of its rows, and its vLLM-style partial merged into the entry's cross-rank state
// in rank order (the first copied, later ones by the Triton merge, prefix = the ranks so far);
// after the entry's last rank the state goes into the work's running merge.
void attend_rank_piece(State& s, const Pass& pass, Work& w, const Piece& p) {
  if (pass.scores) scores(s, w, p, false);
  if (pass.accumulate) {
    DeviceBuffer<float> po, pl;
    accumulate(s, w, p, false, po, pl);
    if (pass.merge && s.o.vllm) {
      if (s.comm && !p.holders.empty()) take_rank_partial(s, p, po, pl);
      if (!s.entry_have) {
        s.entry_out = std::move(po);
        s.entry_lse = std::move(pl);
        s.entry_have = true;
      } else {
        const std::size_t th = static_cast<std::size_t>(w.qn) * s.N;
        DeviceBuffer<float> mo(th * s.Vd), ml(th);
        if (s.o.poison) {
          mo.poison();
          ml.poison();
        }
        launch_merge(0, w.qn, s.N, s.Vd, s.entry_out.data(), s.entry_lse.data(), po.data(), pl.data(), mo.data(),
                     ml.data());
        s.entry_out = std::move(mo);
        s.entry_lse = std::move(ml);
      }
      if (p.last) {
        merge(s, w, s.entry_out, s.entry_lse, false, p.holders.empty() ? 0 : 1);
        s.entry_have = false;
      }
    }
  }
  w.key0 += p.n;
}

// The local-shard family, one DCP rank's piece of an entry (reference/mla/check.cpp
// local_ranks_entry): scores, the exact sums of its rows, and its vLLM-style partial folded into
// that rank's own running partial (merge(): the first copied, later ones by the engine's merge,
// in chunk order; an empty shard's (0, -inf) folded like any other). The ranks meet once, before
// the final merge (combine_shards).
void attend_shard_piece(State& s, const Pass& pass, Work& w, const Piece& p) {
  if (pass.scores) scores(s, w, p, false);
  if (pass.accumulate) {
    DeviceBuffer<float> po, pl;
    accumulate(s, w, p, false, po, pl);
    if (pass.merge && s.o.vllm) merge(s, w.shard[static_cast<std::size_t>(p.rank)], po, pl, false, p.n);
  }
  w.key0 += p.n;
}

// The local-shard family's cross-rank combine (reference/mla/check.cpp combine_ranks; vLLM's
// cp_lse_ag_out_ar): per flavour, the work's context partial = rank 0's folded partial, merged
// with rank 1's, 2's, ... in rank order (the kernel's default rule, as the reference). Nothing
// when the work is in no chunk (the final merge's (0, -inf)). Multi-rank: every rank's folded
// partial arrives by an all-gather, so every rank merges the emulation's operands in its order.
void combine_shards(State& s, Work& w) {
  const int mine = s.comm ? s.my_rank : 0;
  if (w.shard.empty() || !w.shard[static_cast<std::size_t>(mine)].have_part) return;
  s.st.begin("merge");
  const std::size_t th = static_cast<std::size_t>(w.qn) * s.N, W = static_cast<std::size_t>(s.W);
  w.have_part = true;
  for (int f = 0; f < 2 && th > 0; ++f) {
    DeviceBuffer<float> all_out, all_lse;  // multi-rank: [rank][...] the ranks' folded partials
    auto rank_out = [&](std::size_t d) {
      return s.comm ? all_out.data() + d * th * s.Vd : w.shard[d].part_out[f].data();
    };
    auto rank_lse = [&](std::size_t d) { return s.comm ? all_lse.data() + d * th : w.shard[d].part_lse[f].data(); };
    if (s.comm) {
      const Work& my = w.shard[static_cast<std::size_t>(mine)];
      all_out = DeviceBuffer<float>(at_least_1(static_cast<std::int64_t>(th * s.Vd * W)));
      all_lse = DeviceBuffer<float>(at_least_1(static_cast<std::int64_t>(th * W)));
      s.comm->all_gather(my.part_out[f].data(), all_out.data(), my.part_out[f].bytes(), "local-shard partial (out)");
      s.comm->all_gather(my.part_lse[f].data(), all_lse.data(), my.part_lse[f].bytes(), "local-shard partial (lse)");
    }
    copy_d2d(w.part_out[f].data(), rank_out(0), th * s.Vd * sizeof(float));
    copy_d2d(w.part_lse[f].data(), rank_lse(0), th * sizeof(float));
    for (std::size_t d = 1; d < W; ++d)
      std::tie(w.part_out[f], w.part_lse[f]) =
          merged(s, f, w.qn, w.part_out[f].data(), w.part_lse[f].data(), rank_out(d), rank_lse(d), mla::MergeRule{});
    s.digest(Step::merge, -1,
             {{w.part_out[f].data(), w.part_out[f].bytes()}, {w.part_lse[f].data(), w.part_lse[f].bytes()}});
  }
  s.st.end();
}

// Multi-rank local attention, the exact path: each rank scored and summed only its own rows, so
// after a pass's chunks the row max (pass with scores) and the exact sums (pass with the exact
// accumulation) are combined across ranks — every rank's ordered-integer max images and
// accumulators all-gathered, the max taken and the integers added (order-free: the emulation's
// integers) — before every rank adds the causal suffix, which is on every rank.
void combine_exact_across_ranks(State& s, const Pass& pass) {
  if (!s.o.exact) return;
  const std::size_t W = static_cast<std::size_t>(s.W);
  for (Work& w : s.works) {
    if (pass.scores) {
      DeviceBuffer<std::uint32_t> all(w.mx_key.size() * W);
      s.comm->all_gather(w.mx_key.data(), all.data(), w.mx_key.bytes(), "local-attention row max");
      const auto host = all.get();
      std::vector<std::uint32_t> mx(w.mx_key.size(), 0);
      for (std::size_t r = 0; r < W; ++r)
        for (std::size_t i = 0; i < mx.size(); ++i) mx[i] = std::max(mx[i], host[r * mx.size() + i]);
      w.mx_key.put(mx);
    }
    if (pass.accumulate)
      for (DeviceBuffer<ExactAcc>* acc : {&w.num, &w.den}) {
        DeviceBuffer<ExactAcc> all(acc->size() * W);
        s.comm->all_gather(acc->data(), all.data(), acc->bytes(), "local-attention exact sums");
        const auto host = all.get();
        std::vector<ExactAcc> sum(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(acc->size()));
        for (std::size_t r = 1; r < W; ++r)
          for (std::size_t i = 0; i < sum.size(); ++i) sum[i].merge(host[r * sum.size() + i]);
        acc->put(sum);
      }
  }
}

void run_pass(State& s, const Pass& pass) {
  s.cur_pass = pass.number;
  for (const ChunkRef& cr : s.chunks) {
    const std::int64_t rows = workspace(s, cr);
    if (pass.scores) up_project(s, rows, true);
    if (pass.accumulate) up_project(s, rows, false);
    for (const Piece& p : s.pieces)
      if (p.rank < 0)
        attend_piece(s, pass, s.work(p.work), p, false);
      else if (s.plan.local_attention)
        attend_shard_piece(s, pass, s.work(p.work), p);
      else
        attend_rank_piece(s, pass, s.work(p.work), p);
  }
  if (s.comm && s.local_attention) combine_exact_across_ranks(s, pass);
  for (Work& w : s.works) {
    gather_suffix(s, w);
    if (pass.scores) up_project(s, w.suffix_rows(), true);
    if (pass.accumulate) up_project(s, w.suffix_rows(), false);
    if (pass.merge && s.o.vllm && s.plan.local_attention) combine_shards(s, w);
    attend_piece(s, pass, w, Piece{0, 0, w.suffix_rows()}, true);
    if (pass.scores && s.o.exact)  // every attended key scored: the global max is complete
      launch_decode_max(w.mx_key.data(), static_cast<std::int64_t>(w.mx.size()), w.mx.data());
    w.key0 = 0;
  }
}

}  // namespace

PipelineResult run_pipeline(const Case& c, const Plan& plan, const mla::Inputs& in, const PipelineOptions& o) {
  if (o.comm && (o.comm->ranks() != c.dcp || !o.chunked))
    throw std::logic_error("run_pipeline: a multi-rank run needs ranks == dcp and a chunked run");
  if (plan.pcp && (c.ctx != plan.pcp->batch_ctx || c.q != plan.pcp->batch_q))
    throw std::invalid_argument(
        "the GPU pipeline runs a pcp plan over its PCP rank's rows (mla::pcp_rank_views: check --device gpu does), "
        "not over the global case");
  const mla::ContextMerge cm = mla::context_merge(plan);
  if (plan.local_attention && (cm.skip_empty || cm.suffix_first))  // not an order mla_pcp.py runs
    throw std::invalid_argument(
        "the GPU pipeline folds a local-shard plan's rank partials with vLLM's merge loop; this plan's engine "
        "skips empty partials or merges from the suffix, which the reference's per-rank fold does not define");
  PipelineResult res;
  Timer total;
  total.start();
  State s(c, plan, in, o, res);
  upload_cache(s);
  make_works(s);
  allocate_works(s);
  for (const Pass& pass : mla::passes(o.exact, o.vllm)) run_pass(s, pass);
  if (o.exact) normalize(s);
  synchronize();
  res.total_ms = total.stop_ms();
  return res;
}

}  // namespace cp::gpu

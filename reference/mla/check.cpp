// The CPU numerics check: unchunked reference vs chunked pipeline (exact path), and the
// vLLM-style path vs a float64 oracle. See check.h for the contract, docs/numerics.md for why.
// The chunked pipeline walks the stage list of stages.h (as the GPU's kernels/harness/pipeline.cpp
// does); the per-element compute is engine.h's.
#include "reference/mla/check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <numeric>
#include <span>
#include <stdexcept>

#include "reference/dcp/movement.h"
#include "reference/dcp/simulate.h"
#include "reference/mla/engine.h"
#include "reference/mla/inputs.h"
#include "reference/mla/math/all.h"
#include "reference/mla/merge_rules.h"
#include "reference/mla/stages.h"
#include "reference/mla/token_groups.h"

namespace cp::mla {

namespace {

using detail::Engine;
using detail::Row;
using detail::Work;

// merge_attn_states over `tokens` x `heads` rows of `dim` floats, every tensor contiguous
// ([token][head][dim], lse [head][token]); flavour 0 = Triton, 1 = CUDA.
void merge_contiguous(int flavour, float* out, float* out_lse, const float* prefix, const float* prefix_lse,
                      const float* suffix, const float* suffix_lse, int tokens, int heads, int dim,
                      MergeRule rule = {}) {
  const long ts = static_cast<long>(heads) * dim, hs = dim;
  const MergeTensors m{out,    out_lse,    ts, hs, prefix, prefix_lse, ts, hs,
                       suffix, suffix_lse, ts, hs, tokens, heads,      dim};
  merge_attn_states(flavour == 0 ? MergeFlavour::triton : MergeFlavour::cuda, m, rule);
}

// gather + collective (DCP): each rank runs its gather runs (clip_gather: the rows that fit its
// send buffer of local_rows rows; cp_gather_cache / index_select read local slot src + k of its
// own shard), rows no run writes hold the send buffer's own garbage (TokenSpeed's zeros, an
// unread pad: never real keys), and the all-gather lays the ranks' buffers out as the movement's
// layout says (rank-major, or SGLang's transposed row-interleaved). Under local attention the
// ranks' buffers, rank-major: what each rank attends.
std::vector<Row> gather_and_collect(const Inputs& in, const Plan& p, const ChunkMovement& m, std::size_t ci) {
  const int R = in.s.row();
  const std::int64_t L = m.local_rows, W = p.dcp;
  std::vector<Row> G(static_cast<std::size_t>(L * W * R));
  std::vector<Row> local(static_cast<std::size_t>(L * R));
  std::vector<std::uint8_t> written(static_cast<std::size_t>(L));
  for (std::int64_t r = 0; r < W; ++r) {
    std::fill(written.begin(), written.end(), 0);
    for (const auto& g0 : m.gather) {
      if (!runs_on(m, g0, r)) continue;
      const CopyRun g = clip_gather(m, g0);
      for (std::int64_t k = 0; k < g.len; ++k) {
        Row* dst = local.data() + (g.dst + k) * R;
        written[static_cast<std::size_t>(g.dst + k)] = 1;
        if (const Row* src = in.local_row(g.request, r, g.src + k))
          std::copy(src, src + R, dst);
        else
          in.garbage_row(2 + static_cast<std::uint64_t>(r),
                         (static_cast<std::uint64_t>(g.request) << 40) ^ static_cast<std::uint64_t>(g.src + k), dst);
      }
    }
    for (std::int64_t j = 0; j < L; ++j)
      if (!written[static_cast<std::size_t>(j)])
        in.garbage_row(unsent_stream(ci, r), static_cast<std::uint64_t>(j), local.data() + j * R);
    for (std::int64_t j = 0; j < L; ++j) {
      const std::int64_t row = gathered_row(m, r, j, W);
      std::copy(local.data() + j * R, local.data() + (j + 1) * R, G.data() + row * R);
    }
  }
  return G;
}

// reorg (DCP): the keep runs (clip_keep), row src + k to row dst + k * dst_stride; rows nothing
// wrote hold stale garbage.
void reorg(const Inputs& in, const ChunkMovement& m, const std::vector<Row>& G, std::size_t ci, std::vector<Row>& ws) {
  const int R = in.s.row();
  const std::uint64_t stale_stream = 1000 + ci;
  for (std::int64_t t = 0; t < m.total_rows; ++t)
    in.garbage_row(stale_stream, static_cast<std::uint64_t>(t), ws.data() + t * R);
  for (const auto& run0 : m.reorg) {
    const CopyRun run = clip_keep(m, run0);
    for (std::int64_t k = 0; k < run.len; ++k)
      std::copy(G.data() + (run.src + k) * R, G.data() + (run.src + k + 1) * R,
                ws.data() + (run.dst + k * run.dst_stride) * R);
  }
}

// The chunk's workspace rows as the version's data path produces them (workspace_rows(m) rows):
// gather, collective and reorg under DCP (under local attention the ranks' own rows, rank-major);
// without DCP, the version's gather kernel.
std::vector<Row> build_workspace(const Inputs& in, const Plan& p, const ChunkMovement& m, std::size_t ci) {
  const int R = in.s.row();
  if (!p.version_info().family->spans_are_context)
    throw std::invalid_argument("the CPU numerics attend context spans; the " +
                                std::string(p.version_info().family->name) +
                                " family's spans are not context (FamilyInfo::spans_are_context): checked by the "
                                "invariants, not run by the numerics");
  if (!m.dcp) {
    std::vector<Row> ws(static_cast<std::size_t>(m.total_rows * R));
    for (const auto& g : m.gather)
      for (std::int64_t k = 0; k < g.len; ++k) in.fetch(g.request, g.src + k, ws.data() + (g.dst + k) * R);
    return ws;
  }
  std::vector<Row> G = gather_and_collect(in, p, m, ci);
  if (m.exchange == Exchange::local_attend) return G;
  std::vector<Row> ws(static_cast<std::size_t>(m.total_rows * R));
  reorg(in, m, G, ci, ws);
  return ws;
}

// The data path and the index simulation must agree on every real row they name.
void cross_check(const Inputs& in, const std::vector<Row>& ws, const std::vector<RowSource>& sim, std::size_t ci) {
  const int R = in.s.row();
  for (std::size_t t = 0; t < sim.size(); ++t) {
    const RowSource& rs = sim[t];
    if (rs.kind == RowKind::stale) continue;
    const Row* real = in.cache_row(rs.request, rs.position);
    if (real == nullptr || !std::equal(real, real + R, ws.data() + static_cast<std::ptrdiff_t>(t) * R))
      throw std::logic_error("chunk " + std::to_string(ci) + " row " + std::to_string(t) +
                             ": the data path and simulate_chunk disagree about request " + std::to_string(rs.request) +
                             " position " + std::to_string(rs.position));
  }
}

std::vector<std::pair<std::int64_t, std::int64_t>> ranges_where(const std::vector<std::uint8_t>& cnt, bool twice,
                                                                std::int64_t& total) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  total = 0;
  const auto n = static_cast<std::int64_t>(cnt.size());
  for (std::int64_t i = 0; i < n;) {
    auto hit = [&](std::int64_t k) {
      return twice ? cnt[static_cast<std::size_t>(k)] >= 2 : cnt[static_cast<std::size_t>(k)] == 0;
    };
    if (!hit(i)) {
      ++i;
      continue;
    }
    std::int64_t j = i;
    while (j < n && hit(j)) ++j;
    total += j - i;
    out.emplace_back(i, j);
    i = j;
  }
  return out;
}

// Rows per up-projection batch: bounds the K/V scratch (rows x heads x 128 floats).
constexpr std::int64_t kSubBatch = 512;

void reference_outputs(const Engine& eng, const Inputs& in, std::vector<Work>& works, bool exact, bool oracle,
                       const std::function<bool()>& stop) {
  const int R = in.s.row();
  constexpr std::int64_t kBatch = kSubBatch;
  std::vector<Row> rows;
  auto load = [&](const Work& w, std::int64_t p0, std::int64_t n) {
    if (stop && stop()) throw CheckStopped();
    rows.resize(static_cast<std::size_t>(n * R));
    for (std::int64_t k = 0; k < n; ++k) in.fetch(w.request, p0 + k, rows.data() + k * R);
  };
  for (auto& w : works) {
    eng.init(w, oracle);
    for (std::int64_t p0 = 0; p0 < w.ctx; p0 += kBatch) {
      const std::int64_t n = std::min(kBatch, w.ctx - p0);
      load(w, p0, n);
      eng.scores(w, rows.data(), n, false);
    }
    load(w, w.ctx, w.qn);
    eng.scores(w, rows.data(), w.qn, true);
    for (std::int64_t p0 = 0; p0 < w.ctx; p0 += kBatch) {
      const std::int64_t n = std::min(kBatch, w.ctx - p0);
      load(w, p0, n);
      eng.accumulate(w, rows.data(), n, false, exact, oracle, nullptr);
    }
    load(w, w.ctx, w.qn);
    eng.accumulate(w, rows.data(), w.qn, true, exact, oracle, nullptr);
  }
}

// Whether the plan stops before the numerics: an assert that fires (asserts=on) or no plan.
bool stopped_by_plan(const Case& c, CheckResult& res) {
  const Plan& plan = res.plan;
  if (!(c.asserts && !plan.asserts.empty()) && plan.built) return false;
  res.assert_fired = true;
  if (!plan.asserts.empty()) {
    const auto& a = plan.asserts.front();
    res.assert_text = (a.kind == FailureKind::crash ? "crashed: " : "") + a.which + " (" + a.detail +
                      (a.chunk >= 0 ? ", chunk " + std::to_string(a.chunk) : "") + ")";
  } else {
    res.assert_text = "no plan could be built";
  }
  return true;
}

// The case's inputs, sliced to the heads the options select (res.heads says which).
Inputs selected_inputs(const Case& c, const CheckOptions& opts, CheckResult& res) {
  Inputs full = make_inputs(c);
  res.all_heads = full.s.N;
  if (opts.heads.empty() && opts.sample_heads <= 0) {
    res.heads.resize(static_cast<std::size_t>(full.s.N));
    std::iota(res.heads.begin(), res.heads.end(), 0);
    return full;
  }
  res.heads = opts.heads.empty() ? sample_heads(full.s.N, opts.sample_heads, c.seed) : opts.heads;
  return slice_heads(std::move(full), res.heads);
}

// One check run, the stage list of stages.h (DESIGN §1): the works, then the chunked pipeline's
// passes (every chunk: gather, collective, reorg, then the pass's up-projection, scores,
// accumulate and merge per entry; then every request's causal suffix), normalize, then the
// comparisons. The unchunked reference runs beside the pipeline.
class CheckRun {
 public:
  CheckRun(const Case& c, const CheckOptions& opts, CheckResult& res)
      : CheckRun(c, opts, res, selected_inputs(c, opts, res)) {}
  // The run over given inputs (a PCP rank's rows: pcp_rank_views).
  CheckRun(const Case& c, const CheckOptions& opts, CheckResult& res, Inputs in)
      : c_(c),
        opts_(opts),
        res_(res),
        plan_(res.plan),
        in_(std::move(in)),
        s_(in_.s),
        threads_(std::max(1, opts.threads)),
        eng_(in_, threads_ - threads_ / 2),
        ref_eng_(eng_, std::max(1, threads_ / 2)) {}

  void run() {
    make_works();
    simulate_chunks();
    // The unchunked reference and the chunked pipeline share nothing but the inputs: with two
    // or more threads they run side by side on half the threads each (every sum keeps its own
    // order, so no bit depends on it). The future joins (and rethrows) at .get() below, or in
    // its destructor if the pipeline throws first.
    std::future<void> reference = std::async(threads_ >= 2 ? std::launch::async : std::launch::deferred, [&] {
      reference_outputs(ref_eng_, in_, ref_, opts_.exact, opts_.vllm, opts_.stop);
    });
    for (auto& w : chk_) eng_.init(w, false);
    count_rows();
    for (const Pass& pass : passes(opts_.exact, opts_.vllm)) {
      run_pass(pass);
      ++at_.pass;
    }
    reference.get();
    for (std::size_t k = 0; k < chk_.size(); ++k) normalize_outputs(chk_[k], ref_[k]);
    if (opts_.exact) compare_exact();
    record_routing();
    if (opts_.vllm) compare_vllm();
    keep_outputs();
  }

 private:
  // The rows the passes will take through scores and accumulate (the progress line's total).
  void count_rows() {
    std::int64_t rows = 0;
    for (const Chunk& ch : plan_.chunks) rows += ch.cu_seq_lens.empty() ? 0 : ch.cu_seq_lens.back();
    const auto ps = passes(opts_.exact, opts_.vllm);
    for (const Pass& p : ps) at_.rows_total += rows * ((p.scores ? 1 : 0) + (p.accumulate ? 1 : 0));
    at_.chunks = plan_.chunks.size();
    at_.passes = ps.size();
    at_.heads = static_cast<int>(res_.heads.size());
    at_.all_heads = res_.all_heads;
  }
  // A sub-batch of rows done: the progress hook, then the stop request (CheckOptions).
  void advance(std::int64_t rows) {
    at_.rows_done += rows;
    if (opts_.progress) opts_.progress(at_);
    if (opts_.stop && opts_.stop()) throw CheckStopped();
  }

  // One Work per token group (token_groups.h: a prefill, or the two groups of a merged row), in
  // prefill order; the reference's works are the same groups as ordinary requests.
  void make_works() {
    const TokenGroups ref_groups = token_groups(c_, plan_, false);
    const std::size_t n = groups_.groups.size();
    ref_.resize(n);
    chk_.resize(n);
    ranks_.assign(n, {});
    for (std::size_t k = 0; k < n; ++k) {
      set_work(chk_[k], groups_.groups[k]);
      set_work(ref_[k], ref_groups.groups[k]);
      T_ += groups_.groups[k].qn;
      res_.context_rows += groups_.groups[k].ctx - groups_.groups[k].lead_q;
    }
    res_.prefill_tokens = T_;
    per_token_ = static_cast<std::size_t>(s_.N) * s_.Vd;
    ref_out_.assign(static_cast<std::size_t>(T_) * per_token_, 0.0f);
    chk_out_.assign(ref_out_.size(), 0.0f);
    ora_out_.assign(ref_out_.size(), 0.0);
    for (auto& v : vl_out_) v.assign(ref_out_.size(), 0.0f);
  }
  // The index simulation of every chunk: what the data path must produce (cross_check) and the
  // routing of a difference.
  void simulate_chunks() {
    sims_.resize(plan_.chunks.size());
    mvs_.resize(plan_.chunks.size());
    for (std::size_t ci = 0; ci < plan_.chunks.size(); ++ci) {
      // The one description of the data path (the family's, or the caller's).
      mvs_[ci] = opts_.movement ? opts_.movement(plan_, plan_.chunks[ci]) : chunk_movement(plan_, plan_.chunks[ci]);
      sims_[ci] = simulate_chunk(c_, plan_, mvs_[ci]);
    }
  }
  void set_work(Work& w, const TokenGroup& g) const {
    w.request = g.request;
    w.qn = g.qn;
    w.ctx = g.ctx;
    w.token0 = g.token0;
    w.lead_ctx = g.lead_ctx;
    w.lead_q = g.lead_q;
    w.q = in_.query[static_cast<std::size_t>(g.request)].data() + static_cast<std::size_t>(g.q_offset) * s_.N * s_.qk();
  }
  std::size_t index_of(const Work& w) const { return static_cast<std::size_t>(&w - chk_.data()); }
  // The causal suffix's rows: the leading keys (a merged row's a tokens), then its own new tokens.
  void load_suffix(const Work& w) {
    const int R = s_.row();
    rows_.resize(static_cast<std::size_t>(w.suffix_rows() * R));
    for (int k = 0; k < w.lead_q; ++k) in_.fetch(w.request, w.lead_ctx + k, rows_.data() + k * R);
    for (int k = 0; k < w.qn; ++k) in_.fetch(w.request, w.ctx + k, rows_.data() + (w.lead_q + k) * R);
  }

  // One pass (stages.h): every chunk's workspace (gather, collective, reorg; checked against the
  // index simulation in the scoring pass), the pass's stages on every entry, then every causal
  // suffix.
  void run_pass(const Pass& pass) {
    for (std::size_t ci = 0; ci < plan_.chunks.size(); ++ci) {
      at_.chunk = ci;
      const Chunk& ch = plan_.chunks[ci];
      const auto ws = build_workspace(in_, plan_, mvs_[ci], ci);
      if (pass.scores) cross_check(in_, ws, sims_[ci], ci);
      for (std::size_t b = 0; b < ch.entries.size(); ++b)
        for (int k : groups_.served(ch, b))
          attend_entry(pass, chk_[static_cast<std::size_t>(k)], ws.data(), attended_spans(mvs_[ci], ch, b, plan_.dcp),
                       ci, b);
    }
    for (auto& w : chk_) {
      load_suffix(w);  // gather of the new tokens' own rows
      attend_suffix(pass, w);
    }
  }
  // up-projection + scores, then up-projection + accumulate and merge, on one plan entry's rows
  // (its spans of the workspace ws, attended_spans), in sub-batches (each element's order is
  // that of one batch).
  void attend_entry(const Pass& pass, Work& w, const Row* ws, const std::vector<AttendSpan>& spans, std::size_t ci,
                    std::size_t b) {
    if (pass.scores)
      for (const AttendSpan& sp : spans) {
        const std::int64_t n = sp.hi - sp.lo;
        for (std::int64_t k = 0; k < n; k += kSubBatch) {
          eng_.scores(w, ws + (sp.lo + k) * s_.row(), std::min(kSubBatch, n - k), false);
          advance(std::min(kSubBatch, n - k));
        }
        res_.attended_rows += n;
      }
    if (!pass.accumulate) return;
    if (plan_.local_attention) return local_ranks_entry(pass, w, ws, spans);
    accumulate_entry(w, ws, spans);
    if (!pass.merge || !opts_.vllm) return;
    if (opts_.keep_outputs)
      res_.vllm_partials.push_back({static_cast<int>(ci), static_cast<int>(b), w.request, w.qn, w.token0, po_, pl_});
    std::int64_t rows = 0;
    for (const AttendSpan& sp : spans) rows += sp.hi - sp.lo;
    fold_partial(w, rows);
  }
  // The same stages on a request's causal suffix (rows_), the merge being the final
  // merge(context, suffix) per flavour.
  void attend_suffix(const Pass& pass, Work& w) {
    if (pass.scores) eng_.scores(w, rows_.data(), w.suffix_rows(), true);
    if (!pass.accumulate) return;
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    po_.assign(th * s_.Vd, 0.0f);
    pl_.assign(th, neg_inf());
    Engine::Partial part;
    if (opts_.vllm) eng_.begin_partial(w, w.suffix_rows(), true, part);
    eng_.accumulate(w, rows_.data(), w.suffix_rows(), true, opts_.exact, false, opts_.vllm ? &part : nullptr);
    if (opts_.vllm) eng_.end_partial(w, part, po_.data(), pl_.data());
    if (pass.merge && opts_.vllm) merge_with_suffix(w);
  }
  // The entry's partial (po_, pl_): one attention call over its rows; under local attention one
  // per rank over that rank's spans, merged across ranks in rank order by LSE (the Triton merge:
  // vLLM's DCP correction combines the ranks' LSEs the same way).
  void accumulate_entry(Work& w, const Row* ws, const std::vector<AttendSpan>& spans) {
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    po_.assign(th * s_.Vd, 0.0f);
    pl_.assign(th, neg_inf());
    for (std::size_t i = 0; i < spans.size();) {
      std::size_t j = i;
      std::int64_t n = 0;
      for (; j < spans.size() && spans[j].rank == spans[i].rank; ++j) n += spans[j].hi - spans[j].lo;
      rank_partial(w, ws, std::span(spans).subspan(i, j - i), n, i == 0);
      i = j;
    }
  }
  void rank_partial(Work& w, const Row* ws, std::span<const AttendSpan> spans, std::int64_t n, bool first) {
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    Engine::Partial part;
    if (opts_.vllm) eng_.begin_partial(w, n, false, part);
    for (const AttendSpan& sp : spans)
      for (std::int64_t k = 0; k < sp.hi - sp.lo; k += kSubBatch) {
        eng_.accumulate(w, ws + (sp.lo + k) * s_.row(), std::min(kSubBatch, sp.hi - sp.lo - k), false, opts_.exact,
                        false, opts_.vllm ? &part : nullptr);
        advance(std::min(kSubBatch, sp.hi - sp.lo - k));
      }
    if (!opts_.vllm) return;
    if (first) {
      eng_.end_partial(w, part, po_.data(), pl_.data());
      return;
    }
    std::vector<float> ro(th * s_.Vd), rl(th);
    eng_.end_partial(w, part, ro.data(), rl.data());
    mo_.assign(th * s_.Vd, 0.0f);
    ml_.assign(th, 0.0f);
    merge_contiguous(0, mo_.data(), ml_.data(), po_.data(), pl_.data(), ro.data(), rl.data(), w.qn, s_.N, s_.Vd);
    po_.swap(mo_);
    pl_.swap(ml_);
  }
  // mla_pcp.py's order (Plan::local_attention): every rank folds its own chunk partials, a rank
  // without rows of the request contributing (0, -inf), and the ranks combine once before the
  // final merge (combine_ranks), so an empty+empty merge on one rank (CB-1) shows as its NaN.
  void local_ranks_entry(const Pass& pass, Work& w, const Row* ws, const std::vector<AttendSpan>& spans) {
    auto& rs = ranks_[index_of(w)];
    rs.resize(static_cast<std::size_t>(plan_.dcp));
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    for (std::int64_t d = 0; d < plan_.dcp; ++d) {
      po_.assign(th * s_.Vd, 0.0f);
      pl_.assign(th, neg_inf());
      std::vector<AttendSpan> mine;
      std::int64_t n = 0;
      for (const AttendSpan& sp : spans)
        if (sp.rank == d) mine.push_back(sp), n += sp.hi - sp.lo;
      rank_partial(w, ws, mine, n, true);
      if (!pass.merge || !opts_.vllm) continue;
      Work& r = rs[static_cast<std::size_t>(d)];
      r.qn = w.qn;
      fold_partial(r, n);
    }
  }
  void combine_ranks(Work& w) {
    auto& rs = ranks_[index_of(w)];
    if (rs.empty()) return;  // in no chunk: merge_with_suffix's (0, -inf)
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    for (int f = 0; f < 2; ++f) {
      w.part_out[f] = rs[0].part_out[f];
      w.part_lse[f] = rs[0].part_lse[f];
      for (std::size_t d = 1; d < rs.size(); ++d) {
        mo_.assign(th * s_.Vd, 0.0f);
        ml_.assign(th, 0.0f);
        merge_contiguous(f, mo_.data(), ml_.data(), w.part_out[f].data(), w.part_lse[f].data(),
                         rs[d].part_out[f].data(), rs[d].part_lse[f].data(), w.qn, s_.N, s_.Vd);
        w.part_out[f].swap(mo_);
        w.part_lse[f].swap(ml_);
      }
    }
    w.have_part = true;
  }
  // The entry's partial into the work's running context partial, as the engine's loop does
  // (merge_rules.h): skipped when it has no rows (TensorRT-LLM's op 0), kept for the end
  // (SGLang: merged into the suffix), else copied first and merged after.
  void fold_partial(Work& w, std::int64_t rows) {
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    if (cm_.skip_empty && rows == 0) return;
    if (cm_.suffix_first) {
      w.pend_out.push_back(po_);
      w.pend_lse.push_back(pl_);
      w.have_part = true;
      return;
    }
    for (int f = 0; f < 2; ++f) {
      if (!w.have_part) {  // first piece of the request's context: copy
        w.part_out[f] = po_;
        w.part_lse[f] = pl_;
        continue;
      }
      mo_.assign(th * s_.Vd, 0.0f);
      ml_.assign(th, 0.0f);
      merge_contiguous(f, mo_.data(), ml_.data(), w.part_out[f].data(), w.part_lse[f].data(), po_.data(), pl_.data(),
                       w.qn, s_.N, s_.Vd, cm_.rule[f]);
      w.part_out[f] = mo_;
      w.part_lse[f] = ml_;
    }
    w.have_part = true;
  }

  // The causal suffix of every request, the exact outputs of both paths, the oracle, and the
  // vLLM path's final merge(context, suffix) per flavour.

  // normalize: the exact outputs of both paths, and the oracle's.
  void normalize_outputs(const Work& w, const Work& r) {
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    const std::size_t base = static_cast<std::size_t>(w.token0) * per_token_;
    for (std::size_t i = 0; i < th; ++i)
      for (int d = 0; d < s_.Vd; ++d) {
        const std::size_t e = i * s_.Vd + d;
        if (opts_.exact) {
          chk_out_[base + e] = normalize(w.num[e], w.den[i]);
          ref_out_[base + e] = normalize(r.num[e], r.den[i]);
          if (!w.num[e].ok() || !w.den[i].ok() || !r.num[e].ok() || !r.den[i].ok()) res_.exact.overflow = true;
        }
        if (opts_.vllm) ora_out_[base + e] = r.o_num[e] / r.o_den[i];
      }
    if (opts_.keep_outputs && opts_.exact) {
      if (res_.reference_lse.empty()) res_.reference_lse.assign(static_cast<std::size_t>(T_) * s_.N, 0.0f);
      for (std::size_t i = 0; i < th; ++i)  // i = t * N + h
        res_.reference_lse[static_cast<std::size_t>(w.token0) * s_.N + i] =
            static_cast<float>(static_cast<double>(r.mx[i]) + std::log(to_double(r.den[i])));
    }
  }
  void merge_with_suffix(Work& w) {
    if (plan_.local_attention) combine_ranks(w);
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    const std::size_t base = static_cast<std::size_t>(w.token0) * per_token_;
    for (int f = 0; f < 2; ++f) {
      std::vector<float> lse(th);  // [N][qn]
      final_merge(w, f, vl_out_[f].data() + base, lse);
      // S4/S5: tokens at or past prefill_tokens_with_context take the suffix alone.
      const long ts = static_cast<long>(s_.N) * s_.Vd;  // floats per token
      if (plan_.prefill_tokens_with_context)
        for (int t = 0; t < w.qn; ++t)
          if (w.token0 + t >= *plan_.prefill_tokens_with_context)
            std::copy(po_.begin() + static_cast<long>(t) * ts, po_.begin() + static_cast<long>(t + 1) * ts,
                      vl_out_[f].begin() + static_cast<long>(base) + static_cast<long>(t) * ts);
      if (opts_.keep_outputs) {
        if (res_.vllm_lse[f].empty()) res_.vllm_lse[f].assign(static_cast<std::size_t>(T_) * s_.N, 0.0f);
        for (int t = 0; t < w.qn; ++t)
          for (int h = 0; h < s_.N; ++h)
            res_.vllm_lse[f][static_cast<std::size_t>(w.token0 + t) * s_.N + h] =
                lse[static_cast<std::size_t>(h) * w.qn + t];
      }
    }
  }
  // merge(context, causal suffix) in flavour f into out / lse, as the engine's loop ends it:
  // SGLang's running state from the suffix, each chunk partial merged into it (chunk as prefix);
  // TensorRT-LLM's copy of the suffix when no loop had keys (op 2); else the context partial
  // (never in a chunk: (0, -inf)) merged with the suffix.
  void final_merge(Work& w, int f, float* out, std::vector<float>& lse) {
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    if (cm_.suffix_first || (cm_.skip_empty && !w.have_part)) {
      std::vector<float> ro = po_, rl = pl_;
      for (std::size_t k = 0; k < w.pend_out.size(); ++k) {
        mo_.assign(th * s_.Vd, 0.0f);
        ml_.assign(th, 0.0f);
        merge_contiguous(f, mo_.data(), ml_.data(), w.pend_out[k].data(), w.pend_lse[k].data(), ro.data(), rl.data(),
                         w.qn, s_.N, s_.Vd, cm_.rule[f]);
        ro = mo_;
        rl = ml_;
      }
      std::copy(ro.begin(), ro.end(), out);
      lse = rl;
      return;
    }
    if (!w.have_part) {  // never in a chunk (ctx = 0 under the packed planner): (0, -inf)
      w.part_out[f].assign(th * s_.Vd, 0.0f);
      w.part_lse[f].assign(th, neg_inf());
    }
    merge_contiguous(f, out, lse.data(), w.part_out[f].data(), w.part_lse[f].data(), po_.data(), pl_.data(), w.qn, s_.N,
                     s_.Vd, cm_.rule[f]);
  }
  ElementAt element_at(std::size_t idx) const {
    ElementAt e;
    e.token = static_cast<std::int64_t>(idx / per_token_);
    e.head = res_.heads[(idx % per_token_) / static_cast<std::size_t>(s_.Vd)];
    e.dim = static_cast<int>(idx % static_cast<std::size_t>(s_.Vd));
    for (const auto& w : chk_)
      if (e.token >= w.token0 && e.token < w.token0 + w.qn) {
        e.request = w.request;
        e.token_in_request = e.token - w.token0;
      }
    return e;
  }

  // Exact comparison, bit for bit (NaN is never equal).
  void compare_exact() {
    ExactResult& ex = res_.exact;
    ex.ran = true;
    ex.elements = static_cast<std::int64_t>(ref_out_.size());
    for (std::size_t i = 0; i < ref_out_.size(); ++i) {
      const std::uint32_t a = bits_of(ref_out_[i]), b = bits_of(chk_out_[i]);
      if (a != b || is_nan(ref_out_[i]) || is_nan(chk_out_[i])) {
        if (ex.differing++ == 0) {
          ex.first = element_at(i);
          ex.ref_bits = a;
          ex.got_bits = b;
        }
      }
    }
  }

  // Routing per request, from the simulation (the diagnosis of a difference).
  void record_routing() {
    std::vector<RequestRouting> rt(chk_.size());
    std::vector<std::vector<std::uint8_t>> cnt(chk_.size());
    for (std::size_t k = 0; k < chk_.size(); ++k) {
      rt[k].request = chk_[k].request;
      rt[k].ctx = chk_[k].ctx;
      cnt[k].assign(static_cast<std::size_t>(chk_[k].ctx), 0);
      // A merged row's b group sees [lead_ctx, lead_ctx + lead_q) through its causal part, once.
      for (std::int64_t p = chk_[k].lead_ctx; p < chk_[k].lead_ctx + chk_[k].lead_q && p < chk_[k].ctx; ++p)
        cnt[k][static_cast<std::size_t>(p)] = 1;
    }
    for (std::size_t ci = 0; ci < plan_.chunks.size(); ++ci) {
      const Chunk& ch = plan_.chunks[ci];
      for (std::size_t b = 0; b < ch.entries.size(); ++b) {
        const int r = ch.entries[b].request;
        for (int g : groups_.served(ch, b)) {
          const auto k = static_cast<std::size_t>(g);
          for (const AttendSpan& sp : attended_spans(mvs_[ci], ch, b, plan_.dcp))
            for (std::int64_t t = sp.lo; t < sp.hi; ++t)
              route_row(rt[k], cnt[k], r, sims_[ci][static_cast<std::size_t>(t)]);
        }
      }
    }
    for (std::size_t k = 0; k < chk_.size(); ++k) {
      rt[k].missing = ranges_where(cnt[k], false, rt[k].n_missing);
      rt[k].twice = ranges_where(cnt[k], true, rt[k].n_twice);
      if (rt[k].ctx > 0 || !rt[k].exact()) res_.exact.routing.push_back(std::move(rt[k]));
    }
  }
  static void route_row(RequestRouting& rr, std::vector<std::uint8_t>& cnt, int r, const RowSource& rs) {
    ++rr.rows;
    // A merged row's a group: positions past its own context are its new tokens or later ones.
    if (rs.kind == RowKind::context && rs.request == r && rs.position >= static_cast<std::int64_t>(cnt.size())) {
      ++rr.new_token_rows;
    } else if (rs.kind == RowKind::context && rs.request == r) {
      auto& x = cnt[static_cast<std::size_t>(rs.position)];
      if (x < 255) ++x;
    } else if (rs.kind == RowKind::context) {
      ++rr.foreign_context;
      if (std::find(rr.from_requests.begin(), rr.from_requests.end(), rs.request) == rr.from_requests.end())
        rr.from_requests.push_back(rs.request);
    } else if (rs.kind == RowKind::new_token) {
      ++rr.new_token_rows;
    } else {
      ++rr.stale_rows;
    }
  }

  // The vLLM path against the float64 oracle, per merge flavour.
  void compare_vllm() {
    VllmResult& vr = res_.vllm;
    vr.ran = true;
    vr.production = plan_.merge;  // the dispatcher's rule (platform.h merge_flavour), recorded by the planner
    vr.bound_abs = kVllmBoundAbs;
    vr.bound_rel = kVllmBoundRel;
    for (int f = 0; f < 2; ++f) {
      FlavourResult& fr = vr.flavours[f];
      fr.flavour = f == 0 ? MergeFlavour::triton : MergeFlavour::cuda;
      for (std::size_t row = 0; row < ref_out_.size(); row += static_cast<std::size_t>(s_.Vd)) compare_row(fr, f, row);
      fr.within_bound = fr.nan == 0 && fr.inf == 0 && fr.max_abs <= vr.bound_abs && fr.max_rel <= vr.bound_rel;
    }
  }
  void compare_row(FlavourResult& fr, int f, std::size_t row) const {
    double scale = 0;
    for (int d = 0; d < s_.Vd; ++d) scale = std::max(scale, std::abs(ora_out_[row + d]));
    for (int d = 0; d < s_.Vd; ++d) {
      const std::size_t i = row + d;
      const float g = vl_out_[f][i];
      if (is_nan(g)) {
        if (fr.nan++ == 0) fr.first_nan = element_at(i);
        continue;
      }
      if (is_inf(g)) {
        ++fr.inf;
        continue;
      }
      const double err = std::abs(static_cast<double>(g) - ora_out_[i]);
      if (err > fr.max_abs) {
        fr.max_abs = err;
        fr.worst = element_at(i);
      }
      fr.max_rel = std::max(fr.max_rel, scale > 0 ? err / scale : 0.0);
      fr.max_ulp = std::max(fr.max_ulp, static_cast<int>(bf16_ulp_distance(
                                            float_to_bf16(g), float_to_bf16(static_cast<float>(ora_out_[i])))));
    }
  }

  void keep_outputs() {
    if (!opts_.keep_outputs) return;
    res_.reference_out = std::move(ref_out_);
    res_.chunked_out = std::move(chk_out_);
    if (opts_.vllm)
      for (int f = 0; f < 2; ++f) {
        res_.vllm_out[f] = std::move(vl_out_[f]);
        res_.vllm_lse[f].resize(static_cast<std::size_t>(T_) * s_.N, 0.0f);  // T = 0: stays empty
      }
  }

  const Case& c_;
  const CheckOptions& opts_;
  CheckResult& res_;
  const Plan& plan_;
  const Inputs in_;
  const Shape& s_;
  const int threads_;
  CheckProgress at_;
  const Engine eng_;
  const Engine ref_eng_;
  std::vector<Work> ref_, chk_;
  const TokenGroups groups_ = token_groups(c_, plan_, true);
  std::vector<std::vector<Work>> ranks_;  // [work][rank]: each rank's running partial (Plan::local_attention)
  std::int64_t T_ = 0;
  std::size_t per_token_ = 0;
  std::vector<std::vector<RowSource>> sims_;
  std::vector<ChunkMovement> mvs_;
  std::vector<Row> rows_;
  std::vector<float> po_, pl_, mo_, ml_;  // the current entry's partial, the merge's scratch
  std::vector<float> ref_out_, chk_out_;
  std::vector<double> ora_out_;
  std::vector<float> vl_out_[2];
  const ContextMerge cm_ = context_merge(plan_);  // the engine's merges (merge_rules.h)
};

// ---------------------------------------------------------------------------------------------
// PCP: every rank's rows through the chunked pipeline, against the global requests' reference.

// The unchunked reference of every global request with new tokens (context 0..ctx-1 and the
// causal suffix), exact path: [request] -> [token][head][v dim].
std::vector<std::vector<float>> global_reference(const Case& c, const Inputs& in, const CheckOptions& opts) {
  const Engine eng(in, std::max(1, opts.threads));
  std::vector<Work> works;
  for (std::size_t r = 0; r < c.ctx.size(); ++r) {
    if (c.q[r] <= 0) continue;
    Work& w = works.emplace_back();
    w.request = static_cast<int>(r);
    w.qn = static_cast<int>(c.q[r]);
    w.ctx = c.ctx[r];
    w.q = in.query[r].data();
  }
  reference_outputs(eng, in, works, true, false, opts.stop);
  std::vector<std::vector<float>> out(c.ctx.size());
  for (const Work& w : works) {
    auto& o = out[static_cast<std::size_t>(w.request)];
    o.resize(w.num.size());
    for (std::size_t e = 0; e < w.num.size(); ++e)
      o[e] = normalize(w.num[e], w.den[e / static_cast<std::size_t>(in.s.Vd)]);
  }
  return out;
}

// One rank's result folded into the case's: outputs in rank order, every row token compared
// with its global request's reference (the chunked output and the rank's own unchunked one,
// which must be the same integers: the exact sums do not depend on the partition).
struct PcpFold {
  CheckResult& res;
  const Case& c;
  const std::vector<std::vector<float>>& gref;
  std::size_t per_token;
  int Vd;
  std::int64_t token = 0;

  void add(const PcpRankView& v, CheckResult& rr) {
    std::int64_t t0 = 0;
    for (int i : v.plan.prefills)  // a merged row's tokens: a's, then b's
      for (const PcpRow* row : {&v.lead_of[static_cast<std::size_t>(i)], &v.row_of[static_cast<std::size_t>(i)]}) {
        const std::int64_t off = row->start - c.ctx[static_cast<std::size_t>(row->request)];
        if (res.exact.ran)
          for (std::int64_t t = 0; t < row->len; ++t) compare_token(*row, off + t, t0 + t);
        t0 += row->len;
      }
    append(res.chunked_out, rr.chunked_out);
    append(res.reference_lse, rr.reference_lse);
    for (int f = 0; f < 2; ++f) {
      append(res.vllm_out[f], rr.vllm_out[f]);
      append(res.vllm_lse[f], rr.vllm_lse[f]);
      fold_flavour(res.vllm.flavours[f], rr.vllm.flavours[f]);
    }
    res.exact.overflow |= rr.exact.overflow;
    for (RequestRouting rt : rr.exact.routing) {
      rt.request = v.row_of[static_cast<std::size_t>(rt.request)].request;  // rows name their global request
      res.exact.routing.push_back(std::move(rt));
    }
    res.prefill_tokens += rr.prefill_tokens;
    res.context_rows += rr.context_rows;
    res.attended_rows += rr.attended_rows;
  }
  // Row token `local` of this rank (its outputs at rank token t) is token `in_req` of the request.
  void compare_token(const PcpRow& row, std::int64_t in_req, std::int64_t local) {
    const std::vector<float>& g = gref[static_cast<std::size_t>(row.request)];
    const float* ref = g.data() + static_cast<std::size_t>(in_req) * per_token;
    res.reference_out.insert(res.reference_out.end(), ref, ref + per_token);
    pending_.push_back({row.request, in_req, local});
  }
  void finish_rank(const CheckResult& rr) {
    ExactResult& ex = res.exact;
    for (const auto& [req, in_req, local] : pending_) {
      const float* ref = gref[static_cast<std::size_t>(req)].data() + static_cast<std::size_t>(in_req) * per_token;
      const std::size_t base = static_cast<std::size_t>(local) * per_token;
      for (std::size_t e = 0; e < per_token; ++e) {
        const float got = rr.chunked_out[base + e], own = rr.reference_out[base + e];
        const bool bad = bits_of(got) != bits_of(ref[e]) || bits_of(own) != bits_of(ref[e]) || is_nan(got);
        ++ex.elements;
        if (!bad || ex.differing++ > 0) continue;
        ex.first = ElementAt{.token = token + local,
                             .request = req,
                             .token_in_request = in_req,
                             .head = res.heads[e / static_cast<std::size_t>(Vd)],
                             .dim = static_cast<int>(e % static_cast<std::size_t>(Vd))};
        ex.ref_bits = bits_of(ref[e]);
        ex.got_bits = bits_of(got);
      }
    }
    pending_.clear();
    token += rr.prefill_tokens;
  }

  struct Pending {
    int req;
    std::int64_t in_req, local;
  };
  std::vector<Pending> pending_;
  static void append(std::vector<float>& to, const std::vector<float>& from) {
    to.insert(to.end(), from.begin(), from.end());
  }
  static void fold_flavour(FlavourResult& to, const FlavourResult& from) {
    to.flavour = from.flavour;
    if (from.max_abs > to.max_abs) {
      to.max_abs = from.max_abs;
      to.worst = from.worst;
    }
    to.max_rel = std::max(to.max_rel, from.max_rel);
    to.max_ulp = std::max(to.max_ulp, from.max_ulp);
    if (to.nan == 0 && from.nan > 0) to.first_nan = from.first_nan;
    to.nan += from.nan;
    to.inf += from.inf;
    to.within_bound = to.within_bound && from.within_bound;
  }
};

// A pcp plan: every PCP rank's v6 plan over its rows (pcp_rank_views), each through the chunked
// pipeline; every row token against the unchunked reference of its global request, bit for bit.
void run_pcp_check(const Case& c, const CheckOptions& opts, CheckResult& res) {
  const Inputs global = selected_inputs(c, opts, res);
  const std::vector<PcpRankView> views = pcp_rank_views(c, global);
  const std::vector<std::vector<float>> gref =
      opts.exact ? global_reference(c, global, opts) : std::vector<std::vector<float>>(c.ctx.size());
  CheckOptions ro = opts;
  ro.keep_outputs = true;
  ro.plan = nullptr;
  res.exact.ran = opts.exact;
  res.vllm.ran = opts.vllm;
  res.vllm.production = res.plan.merge;
  res.vllm.bound_abs = kVllmBoundAbs;
  res.vllm.bound_rel = kVllmBoundRel;
  PcpFold fold{res, c, gref, static_cast<std::size_t>(global.s.N) * global.s.Vd, global.s.Vd};
  for (const PcpRankView& v : views) {
    CheckResult rr;
    rr.c = v.rows;
    rr.plan = v.plan;
    rr.heads = res.heads;
    rr.all_heads = res.all_heads;
    if (!v.plan.built) {
      res.assert_fired = true;
      res.assert_text = "PCP rank " + std::to_string(v.rank) + ": no plan could be built over its rows";
      return;
    }
    CheckRun(v.rows, ro, rr, v.in).run();
    fold.add(v, rr);
    if (opts.exact) fold.finish_rank(rr);
  }
  if (!opts.exact) res.reference_out.clear();
  if (!opts.keep_outputs) {
    res.reference_out.clear();
    res.chunked_out.clear();
    res.reference_lse.clear();
    for (int f = 0; f < 2; ++f) {
      res.vllm_out[f].clear();
      res.vllm_lse[f].clear();
    }
  }
}

// The rank's rows as its plan's batch: one manager row each, or under ctx_reuse (#57668) a merged
// row where the manager's pair (a, b) stands (PcpRank::merges: b = a + 1).
void rank_rows(const PcpRank& rk, PcpRankView& v) {
  v.row_of.clear();
  v.lead_of.clear();
  std::size_t m = 0;
  for (std::size_t i = 0; i < rk.rows.size(); ++i) {
    const bool pair = m < rk.merges.size() && rk.merges[m].row_a == static_cast<int>(i);
    PcpRow lead = rk.rows[i];
    lead.len = 0;
    if (pair) {
      lead = rk.rows[i];
      ++i, ++m;
    }
    v.lead_of.push_back(lead);
    v.row_of.push_back(rk.rows[i]);
  }
}

// A row's query tokens (start - N .. start - N + len - 1 of its request's) appended to `q`.
void append_row_query(const Case& c, const Inputs& global, const PcpRow& row, std::vector<float>& q) {
  const auto req = static_cast<std::size_t>(row.request);
  const std::size_t per = static_cast<std::size_t>(global.s.N) * global.s.qk();
  const std::int64_t off = row.start - c.ctx[req];
  if (off < 0 || off + row.len > c.q[req])
    throw std::logic_error("pcp_rank_views: row (" + std::to_string(row.request) + ", " + std::to_string(row.start) +
                           ", " + std::to_string(row.len) + ") lies outside its request's new tokens");
  const auto& g = global.query[req];
  q.insert(q.end(), g.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(off) * per),
           g.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(off + row.len) * per));
}

}  // namespace

std::vector<PcpRankView> pcp_rank_views(const Case& c, const Inputs& global) {
  const Plan first = make_plan(c);
  if (!first.pcp) throw std::logic_error("pcp_rank_views: not a pcp plan");
  std::vector<PcpRankView> out;
  for (std::int64_t r = 0; r < first.pcp->size; ++r) {
    PcpRankView& v = out.emplace_back();
    v.rank = static_cast<int>(r);
    Case k = c;
    k.pcp_rank = r;
    v.plan = make_plan(k);
    rank_rows(v.plan.pcp->ranks[static_cast<std::size_t>(r)], v);
    v.rows = c;
    v.rows.ctx = v.plan.pcp->batch_ctx;
    v.rows.q = v.plan.pcp->batch_q;
    v.in = global;
    v.in.ctx = v.rows.ctx;
    v.in.q = v.rows.q;
    v.in.block_table.clear();
    v.in.query.clear();
    for (std::size_t i = 0; i < v.row_of.size(); ++i) {
      v.in.block_table.push_back(global.block_table[static_cast<std::size_t>(v.row_of[i].request)]);
      auto& q = v.in.query.emplace_back();
      append_row_query(c, global, v.lead_of[i], q);  // a merged row: a's tokens first, then b's
      append_row_query(c, global, v.row_of[i], q);
    }
  }
  return out;
}

CheckResult run_check(const Case& c, const CheckOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckResult res;
  res.c = c;
  res.plan = opts.plan ? *opts.plan : make_plan(c);
  if (stopped_by_plan(c, res)) return res;
  if (res.plan.pcp)
    run_pcp_check(c, opts, res);
  else
    CheckRun(c, opts, res).run();
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace cp::mla

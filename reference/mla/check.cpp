// The CPU numerics check: unchunked reference vs chunked pipeline (exact path), and the
// vLLM-style path vs a float64 oracle. See check.h for the contract, docs/numerics.md for why.
#include "reference/mla/check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <iterator>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "reference/dcp/movement.h"
#include "reference/dcp/simulate.h"
#include "reference/mla/inputs.h"
#include "reference/mla/math/all.h"
#include "reference/mla/math/exact_bins.h"

namespace cp::mla {

namespace {

// merge_attn_states over `tokens` x `heads` rows of `dim` floats, every tensor contiguous
// ([token][head][dim], lse [head][token]); flavour 0 = Triton, 1 = CUDA.
void merge_contiguous(int flavour, float* out, float* out_lse, const float* prefix, const float* prefix_lse,
                      const float* suffix, const float* suffix_lse, int tokens, int heads, int dim) {
  const long ts = static_cast<long>(heads) * dim, hs = dim;
  const MergeTensors m{out,    out_lse,    ts, hs, prefix, prefix_lse, ts, hs,
                       suffix, suffix_lse, ts, hs, tokens, heads,      dim};
  merge_attn_states(flavour == 0 ? MergeFlavour::triton : MergeFlavour::cuda, m);
}

using Row = std::uint16_t;  // bf16 bits

// The up-projection kernel: out[i][j] = bf16(sum_l x[i][l] * W[l][j]) for rows [0, n) and
// columns [c0, c1), every element with the order of dot_step over l = 0..L-1 (one IEEE
// multiply, one IEEE add, never fused: -ffp-contract=off). Register tiles of kR rows x kC*8
// columns are held in vector registers across the whole L loop (GCC vector extensions: each
// lane is one element's own scalar sequence, so the SIMD width changes no bit); W rows stream
// from L1/L2 once per row tile. Cloned for AVX2 (no FMA) and the x86-64 baseline.
using V8 = float __attribute__((vector_size(32)));

template <int kR, int kC>
__attribute__((always_inline)) inline void up_tile(const float* x, int L, const float* W, long ld, float* out,
                                                   long ldo) {
  V8 acc[kR][kC];
  for (int r = 0; r < kR; ++r)
    for (int c = 0; c < kC; ++c) acc[r][c] = V8{};
  for (int l = 0; l < L; ++l) {
    V8 wv[kC];
    for (int c = 0; c < kC; ++c) std::memcpy(&wv[c], W + l * ld + 8 * c, sizeof(V8));
    for (int r = 0; r < kR; ++r) {
      const float xr = x[r * L + l];
      const V8 xv = {xr, xr, xr, xr, xr, xr, xr, xr};
      for (int c = 0; c < kC; ++c) acc[r][c] = acc[r][c] + xv * wv[c];
    }
  }
  for (int r = 0; r < kR; ++r)
    for (int c = 0; c < kC; ++c) {
      float t[8];
      std::memcpy(t, &acc[r][c], sizeof(V8));
      for (int k = 0; k < 8; ++k) out[r * ldo + 8 * c + k] = round_to_bf16(t[k]);  // kv_b_proj output is bf16
    }
}

// One column strip (kC*8 columns) for every row, 4 rows at a time; W rows at stride ldw
// (16 for a packed strip), out rows at stride ldo.
template <int kC>
__attribute__((always_inline)) inline void up_strip(const float* x, std::int64_t n, int L, const float* W, long ldw,
                                                    float* out, long ldo) {
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) up_tile<4, kC>(x + i * L, L, W, ldw, out + i * ldo, ldo);
  for (; i < n; ++i) up_tile<1, kC>(x + i * L, L, W, ldw, out + i * ldo, ldo);
}

// W [L][ld] as strips of 16 columns, each strip [L][16] contiguous (what up_tile streams).
std::vector<float> pack_strips(const std::vector<float>& W, int L, long ld) {
  const long strips = ld / 16;
  std::vector<float> p(static_cast<std::size_t>(strips * L * 16));
  for (long st = 0; st < strips; ++st)
    for (int l = 0; l < L; ++l) std::copy_n(W.begin() + l * ld + st * 16, 16, p.begin() + (st * L + l) * 16);
  return p;
}

// out[i][0..ld) for rows [0, n): packed strips (Wp, from pack_strips) for the first ld/16*16
// columns, W itself for the rest.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx2", "default")))
#endif
void up_project_rows(const float* x, std::int64_t n, int L, const float* W, long ld, const float* Wp, float* out) {
  constexpr std::int64_t kRowBlock = 64;  // x block (64 x L floats) stays in L2 across the strips
  const long strips = ld / 16;
  for (std::int64_t r0 = 0; r0 < n; r0 += kRowBlock) {
    const std::int64_t rn = std::min(kRowBlock, n - r0);
    const float* xb = x + r0 * L;
    float* ob = out + r0 * ld;
    for (long st = 0; st < strips; ++st) up_strip<2>(xb, rn, L, Wp + st * L * 16, 16, ob + st * 16, ld);
    long j = strips * 16;
    for (; j + 8 <= ld; j += 8) up_strip<1>(xb, rn, L, W + j, ld, ob + j, ld);
    for (; j < ld; ++j)
      for (std::int64_t i = 0; i < rn; ++i) {
        float acc = 0.0f;
        for (int l = 0; l < L; ++l) acc = dot_step(acc, xb[i * L + l], W[l * ld + j]);
        ob[i * ld + j] = round_to_bf16(acc);
      }
  }
}

// A v element's ExactAcc::decompose, done once per (row, head) for every token that sums it.
struct Decomposed {
  std::uint32_t m;  // mantissa (< 2^24)
  std::int16_t e;   // exponent
  bool neg;
  bool finite;
};

inline Decomposed decompose_once(float x) {
  bool n = false;
  std::uint64_t m = 0;
  int e = 0;
  const bool f = ExactAcc::decompose(x, n, m, e);
  return {static_cast<std::uint32_t>(m), static_cast<std::int16_t>(e), n, f};
}

// ExactBins::add_scaled for the common term (2^-96 <= weight, e2 < 15 so the term is below
// 2^63 and lands in bin 0 or 1, count far from its limit): one 128-bit add or subtract, no
// branch on the bin. Every other term goes through add_scaled itself: the same integer,
// count and flags (the bins are ExactAcc's integer in another form: math/exact_bins.h).
inline void add_term(ExactBins& b, bool neg, std::uint64_t mant, int e2) {
  const int shift = e2 + ExactAcc::kFracBits;
  if (shift < 0 || e2 >= ExactAcc::kMaxTermLog2 - 48 || b.count >= ExactAcc::kMaxTerms - 1u) {
    b.add_scaled(neg, mant, e2);
    return;
  }
  ++b.count;
  __extension__ typedef unsigned __int128 U128;
  const U128 t = static_cast<U128>(mant) << (shift & 63);
  const int q = shift >> 6;
  U128 cur = (static_cast<U128>(b.hi[q]) << 64) | b.lo[q];
  cur = neg ? cur - t : cur + t;
  b.lo[q] = static_cast<std::uint64_t>(cur);
  b.hi[q] = static_cast<std::uint64_t>(cur >> 64);
}

// One prefill request's running state.
struct Work {
  int request = 0;
  int qn = 0;
  std::int64_t ctx = 0;
  std::int64_t token0 = 0;         // prefill token index of its first new token
  const float* q = nullptr;        // [qn][N][qk]
  std::vector<float> mx;           // [qn][N] global row max of the attended scores
  std::vector<float> ctx_scores;   // context keys, appended per batch: [rows][qn][N]
  std::size_t cursor = 0;          // read position of pass 2 in ctx_scores
  std::vector<float> suf_scores;   // causal suffix: [key j][qn][N]
  std::vector<ExactAcc> den, num;  // [qn][N], [qn][N][Vd]
  // vLLM path: running context partial per flavour ([qn][N][Vd], lse [N][qn]).
  bool have_part = false;
  std::vector<float> part_out[2], part_lse[2];
  // float64 oracle (reference only)
  std::vector<double> o_den, o_num;
};

// Runs fn(lo, hi) over ranges of [0, count) on up to `threads` std::threads (inline when the
// work is small). Callers split only independent items: each item keeps its own sequential
// order, so the split changes no bit.
template <class F>
void parallel_for(int threads, std::int64_t count, std::int64_t work, F&& fn) {
  const auto t = static_cast<int>(std::min<std::int64_t>(threads, count));
  if (t <= 1 || work < (1 << 16)) {
    fn(std::int64_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  for (int k = 1; k < t; ++k) {
    const std::int64_t lo = count * k / t, hi = count * (k + 1) / t;
    if (lo < hi) pool.emplace_back([&fn, lo, hi] { fn(lo, hi); });
  }
  fn(std::int64_t{0}, count / t);
  for (auto& th : pool) th.join();
}

class Engine {
 public:
  Engine(const Inputs& in, int threads)
      : in_(in),
        s_(in.s),
        threads_(threads),
        wk_pack_(std::make_shared<const std::vector<float>>(
            pack_strips(in.w_uk, in.s.L, static_cast<long>(in.s.N) * in.s.Pn))),
        wv_pack_(std::make_shared<const std::vector<float>>(
            pack_strips(in.w_uv, in.s.L, static_cast<long>(in.s.N) * in.s.Vd))) {}
  // The same engine on another number of threads (the packed weights are shared, not copied).
  Engine(const Engine& e, int threads)
      : in_(e.in_), s_(e.s_), threads_(threads), wk_pack_(e.wk_pack_), wv_pack_(e.wv_pack_) {}

  void init(Work& w, bool oracle) const {
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    w.mx.assign(th, neg_inf());
    w.ctx_scores.clear();
    w.cursor = 0;
    w.suf_scores.assign(static_cast<std::size_t>(w.qn) * th, 0.0f);
    ExactAcc z;
    z.clear();
    w.den.assign(th, z);
    w.num.assign(th * static_cast<std::size_t>(s_.Vd), z);
    if (oracle) {
      w.o_den.assign(th, 0.0);
      w.o_num.assign(th * static_cast<std::size_t>(s_.Vd), 0.0);
    }
  }

  // Pass 1: up-project K once per row, score every (token, head), update the row max.
  // causal: the rows are the request's new tokens 0..n-1 and token t sees keys j <= t.
  void scores(Work& w, const Row* rows, std::int64_t n, bool causal) const {
    float* out;
    if (causal) {
      out = w.suf_scores.data();
    } else {
      const std::size_t at = w.ctx_scores.size();
      w.ctx_scores.resize(at + static_cast<std::size_t>(n * w.qn * s_.N));
      out = w.ctx_scores.data() + at;
    }
    if (n == 0) return;
    const int N = s_.N, Pn = s_.Pn, Rr = s_.Rr, qk = s_.qk(), qn = w.qn;
    std::vector<float> kn(static_cast<std::size_t>(n) * N * Pn);
    std::vector<float> kpe(static_cast<std::size_t>(n) * Rr);
    for (std::int64_t i = 0; i < n; ++i)
      for (int e = 0; e < Rr; ++e) kpe[i * Rr + e] = bf16_to_float(rows[i * s_.row() + s_.L + e]);
    // K rows are independent: split rows; then each (token, head) keeps its order over rows.
    parallel_for(threads_, n, n * N * s_.L * Pn, [&](std::int64_t i0, std::int64_t i1) {
      up_project(rows + i0 * s_.row(), i1 - i0, in_.w_uk, *wk_pack_, Pn, kn.data() + i0 * N * Pn);
    });
    parallel_for(threads_, static_cast<std::int64_t>(qn) * N, n * qn * N * qk, [&](std::int64_t th0, std::int64_t th1) {
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t th = th0; th < th1; ++th) {
          const int t = static_cast<int>(th / N), h = static_cast<int>(th % N);
          if (causal && t < i) continue;
          const float d = dot_concat(w.q + (t * N + h) * qk, kn.data() + (i * N + h) * Pn, Pn, kpe.data() + i * Rr, Rr);
          const float sc = mul_rn(d, in_.scale);
          out[(i * qn + t) * N + h] = sc;
          float& m = w.mx[static_cast<std::size_t>(th)];
          m = max_sel(sc, m);
        }
    });
  }

  // vLLM path: the fp32 softmax of one chunk's rows for a request, accumulated over
  // consecutive sub-batches of those rows (same sequential order as one batch).
  struct Partial {
    std::vector<float> m, l, acc;  // [qn][N], [qn][N], [qn][N][Vd]
  };
  // The chunk max of the next `n` stored context scores (or of the causal suffix).
  void begin_partial(const Work& w, std::int64_t n, bool causal, Partial& p) const {
    const int N = s_.N, qn = w.qn;
    const std::size_t th = static_cast<std::size_t>(qn) * N;
    p.m.assign(th, neg_inf());
    p.l.assign(th, 0.0f);
    p.acc.assign(th * static_cast<std::size_t>(s_.Vd), 0.0f);
    const float* sc = causal ? w.suf_scores.data() : w.ctx_scores.data() + w.cursor;
    for (std::int64_t i = 0; i < n; ++i)
      for (int t = causal ? static_cast<int>(i) : 0; t < qn; ++t)
        for (int h = 0; h < N; ++h) {
          float& m = p.m[static_cast<std::size_t>(t * N + h)];
          m = max_sel(sc[(i * qn + t) * N + h], m);
        }
  }
  // (out [qn][N][Vd], lse [N][qn]); no rows: (0, -inf).
  void end_partial(const Work& w, const Partial& p, float* out, float* lse) const {
    const int N = s_.N, Vd = s_.Vd, qn = w.qn;
    for (int t = 0; t < qn; ++t)
      for (int h = 0; h < N; ++h) {
        const std::size_t th = static_cast<std::size_t>(t * N + h);
        float* o = out + th * Vd;
        float& l = lse[static_cast<std::size_t>(h) * qn + t];
        if (p.m[th] == neg_inf()) {
          for (int d = 0; d < Vd; ++d) o[d] = 0.0f;
          l = neg_inf();
          continue;
        }
        for (int d = 0; d < Vd; ++d) o[d] = div_rn(p.acc[th * Vd + d], p.l[th]);
        l = add_rn(p.m[th], log_cp(p.l[th]));
      }
  }

  // Pass 2: up-project V once per row; exact accumulation of w = exp(s - max) and w * v.
  // With `oracle`, the same terms in float64 (libm exp). With `part` (vLLM path), the fp32
  // softmax sums of these rows against the partial's chunk max.
  void accumulate(Work& w, const Row* rows, std::int64_t n, bool causal, bool exact, bool oracle, Partial* part) const {
    const float* sc;
    if (causal) {
      sc = w.suf_scores.data();
    } else {
      sc = w.ctx_scores.data() + w.cursor;
      w.cursor += static_cast<std::size_t>(n * w.qn * s_.N);
    }
    const int N = s_.N, Vd = s_.Vd, qn = w.qn;
    std::vector<float> v(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)) * N * Vd);
    if (n > 0)
      parallel_for(threads_, n, n * N * s_.L * Vd, [&](std::int64_t i0, std::int64_t i1) {
        up_project(rows + i0 * s_.row(), i1 - i0, in_.w_uv, *wv_pack_, Vd, v.data() + i0 * N * Vd);
      });
    if (exact)
      parallel_for(threads_, N, n * qn * N * Vd * 4, [&](std::int64_t h0, std::int64_t h1) {
        for (std::int64_t h = h0; h < h1; ++h) accumulate_exact(w, v.data(), sc, n, causal, static_cast<int>(h));
      });
    if (!oracle && part == nullptr) return;
    // Every (token, head) sums its own rows in order: split (token, head) pairs.
    parallel_for(threads_, static_cast<std::int64_t>(qn) * N, n * qn * N * Vd * 8,
                 [&](std::int64_t th0, std::int64_t th1) {
                   for (std::int64_t tth = th0; tth < th1; ++tth) {
                     const int t = static_cast<int>(tth / N), h = static_cast<int>(tth % N);
                     const std::size_t th = static_cast<std::size_t>(t * N + h);
                     const std::int64_t last = causal ? std::min<std::int64_t>(n, t + 1) : n;
                     if (oracle) {
                       const float m = w.mx[th];
                       for (std::int64_t i = 0; i < last; ++i) {
                         const float s = sc[(i * qn + t) * N + h];
                         const float* vi = v.data() + (i * N + h) * Vd;
                         const double p = std::exp(static_cast<double>(s) - static_cast<double>(m));
                         w.o_den[th] += p;
                         for (int d = 0; d < Vd; ++d) w.o_num[th * Vd + d] += p * static_cast<double>(vi[d]);
                       }
                     }
                     if (part != nullptr) {
                       const float m = part->m[th];
                       float& l = part->l[th];
                       float* o = part->acc.data() + th * Vd;
                       for (std::int64_t i = 0; i < last; ++i) {
                         const float p = exp_cp(sub_rn(sc[(i * qn + t) * N + h], m));
                         l = add_rn(l, p);
                         const float* vi = v.data() + (i * N + h) * Vd;
                         for (int d = 0; d < Vd; ++d) o[d] = dot_step(o[d], p, vi[d]);
                       }
                     }
                   }
                 });
  }

 private:
  // The exact sums of head h for every token over rows [0, n): den += w, num[d] += w * v[d]
  // with w = exp(s - max). Each v row is decomposed once for all tokens; the numerators are
  // summed in ExactBins (one 128-bit add per term) and merged into the ExactAcc at the end:
  // integer addition, so the same integer, count and flags as adding each term to the ExactAcc.
  void accumulate_exact(Work& w, const float* v, const float* sc, std::int64_t n, bool causal, int h) const {
    const int N = s_.N, Vd = s_.Vd, qn = w.qn;
    thread_local std::vector<ExactBins> bins;
    thread_local std::vector<Decomposed> vd;
    bins.resize(static_cast<std::size_t>(qn) * Vd);
    vd.resize(static_cast<std::size_t>(Vd));
    for (std::int64_t i0 = 0; i0 < n; i0 += ExactBins::kMaxBinTerms) {
      const std::int64_t i1 = std::min<std::int64_t>(n, i0 + ExactBins::kMaxBinTerms);
      for (auto& b : bins) b.clear();
      for (std::int64_t i = i0; i < i1; ++i) {
        const float* vi = v + (i * N + h) * Vd;
        for (int d = 0; d < Vd; ++d) vd[static_cast<std::size_t>(d)] = decompose_once(vi[d]);
        for (int t = causal ? static_cast<int>(i) : 0; t < qn; ++t) {
          const std::size_t th = static_cast<std::size_t>(t * N + h);
          const float p = exp_cp(sub_rn(sc[(i * qn + t) * N + h], w.mx[th]));
          w.den[th].add(p);
          ExactBins* b = bins.data() + static_cast<std::size_t>(t) * Vd;
          const Decomposed pd = decompose_once(p);
          for (int d = 0; d < Vd; ++d) {
            const Decomposed& y = vd[static_cast<std::size_t>(d)];
            if (pd.finite && y.finite)
              add_term(b[d], pd.neg != y.neg, std::uint64_t{pd.m} * y.m, pd.e + y.e);
            else
              b[d].add_nonfinite();
          }
        }
      }
      for (int t = 0; t < qn; ++t) {
        ExactAcc* num = w.num.data() + static_cast<std::size_t>(t * N + h) * Vd;
        const ExactBins* b = bins.data() + static_cast<std::size_t>(t) * Vd;
        for (int d = 0; d < Vd; ++d) num[d].merge(b[d].to_acc());
      }
    }
  }

  // out[i][h][0..cols) = bf16(kv_c_i . W[:, h, :]) for every head: for every element the
  // fixed order over L of axpy_rows (dot.h), computed by up_project_rows (register tiles, many
  // elements side by side, each element's own order unchanged).
  void up_project(const Row* rows, std::int64_t n, const std::vector<float>& W, const std::vector<float>& Wp, int cols,
                  float* out) const {
    const int L = s_.L, N = s_.N;
    const long ld = static_cast<long>(N) * cols;
    std::vector<float> x(static_cast<std::size_t>(n * L));
    for (std::int64_t i = 0; i < n; ++i)
      for (int l = 0; l < L; ++l) x[static_cast<std::size_t>(i * L + l)] = bf16_to_float(rows[i * s_.row() + l]);
    up_project_rows(x.data(), n, L, W.data(), ld, Wp.data(), out);
  }

  const Inputs& in_;
  const Shape s_;
  int threads_;
  std::shared_ptr<const std::vector<float>> wk_pack_, wv_pack_;  // W_UK / W_UV as 16-column strips
};

// The chunk's workspace rows [0, total) as the version's data path produces them. Under DCP:
// each rank gathers padded local rows from its own shard (cp_gather_cache: local slot
// local_start + k), the all-gather concatenates ranks, reorg keeps kept[r] rows per rank and
// request; rows nothing wrote hold stale garbage. Without DCP: the version's gather kernel.
std::vector<Row> build_workspace(const Inputs& in, const Plan& p, const Chunk& ch, std::size_t ci) {
  const int R = in.s.row();
  const ChunkMovement m = chunk_movement(p, ch);
  std::vector<Row> ws(static_cast<std::size_t>(m.total_rows * R));
  const std::uint64_t stale_stream = 1000 + ci;
  if (!m.dcp) {
    for (const auto& g : m.gather)
      for (std::int64_t k = 0; k < g.len; ++k) in.fetch(g.request, g.src + k, ws.data() + (g.dst + k) * R);
    return ws;
  }
  std::vector<Row> G(static_cast<std::size_t>(m.gathered_rows * R));  // all-gather output, rank-major
  for (std::int64_t r = 0; r < p.dcp; ++r)
    for (const auto& g : m.gather)
      for (std::int64_t k = 0; k < g.len; ++k) {
        Row* dst = G.data() + (r * m.local_rows + g.dst + k) * R;
        if (const Row* src = in.local_row(g.request, r, g.src + k))
          std::copy(src, src + R, dst);
        else
          in.garbage_row(2 + static_cast<std::uint64_t>(r),
                         (static_cast<std::uint64_t>(g.request) << 40) ^ static_cast<std::uint64_t>(g.src + k), dst);
      }
  for (std::int64_t t = 0; t < m.total_rows; ++t)
    in.garbage_row(stale_stream, static_cast<std::uint64_t>(t), ws.data() + t * R);
  for (const auto& run : m.reorg)
    std::copy(G.data() + run.src * R, G.data() + (run.src + run.len) * R, ws.data() + run.dst * R);
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

void reference_outputs(const Engine& eng, const Inputs& in, std::vector<Work>& works, bool exact, bool oracle) {
  const int R = in.s.row();
  constexpr std::int64_t kBatch = kSubBatch;
  std::vector<Row> rows;
  auto load = [&](const Work& w, std::int64_t p0, std::int64_t n) {
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

}  // namespace

namespace {

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

// One check run in stages (DESIGN §1): the works, the chunked pipeline's two passes, the outputs
// and the merge, then the comparisons. The unchunked reference runs beside the pipeline.
class CheckRun {
 public:
  CheckRun(const Case& c, const CheckOptions& opts, CheckResult& res)
      : c_(c),
        opts_(opts),
        res_(res),
        plan_(res.plan),
        in_(selected_inputs(c, opts, res)),
        s_(in_.s),
        threads_(std::max(1, opts.threads)),
        eng_(in_, threads_ - threads_ / 2),
        ref_eng_(eng_, std::max(1, threads_ / 2)) {}

  void run() {
    make_works();
    // The unchunked reference and the chunked pipeline share nothing but the inputs: with two
    // or more threads they run side by side on half the threads each (every sum keeps its own
    // order, so no bit depends on it). The future joins (and rethrows) at .get() below, or in
    // its destructor if the pipeline throws first.
    std::future<void> reference = std::async(threads_ >= 2 ? std::launch::async : std::launch::deferred,
                                             [&] { reference_outputs(ref_eng_, in_, ref_, opts_.exact, opts_.vllm); });
    chunk_scores_pass();
    chunk_accumulate_pass();
    reference.get();
    outputs_and_merge();
    if (opts_.exact) compare_exact();
    record_routing();
    if (opts_.vllm) compare_vllm();
    keep_outputs();
  }

 private:
  // One Work per prefill, in prefill order; prefill token index of each.
  void make_works() {
    ref_.resize(plan_.prefills.size());
    chk_.resize(plan_.prefills.size());
    work_of_.assign(c_.ctx.size(), -1);
    for (std::size_t k = 0; k < plan_.prefills.size(); ++k) {
      const int r = plan_.prefills[k];
      for (auto* w : {&ref_[k], &chk_[k]}) {
        w->request = r;
        w->qn = static_cast<int>(c_.q[static_cast<std::size_t>(r)]);
        w->ctx = c_.ctx[static_cast<std::size_t>(r)];
        w->token0 = T_;
        w->q = in_.query[static_cast<std::size_t>(r)].data();
      }
      work_of_[static_cast<std::size_t>(r)] = static_cast<int>(k);
      T_ += c_.q[static_cast<std::size_t>(r)];
      res_.context_rows += c_.ctx[static_cast<std::size_t>(r)];
    }
    res_.prefill_tokens = T_;
    per_token_ = static_cast<std::size_t>(s_.N) * s_.Vd;
  }
  Work& work_for(const ChunkEntry& e) {
    return chk_[static_cast<std::size_t>(work_of_[static_cast<std::size_t>(e.request)])];
  }
  void load_suffix(const Work& w) {
    rows_.resize(static_cast<std::size_t>(w.qn * s_.row()));
    for (int k = 0; k < w.qn; ++k) in_.fetch(w.request, w.ctx + k, rows_.data() + k * s_.row());
  }

  // Pass 1: the data path per chunk (checked against the index simulation) and every score.
  void chunk_scores_pass() {
    sims_.resize(plan_.chunks.size());
    for (std::size_t ci = 0; ci < plan_.chunks.size(); ++ci) sims_[ci] = simulate_chunk(c_, plan_, plan_.chunks[ci]);
    for (auto& w : chk_) eng_.init(w, false);
    for (std::size_t ci = 0; ci < plan_.chunks.size(); ++ci) {
      const Chunk& ch = plan_.chunks[ci];
      const auto ws = build_workspace(in_, plan_, ch, ci);
      cross_check(in_, ws, sims_[ci], ci);
      for (std::size_t b = 0; b < ch.entries.size(); ++b) {
        Work& w = work_for(ch.entries[b]);
        const std::int64_t n = ch.cu_seq_lens[b + 1] - ch.cu_seq_lens[b];
        const Row* base = ws.data() + ch.cu_seq_lens[b] * s_.row();
        for (std::int64_t k = 0; k < n; k += kSubBatch)
          eng_.scores(w, base + k * s_.row(), std::min(kSubBatch, n - k), false);
        res_.attended_rows += n;
      }
    }
    for (auto& w : chk_) {
      load_suffix(w);
      eng_.scores(w, rows_.data(), w.qn, true);
    }
  }

  // Pass 2: the exact sums and the vLLM-style partial of every entry, merged per request in plan
  // order (the first piece of a request's context is copied, later ones merged).
  void chunk_accumulate_pass() {
    for (std::size_t ci = 0; ci < plan_.chunks.size(); ++ci) {
      const Chunk& ch = plan_.chunks[ci];
      const auto ws = build_workspace(in_, plan_, ch, ci);
      for (std::size_t b = 0; b < ch.entries.size(); ++b) {
        Work& w = work_for(ch.entries[b]);
        const std::int64_t n = ch.cu_seq_lens[b + 1] - ch.cu_seq_lens[b];
        accumulate_entry(w, ws.data() + ch.cu_seq_lens[b] * s_.row(), n);
        if (!opts_.vllm) continue;
        if (opts_.keep_outputs)
          res_.vllm_partials.push_back(
              {static_cast<int>(ci), static_cast<int>(b), w.request, w.qn, w.token0, po_, pl_});
        fold_partial(w);
      }
    }
  }
  void accumulate_entry(Work& w, const Row* base, std::int64_t n) {
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    po_.assign(th * s_.Vd, 0.0f);
    pl_.assign(th, neg_inf());
    Engine::Partial part;
    if (opts_.vllm) eng_.begin_partial(w, n, false, part);
    for (std::int64_t k = 0; k < n; k += kSubBatch)
      eng_.accumulate(w, base + k * s_.row(), std::min(kSubBatch, n - k), false, opts_.exact, false,
                      opts_.vllm ? &part : nullptr);
    if (opts_.vllm) eng_.end_partial(w, part, po_.data(), pl_.data());
  }
  void fold_partial(Work& w) {
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    for (int f = 0; f < 2; ++f) {
      if (!w.have_part) {  // first piece of the request's context: copy
        w.part_out[f] = po_;
        w.part_lse[f] = pl_;
        continue;
      }
      mo_.assign(th * s_.Vd, 0.0f);
      ml_.assign(th, 0.0f);
      merge_contiguous(f, mo_.data(), ml_.data(), w.part_out[f].data(), w.part_lse[f].data(), po_.data(), pl_.data(),
                       w.qn, s_.N, s_.Vd);
      w.part_out[f] = mo_;
      w.part_lse[f] = ml_;
    }
    w.have_part = true;
  }

  // The causal suffix of every request, the exact outputs of both paths, the oracle, and the
  // vLLM path's final merge(context, suffix) per flavour.
  void outputs_and_merge() {
    ref_out_.assign(static_cast<std::size_t>(T_) * per_token_, 0.0f);
    chk_out_.assign(ref_out_.size(), 0.0f);
    ora_out_.assign(ref_out_.size(), 0.0);
    for (auto& v : vl_out_) v.assign(ref_out_.size(), 0.0f);
    for (std::size_t k = 0; k < chk_.size(); ++k) {
      Work& w = chk_[k];
      load_suffix(w);
      const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
      po_.assign(th * s_.Vd, 0.0f);
      pl_.assign(th, neg_inf());
      Engine::Partial part;
      if (opts_.vllm) eng_.begin_partial(w, w.qn, true, part);
      eng_.accumulate(w, rows_.data(), w.qn, true, opts_.exact, false, opts_.vllm ? &part : nullptr);
      if (opts_.vllm) eng_.end_partial(w, part, po_.data(), pl_.data());
      normalize_outputs(w, ref_[k]);
      if (opts_.vllm) merge_with_suffix(w);
    }
  }
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
    const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
    const std::size_t base = static_cast<std::size_t>(w.token0) * per_token_;
    for (int f = 0; f < 2; ++f) {
      if (!w.have_part) {  // never in a chunk (ctx = 0 under the packed planner): (0, -inf)
        w.part_out[f].assign(th * s_.Vd, 0.0f);
        w.part_lse[f].assign(th, neg_inf());
      }
      std::vector<float> lse(th);  // [N][qn]
      merge_contiguous(f, vl_out_[f].data() + base, lse.data(), w.part_out[f].data(), w.part_lse[f].data(), po_.data(),
                       pl_.data(), w.qn, s_.N, s_.Vd);
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
    }
    for (std::size_t ci = 0; ci < plan_.chunks.size(); ++ci) {
      const Chunk& ch = plan_.chunks[ci];
      for (std::size_t b = 0; b < ch.entries.size(); ++b) {
        const int r = ch.entries[b].request;
        const auto k = static_cast<std::size_t>(work_of_[static_cast<std::size_t>(r)]);
        for (std::int64_t t = ch.cu_seq_lens[b]; t < ch.cu_seq_lens[b + 1]; ++t)
          route_row(rt[k], cnt[k], r, sims_[ci][static_cast<std::size_t>(t)]);
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
    if (rs.kind == RowKind::context && rs.request == r) {
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
  const Engine eng_;
  const Engine ref_eng_;
  std::vector<Work> ref_, chk_;
  std::vector<int> work_of_;
  std::int64_t T_ = 0;
  std::size_t per_token_ = 0;
  std::vector<std::vector<RowSource>> sims_;
  std::vector<Row> rows_;
  std::vector<float> po_, pl_, mo_, ml_;  // the current entry's partial, the merge's scratch
  std::vector<float> ref_out_, chk_out_;
  std::vector<double> ora_out_;
  std::vector<float> vl_out_[2];
};

}  // namespace

CheckResult run_check(const Case& c, const CheckOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckResult res;
  res.c = c;
  res.plan = make_plan(c);
  if (stopped_by_plan(c, res)) return res;
  CheckRun(c, opts, res).run();
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

std::string ranges_text(const std::vector<std::pair<std::int64_t, std::int64_t>>& r, std::size_t max_items) {
  std::ostringstream os;
  for (std::size_t i = 0; i < r.size() && i < max_items; ++i)
    os << (i ? ", " : "") << "[" << r[i].first << ", " << r[i].second << ")";
  if (r.size() > max_items) os << ", ... (" << r.size() << " ranges)";
  return os.str();
}

int CheckResult::exit_code() const {
  if (assert_fired) return 1;
  if (exact.ran && exact.differing > 0) return 1;
  if (vllm.ran && !vllm.ok()) return 1;
  if (exact.ran && exact.overflow) return 3;
  return 0;
}

std::string CheckResult::one_line() const {
  std::ostringstream os;
  if (assert_fired) return "assert fired: " + assert_text;
  if (exact.ran) {
    if (exact.overflow && exact.differing == 0) {
      os << "inconclusive: exact accumulator overflow";
    } else if (exact.differing == 0) {
      os << "bits identical (" << exact.elements << " elements";
      if (static_cast<int>(heads.size()) < all_heads) os << ", " << heads.size() << " of " << all_heads << " heads";
      os << ")";
    } else {
      const auto& f = *exact.first;
      os << "bits differ: " << exact.differing << "/" << exact.elements << " elements, first at token " << f.token
         << " (request " << f.request << " t" << f.token_in_request << ") head " << f.head << " dim " << f.dim;
      for (const auto& r : exact.routing) {
        if (r.exact()) continue;
        os << "; request " << r.request << ":";
        if (r.n_missing) os << " missing " << r.n_missing;
        if (r.n_twice) os << " twice " << r.n_twice;
        if (r.foreign_context) os << " foreign " << r.foreign_context;
        if (r.new_token_rows) os << " new-token " << r.new_token_rows;
        if (r.stale_rows) os << " stale " << r.stale_rows;
      }
    }
  }
  if (vllm.ran) {
    const auto& p = vllm.prod();
    if (exact.ran) os << "; ";
    os << "vllm " << (vllm.production == MergeFlavour::triton ? "triton" : "cuda") << ": ";
    if (p.nan)
      os << p.nan << " NaN";
    else if (p.inf)
      os << p.inf << " inf";
    else {
      std::ostringstream e;
      e.precision(2);
      e << std::scientific << p.max_abs;
      os << "max abs " << e.str() << ", max rel " << p.max_rel << ", " << p.max_ulp << " bf16 ulp";
    }
    os << (p.within_bound ? " (within bound)" : " (OUT OF BOUND)");
  }
  return os.str();
}

Case random_case(Version v, Platform p, std::uint64_t seed, std::uint64_t index) {
  std::uint64_t k = 0;
  auto next = [&](std::uint64_t mod) { return counter_hash(seed, 77, (index << 8) + k++) % mod; };
  Case c;
  c.version = v;
  c.platform = p;
  c.seed = counter_hash(seed, 78, index);
  const VersionInfo& vi = info(v);
  static constexpr std::int64_t kBlocks[] = {1, 2, 4, 8, 16, 32, 64, 3, 6, 12};
  c.block = kBlocks[next(std::size(kBlocks))];
  c.dcp = vi.supports_dcp ? static_cast<std::int64_t>(1 + next(8)) : 1;
  c.interleave = 1;
  if (vi.supports_interleave && c.dcp > 1 && next(3) != 0) {
    std::vector<std::int64_t> divs;
    for (std::int64_t d = 1; d <= c.block; ++d)
      if (c.block % d == 0) divs.push_back(d);
    c.interleave = divs[next(divs.size())];
  }
  const std::int64_t V = c.interleave * c.dcp;
  const int n = static_cast<int>(1 + next(5));
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const std::int64_t ctx = next(5) == 0 ? 0 : static_cast<std::int64_t>(next(next(2) ? 200 : 900));
    c.ctx.push_back(ctx);
    c.q.push_back(static_cast<std::int64_t>(1 + next(5)));
    total += ctx;
  }
  // A workspace that forces several chunks: a multiple of lcm(B, V) (packed sizing guarantees
  // it; the old versions get it too, so only their own planning errors show).
  const std::int64_t align = std::lcm(c.block, V);
  const auto units = static_cast<std::uint64_t>(std::max<std::int64_t>(1, total / align / 2));
  c.workspace = align * static_cast<std::int64_t>(1 + next(units));
  order_decodes_first(c);
  validate_case(c);
  return c;
}

}  // namespace cp::mla

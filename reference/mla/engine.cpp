// The CPU numerics engine (engine.h): the up-projection kernel, the exact accumulation and the
// per-request stages (scores, accumulate, the vLLM-style partial) the check drives.
#include "reference/mla/engine.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>

#include "reference/mla/math/all.h"
#include "reference/mla/math/exact_bins.h"

namespace cp::mla::detail {

namespace {

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

}  // namespace

Engine::Engine(const Inputs& in, int threads)
    : in_(in),
      s_(in.s),
      threads_(threads),
      wk_pack_(std::make_shared<const std::vector<float>>(
          pack_strips(in.w_uk, in.s.L, static_cast<long>(in.s.N) * in.s.Pn))),
      wv_pack_(std::make_shared<const std::vector<float>>(
          pack_strips(in.w_uv, in.s.L, static_cast<long>(in.s.N) * in.s.Vd))) {}

Engine::Engine(const Engine& e, int threads)
    : in_(e.in_), s_(e.s_), threads_(threads), wk_pack_(e.wk_pack_), wv_pack_(e.wv_pack_) {}

void Engine::init(Work& w, bool oracle) const {
  const std::size_t th = static_cast<std::size_t>(w.qn) * s_.N;
  w.mx.assign(th, neg_inf());
  w.ctx_scores.clear();
  w.cursor = 0;
  w.suf_scores.assign(static_cast<std::size_t>(w.lead_q + w.qn) * th, 0.0f);
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
void Engine::scores(Work& w, const Row* rows, std::int64_t n, bool causal) const {
  float* out;
  if (causal) {  // lead_q + qn suffix keys (init sized the store for them)
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
        if (causal && i >= causal_end(t, n, qn)) continue;
        const float d = dot_concat(w.q + (t * N + h) * qk, kn.data() + (i * N + h) * Pn, Pn, kpe.data() + i * Rr, Rr);
        const float sc = mul_rn(d, in_.scale);
        out[(i * qn + t) * N + h] = sc;
        float& m = w.mx[static_cast<std::size_t>(th)];
        m = max_sel(sc, m);
      }
  });
}

// The chunk max of the next `n` stored context scores (or of the causal suffix).
void Engine::begin_partial(const Work& w, std::int64_t n, bool causal, Partial& p) const {
  const int N = s_.N, qn = w.qn;
  const std::size_t th = static_cast<std::size_t>(qn) * N;
  p.m.assign(th, neg_inf());
  p.l.assign(th, 0.0f);
  p.acc.assign(th * static_cast<std::size_t>(s_.Vd), 0.0f);
  const float* sc = causal ? w.suf_scores.data() : w.ctx_scores.data() + w.cursor;
  for (std::int64_t i = 0; i < n; ++i)
    for (int t = causal ? static_cast<int>(causal_first_token(i, n, qn)) : 0; t < qn; ++t)
      for (int h = 0; h < N; ++h) {
        float& m = p.m[static_cast<std::size_t>(t * N + h)];
        m = max_sel(sc[(i * qn + t) * N + h], m);
      }
}
// (out [qn][N][Vd], lse [N][qn]); no rows: (0, -inf).
void Engine::end_partial(const Work& w, const Partial& p, float* out, float* lse) const {
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
void Engine::accumulate(Work& w, const Row* rows, std::int64_t n, bool causal, bool exact, bool oracle,
                        Partial* part) const {
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
                   const std::int64_t last = causal ? std::min<std::int64_t>(n, causal_end(t, n, qn)) : n;
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

// The exact sums of head h for every token over rows [0, n): den += w, num[d] += w * v[d]
// with w = exp(s - max). Each v row is decomposed once for all tokens; the numerators are
// summed in ExactBins (one 128-bit add per term) and merged into the ExactAcc at the end:
// integer addition, so the same integer, count and flags as adding each term to the ExactAcc.
void Engine::accumulate_exact(Work& w, const float* v, const float* sc, std::int64_t n, bool causal, int h) const {
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
      for (int t = causal ? static_cast<int>(causal_first_token(i, n, qn)) : 0; t < qn; ++t) {
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
void Engine::up_project(const Row* rows, std::int64_t n, const std::vector<float>& W, const std::vector<float>& Wp,
                        int cols, float* out) const {
  const int L = s_.L, N = s_.N;
  const long ld = static_cast<long>(N) * cols;
  std::vector<float> x(static_cast<std::size_t>(n * L));
  for (std::int64_t i = 0; i < n; ++i)
    for (int l = 0; l < L; ++l) x[static_cast<std::size_t>(i * L + l)] = bf16_to_float(rows[i * s_.row() + l]);
  up_project_rows(x.data(), n, L, W.data(), ld, Wp.data(), out);
}

}  // namespace cp::mla::detail

// Attention: scores and the global max, the exact accumulation and normalize, the vLLM-style
// partial and merge_attn_states.
// Kernel + launcher layers of the MLA reference pipeline (the stages of reference/mla/stages.h):
// each kernel mirrors one stage of the CPU reference and uses the same CP_HD math
// (reference/mla/math), so the bits match.
#include "kernels/src/mla_common.h"
#include "reference/mla/math/exact_bins.h"

namespace cp::gpu {
namespace {

using mla::ExactAcc;

// Order-preserving integer image of a float (max of images == image of max, -0 < +0).
__device__ std::uint32_t ordered(float x) {
  const std::uint32_t u = mla::bits_of(x);
  return (u >> 31) ? ~u : (u | 0x80000000u);
}
__device__ float unordered(std::uint32_t k) { return mla::float_of((k >> 31) ? (k & 0x7fffffffu) : ~k); }

// Scores, simple form (one thread per output, serial over q.k): the fallback when a tile of the
// tiled kernel does not fit in shared memory (q.k length > kScMaxQk).
__global__ void scores_kernel(const float* q, int qn, int N, int Pn, int Rr, const float* kn, const float* kpe,
                              std::int64_t n, bool causal, float scale, float* store, std::int64_t key0,
                              std::uint32_t* mx_key) {
  const std::int64_t idx = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t per_row = static_cast<std::int64_t>(qn) * N;
  if (idx >= n * per_row) return;
  // Tokens vary fastest: the qn threads of one (key, head) read the same k row (broadcast).
  const std::int64_t i = idx / per_row;
  const int h = static_cast<int>((idx % per_row) / qn), t = static_cast<int>(idx % qn);
  if (causal && i >= mla::causal_end(t, n, qn)) return;  // math/causal.h
  const int qk = Pn + Rr;
  const float d =
      mla::dot_concat(q + (static_cast<std::int64_t>(t) * N + h) * qk, kn + (i * N + h) * Pn, Pn, kpe + i * Rr, Rr);
  const float sc = mla::mul_rn(d, scale);
  store[(key0 + i) * per_row + t * N + h] = sc;
  cp_atomic_max_u32(mx_key + t * N + h, ordered(sc));
}

// Scores, tiled: one block per (head, tile of kScKeys keys, tile of kScTok tokens). The q rows
// of the token tile and the concatenated [k_nope, k_pe] rows of the key tile are staged in
// shared memory (rows padded by one word: no bank conflicts); each thread computes kScPer
// outputs, each with the exact order of dot_concat (acc = +0, then j = 0..qk-1, k_nope before
// k_pe, mul then add, never fused), so every score has the CPU's bits. The max goes through a
// per-block shared max of the order-preserving integer image, then one global atomic per
// (token, head) and block: a max is order-free.
constexpr int kScTok = 16;
constexpr int kScKeys = 32;
constexpr int kScThreads = 256;
constexpr int kScPer = kScTok * kScKeys / kScThreads;
constexpr int kScMaxQk = 250;  // (kScTok + kScKeys) * (qk + 1) * 4 bytes <= 48 KiB
__global__ void __launch_bounds__(kScThreads)
    scores_tiled_kernel(const float* q, int qn, int N, int Pn, int Rr, const float* kn, const float* kpe,
                        std::int64_t n, bool causal, float scale, float* store, std::int64_t key0,
                        std::uint32_t* mx_key) {
  extern __shared__ float sm[];
  __shared__ std::uint32_t mxs[kScTok];
  const int qk = Pn + Rr, ld = qk + 1;
  float* qs = sm;                // [kScTok][ld]
  float* ks = sm + kScTok * ld;  // [kScKeys][ld]
  const int h = static_cast<int>(blockIdx.x % static_cast<unsigned>(N));
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.x / static_cast<unsigned>(N)) * kScKeys;
  const int t0 = static_cast<int>(blockIdx.y) * kScTok;
  const int nt = min(kScTok, qn - t0);
  const int nk = static_cast<int>(min64(kScKeys, n - i0));
  for (int e = threadIdx.x; e < kScTok * qk; e += blockDim.x) {
    const int tt = e / qk, j = e % qk;
    qs[tt * ld + j] = tt < nt ? q[(static_cast<std::int64_t>(t0 + tt) * N + h) * qk + j] : 0.0f;
  }
  for (int e = threadIdx.x; e < kScKeys * qk; e += blockDim.x) {
    const int kk = e / qk, j = e % qk;
    float x = 0.0f;
    if (kk < nk) {
      const std::int64_t i = i0 + kk;
      x = j < Pn ? kn[(i * N + h) * Pn + j] : kpe[i * Rr + (j - Pn)];
    }
    ks[kk * ld + j] = x;
  }
  if (threadIdx.x < kScTok) mxs[threadIdx.x] = 0u;
  __syncthreads();
  constexpr int kStride = kScThreads / kScTok;
  const int tt = static_cast<int>(threadIdx.x) % kScTok, kb = static_cast<int>(threadIdx.x) / kScTok;
  const float* qa = qs + tt * ld;
  float acc[kScPer];
#pragma unroll
  for (int r = 0; r < kScPer; ++r) acc[r] = 0.0f;
  for (int j = 0; j < qk; ++j) {
    const float a = qa[j];
#pragma unroll
    for (int r = 0; r < kScPer; ++r) acc[r] = mla::dot_step(acc[r], a, ks[(kb + r * kStride) * ld + j]);
  }
  const std::int64_t per_row = static_cast<std::int64_t>(qn) * N;
  const int t = t0 + tt;
#pragma unroll
  for (int r = 0; r < kScPer; ++r) {
    const int kk = kb + r * kStride;
    const std::int64_t i = i0 + kk;
    if (tt >= nt || kk >= nk || (causal && i >= mla::causal_end(t, n, qn))) continue;
    const float sc = mla::mul_rn(acc[r], scale);
    store[(key0 + i) * per_row + static_cast<std::int64_t>(t) * N + h] = sc;
    cp_atomic_max_u32(&mxs[tt], ordered(sc));
  }
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < nt) cp_atomic_max_u32(mx_key + (t0 + threadIdx.x) * N + h, mxs[threadIdx.x]);
}

// Scores, register-tiled (issue 15): one block of kSrThreads threads per (head, tile of kSrKeys
// keys, tile of kSrTok tokens); each thread a 4 x 4 register tile: tokens tg*4 + 0..3 and keys
// kg + kSrKeyGroups * 0..3 (tg = tid / kSrKeyGroups, kg = tid % kSrKeyGroups). The q.k loop
// runs in steps of kSrStep: the step's q rows and concatenated [k_nope, k_pe] rows are staged in
// shared memory in their global layout ([row][j], rows padded to kSrLd: the staging stores and
// the 16-byte k loads of consecutive key groups are conflict-free, the q loads broadcast), then
// every thread runs acc = dot_step(acc, q[t][j], k[i][j]) for j = j0 .. j0 + kSrStep - 1 in
// order; the next step's values are loaded into registers (16-byte loads where the layout
// allows) before the current step's arithmetic, so their latency is hidden. Each score
// therefore keeps dot_concat's order (acc = +0, j = 0..qk-1, k_nope before
// k_pe, mul then add, never fused): the CPU's bits. The max: each thread's own maximum per
// token, then the block's (shared, order-preserving integer image), then one global atomic per
// (token, head) and block: a max is order-free.
constexpr int kSrTok = 16;
constexpr int kSrKeyGroups = 32;
constexpr int kSrKeys = 4 * kSrKeyGroups;
constexpr int kSrThreads = kSrTok / 4 * kSrKeyGroups;
constexpr int kSrStep = 16;
constexpr int kSrLd = kSrStep + 4;  // 16-byte aligned rows; 8 consecutive rows start at 8 distinct 4-bank groups

constexpr int kSrGroups = (kSrTok + kSrKeys) * (kSrStep / 4);        // 4-float groups of a step
constexpr int kSrSlots = (kSrGroups + kSrThreads - 1) / kSrThreads;  // per thread (the last one partial)

// Load q.k columns [j0, j0 + kSrStep) of the token and key tiles into registers (zeros past
// the tile's and the row's ends): slot m of a thread is row e / (kSrStep / 4), columns
// 4 (e % (kSrStep / 4)) + 0..3, e = tid + m kSrThreads. `vec`: 16-byte loads (Pn, Rr multiples
// of 4, pointers aligned: kVec), else one element at a time. The loads of the next step are issued
// before the current step's arithmetic (scores_reg_kernel), so their latency is hidden.
template <bool kVec>
__device__ void scores_load(float4 (&pre)[kSrSlots], const float* q, int qn, int N, int Pn, int Rr, const float* kn,
                            const float* kpe, std::int64_t n, int h, int t0, std::int64_t i0, int j0) {
  const int qk = Pn + Rr;
#pragma unroll
  for (int m = 0; m < kSrSlots; ++m) {
    const int e = static_cast<int>(threadIdx.x) + m * kSrThreads;
    if (e >= kSrGroups) break;
    const int r = e / (kSrStep / 4), j = j0 + (e % (kSrStep / 4)) * 4;
    const bool is_q = r < kSrTok;
    const std::int64_t i = i0 + (r - kSrTok);
    const bool row_ok = is_q ? t0 + r < qn : i < n;
    if (kVec) {  // j < qk: the 4 elements lie in k_nope or in k_pe (Pn, Rr multiples of 4)
      float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (row_ok && j < qk)
        x = *reinterpret_cast<const float4*>(is_q     ? q + (static_cast<std::int64_t>(t0 + r) * N + h) * qk + j
                                             : j < Pn ? kn + (i * N + h) * Pn + j
                                                      : kpe + i * Rr + (j - Pn));
      pre[m] = x;
      continue;
    }
    float x[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int jc = j + c;
      if (!row_ok || jc >= qk) continue;
      x[c] = is_q      ? q[(static_cast<std::int64_t>(t0 + r) * N + h) * qk + jc]
             : jc < Pn ? kn[(i * N + h) * Pn + jc]
                       : kpe[i * Rr + (jc - Pn)];
    }
    pre[m] = make_float4(x[0], x[1], x[2], x[3]);
  }
}

__device__ void scores_store(const float4 (&pre)[kSrSlots], float (*qs)[kSrLd], float (*ks)[kSrLd]) {
#pragma unroll
  for (int m = 0; m < kSrSlots; ++m) {
    const int e = static_cast<int>(threadIdx.x) + m * kSrThreads;
    if (e >= kSrGroups) break;
    const int r = e / (kSrStep / 4), c = (e % (kSrStep / 4)) * 4;
    float* dst = r < kSrTok ? &qs[r][c] : &ks[r - kSrTok][c];
    *reinterpret_cast<float4*>(dst) = pre[m];
  }
}

template <bool kVec, int kMinBlocks>
__global__ void CP_LAUNCH_BOUNDS_MIN_BLOCKS(kSrThreads, kMinBlocks)
    scores_reg_kernel(const float* q, int qn, int N, int Pn, int Rr, const float* kn, const float* kpe, std::int64_t n,
                      bool causal, float scale, float* store, std::int64_t key0, std::uint32_t* mx_key) {
  alignas(16) __shared__ float qs[kSrTok][kSrLd];
  alignas(16) __shared__ float ks[kSrKeys][kSrLd];
  __shared__ std::uint32_t mxs[kSrTok];
  const int qk = Pn + Rr;
  const int h = static_cast<int>(blockIdx.x % static_cast<unsigned>(N));
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.x / static_cast<unsigned>(N)) * kSrKeys;
  const int t0 = static_cast<int>(blockIdx.y) * kSrTok;
  const int tid = static_cast<int>(threadIdx.x);
  const int tg = tid / kSrKeyGroups, kg = tid % kSrKeyGroups;
  if (tid < kSrTok) mxs[tid] = 0u;
  float acc[4][4];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) acc[a][b] = 0.0f;
  float4 pre[kSrSlots];
  scores_load<kVec>(pre, q, qn, N, Pn, Rr, kn, kpe, n, h, t0, i0, 0);
  for (int j0 = 0; j0 < qk; j0 += kSrStep) {
    const int kk = min(kSrStep, qk - j0);
    scores_store(pre, qs, ks);
    __syncthreads();
    if (j0 + kSrStep < qk) scores_load<kVec>(pre, q, qn, N, Pn, Rr, kn, kpe, n, h, t0, i0, j0 + kSrStep);
    if (kk == kSrStep) {
#pragma unroll 2
      for (int j = 0; j < kSrStep; j += 4) {
        float4 qa[4], kb[4];
#pragma unroll
        for (int a = 0; a < 4; ++a) qa[a] = *reinterpret_cast<const float4*>(&qs[tg * 4 + a][j]);
#pragma unroll
        for (int b = 0; b < 4; ++b) kb[b] = *reinterpret_cast<const float4*>(&ks[kg + b * kSrKeyGroups][j]);
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
          for (int b = 0; b < 4; ++b) {
            acc[a][b] = mla::dot_step(acc[a][b], qa[a].x, kb[b].x);
            acc[a][b] = mla::dot_step(acc[a][b], qa[a].y, kb[b].y);
            acc[a][b] = mla::dot_step(acc[a][b], qa[a].z, kb[b].z);
            acc[a][b] = mla::dot_step(acc[a][b], qa[a].w, kb[b].w);
          }
      }
    } else {  // the last, partial step: exactly qk terms per score, no padding terms
      for (int j = 0; j < kk; ++j)
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
          for (int b = 0; b < 4; ++b)
            acc[a][b] = mla::dot_step(acc[a][b], qs[tg * 4 + a][j], ks[kg + b * kSrKeyGroups][j]);
    }
    __syncthreads();
  }
  const std::int64_t per_row = static_cast<std::int64_t>(qn) * N;
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    const int t = t0 + tg * 4 + a;
    if (t >= qn) continue;
    std::uint32_t mine = 0u;
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const std::int64_t i = i0 + kg + b * kSrKeyGroups;
      if (i >= n || (causal && i >= mla::causal_end(t, n, qn))) continue;
      const float sc = mla::mul_rn(acc[a][b], scale);
      store[(key0 + i) * per_row + static_cast<std::int64_t>(t) * N + h] = sc;
      const std::uint32_t o = ordered(sc);
      mine = o > mine ? o : mine;
    }
    if (mine != 0u) cp_atomic_max_u32(&mxs[tg * 4 + a], mine);
  }
  __syncthreads();
  if (tid < kSrTok && t0 + tid < qn) cp_atomic_max_u32(mx_key + (t0 + tid) * N + h, mxs[tid]);
}

__global__ void decode_max_kernel(const std::uint32_t* k, std::int64_t count, float* mx) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) mx[i] = k[i] == 0u ? mla::neg_inf() : unordered(k[i]);
}

constexpr std::int64_t kKeyTile = 512;
constexpr int kExTok = 4;  // tokens per block: each v element loaded once for kExTok accumulators

// Exact accumulation of one key tile: one block per (head, tile of kExTok tokens, key tile).
// First the block computes each weight p = exp_cp(s - m) once into shared memory (the CPU's
// per-term function); then thread d < Vd adds p * v[d] (ExactAcc::add_product) and thread Vd
// adds p (the denominator) for each token of the tile. Integer accumulation: the order of the
// adds does not matter, the terms are the CPU's.
__global__ void exact_tile_kernel(const float* store, std::int64_t key0, std::int64_t n, bool causal, int qn, int N,
                                  int Vd, const float* mx, const float* v, ExactAcc* scratch) {
  // Each weight p = exp_cp(s - m) is computed once per (key, token) by the block and kept
  // decomposed (ExactAcc::decompose: sign in bit 31 of the mantissa word, kNonFiniteP for inf/NaN);
  // every thread then decomposes its v element once per key and adds m_p * m_v * 2^(e_p + e_v),
  // i.e. ExactAcc::add_product's term, without redoing the decomposition per term.
  constexpr int kNonFiniteP = -100000;
  __shared__ std::uint32_t pm[kKeyTile][kExTok];
  __shared__ int pe[kKeyTile][kExTok];
  const int ttiles = (qn + kExTok - 1) / kExTok;
  const std::int64_t b = blockIdx.x;
  const int tt_tile = static_cast<int>(b % ttiles);
  const int h = static_cast<int>((b / ttiles) % N);
  const std::int64_t tile = b / (static_cast<std::int64_t>(ttiles) * N);
  const int t0 = tt_tile * kExTok;
  const std::int64_t lo = tile * kKeyTile;
  const std::int64_t per_row = static_cast<std::int64_t>(qn) * N;
  auto end_of = [&](int k) {  // keys [lo, end) of token t0 + k in this tile
    const int t = t0 + k;
    std::int64_t e = t < qn ? min64(n, lo + kKeyTile) : lo;
    if (causal) e = min64(e, mla::causal_end(t, n, qn));
    return e;
  };
  std::int64_t hi[kExTok];
  std::int64_t hi_max = lo;
#pragma unroll
  for (int k = 0; k < kExTok; ++k) {
    hi[k] = end_of(k);
    hi_max = hi[k] > hi_max ? hi[k] : hi_max;
  }
#pragma unroll 4
  for (int e = threadIdx.x; e < kKeyTile * kExTok; e += blockDim.x) {
    const int k = e % kExTok;
    const std::int64_t i = lo + e / kExTok;
    const int t = t0 + k;
    float p = 0.0f;
    if (i < end_of(k)) p = mla::exp_cp(mla::sub_rn(store[(key0 + i) * per_row + t * N + h], mx[t * N + h]));
    bool neg = false;
    std::uint64_t m = 0;
    int ex = 0;
    const bool fin = ExactAcc::decompose(p, neg, m, ex);
    pm[e / kExTok][k] = static_cast<std::uint32_t>(m) | (neg ? 0x80000000u : 0u);
    pe[e / kExTok][k] = fin ? ex : kNonFiniteP;
  }
  __syncthreads();
  const int d = threadIdx.x;
  if (d >= Vd) return;
  // ExactWin: the same integers as ExactAcc term by term (a short term is one 64-bit add into a
  // window, any other one 128-bit add into its bin); a tile holds kKeyTile <= kMaxTerms terms.
  // v is bf16-rounded (the up-projection writes round_to_bf16), so its 24-bit mantissa has 16
  // low zero bits: m_p * (m_v >> 16) < 2^32 at exponent e_p + e_v + 16 is the same term.
  static_assert(kKeyTile <= mla::ExactWin::kMaxTerms, "a key tile must fit the windows");
  mla::ExactWin acc[kExTok];
#pragma unroll
  for (int k = 0; k < kExTok; ++k) acc[k].clear();
  std::int64_t hi_min = hi_max;  // keys below it count for every token of the tile
#pragma unroll
  for (int k = 0; k < kExTok; ++k) hi_min = hi[k] < hi_min ? hi[k] : hi_min;
  // v two keys ahead (its load latency behind the current key's terms).
  auto v_at = [&](std::int64_t i) { return i < hi_max ? v[(i * N + h) * Vd + d] : 0.0f; };
  float va = v_at(lo), vb = v_at(lo + 1);
  for (std::int64_t i = lo; i < hi_max; ++i) {
    const int r = static_cast<int>(i - lo);
    const float vcur = va;
    va = vb;
    vb = v_at(i + 2);
    bool vneg = false;
    std::uint64_t vm = 0;
    int ve = 0;
    const bool vfin = ExactAcc::decompose(vcur, vneg, vm, ve);
    const bool vshort = vfin && (vm & 0xffffu) == 0u;
    const std::uint32_t vm8 = static_cast<std::uint32_t>(vm >> 16);
    const bool every = i < hi_min;
#pragma unroll
    for (int k = 0; k < kExTok; ++k)
      if (every || i < hi[k]) {
        const std::uint32_t w = pm[r][k];
        const int e = pe[r][k];
        const bool neg = ((w >> 31) != 0u) != vneg;
        if (vshort && e != kNonFiniteP)
          acc[k].add_short(neg, (w & 0x7fffffffu) * vm8, e + ve + 16);
        else if (!vfin || e == kNonFiniteP)
          acc[k].add_nonfinite();
        else
          acc[k].add_scaled(neg, static_cast<std::uint64_t>(w & 0x7fffffffu) * vm, e + ve);
      }
  }
#pragma unroll
  for (int k = 0; k < kExTok; ++k)
    if (t0 + k < qn)
      scratch[(tile * per_row + static_cast<std::int64_t>(t0 + k) * N + h) * (Vd + 1) + d] = acc[k].to_acc();
}

// The denominators of one key tile: one thread per (token, head) adds the tile's weights
// exp_cp(s - m) (the same function and bits as the numerators' weights) — ExactAcc::add's terms —
// and writes the tile's accumulator at index Vd of the tile's scratch row. Kept out of
// exact_tile_kernel so that its blocks are Vd threads, a whole number of warps.
__global__ void exact_den_kernel(const float* store, std::int64_t key0, std::int64_t n, bool causal, int qn, int N,
                                 int Vd, const float* mx, std::int64_t tiles, ExactAcc* scratch) {
  const std::int64_t per_row = static_cast<std::int64_t>(qn) * N;
  const std::int64_t idx = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= tiles * per_row) return;
  const std::int64_t tile = idx / per_row, th = idx % per_row;  // th = t * N + h
  const int t = static_cast<int>(th / N);
  const std::int64_t lo = tile * kKeyTile;
  std::int64_t end = min64(n, lo + kKeyTile);
  if (causal) end = min64(end, mla::causal_end(t, n, qn));
  const float m = mx[th];
  mla::ExactBins acc;
  acc.clear();
  for (std::int64_t i = lo; i < end; ++i) acc.add(mla::exp_cp(mla::sub_rn(store[(key0 + i) * per_row + th], m)));
  scratch[(tile * per_row + th) * (Vd + 1) + Vd] = acc.to_acc();
}

__global__ void exact_merge_kernel(const ExactAcc* scratch, std::int64_t tiles, std::int64_t per_row, int Vd,
                                   ExactAcc* num, ExactAcc* den) {
  const std::int64_t idx = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= per_row * (Vd + 1)) return;
  const std::int64_t th = idx / (Vd + 1);
  const int d = static_cast<int>(idx % (Vd + 1));
  ExactAcc& a = d == Vd ? den[th] : num[th * Vd + d];
  for (std::int64_t tile = 0; tile < tiles; ++tile) a.merge(scratch[tile * per_row * (Vd + 1) + idx]);
}

__global__ void init_acc_kernel(ExactAcc* a, std::int64_t count) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) a[i].clear();
}

__global__ void normalize_kernel(const ExactAcc* num, const ExactAcc* den, std::int64_t th, int Vd, float* out,
                                 std::uint32_t* flags) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= th * Vd) return;
  const ExactAcc& nm = num[i];
  const ExactAcc& dn = den[i / Vd];
  out[i] = mla::normalize(nm, dn);
  if (!nm.ok() || !dn.ok()) cp_atomic_or_u32(flags, 1u);
}

// vLLM-style partial of one piece: one block per (head, tile of kVlTok tokens); thread d < Vd
// owns out[t][h][d] for the tile's tokens. Per token: m = the first maximum of the scores in
// key order (max_sel's semantics: NaN skipped, ties keep the earlier key, so -0/+0 resolve as
// on the CPU), found by a block reduction over (value, key); then, key tiles of kVlKeys at a
// time, the block computes p = exp_cp(s - m) once into shared memory and every thread runs the
// CPU's two sequential chains l = l + p, o = o + p * v[d] in key order (fp32, unfused).
constexpr int kVlTok = 4;
constexpr int kVlKeys = 256;
__global__ void vllm_partial_kernel(const float* store, std::int64_t key0, std::int64_t n, bool causal, int qn, int N,
                                    int Vd, const float* v, float* part_out, float* part_lse) {
  extern __shared__ std::int64_t vl_sm[];  // [kVlTok][blockDim] values, then keys, for the max
  float* red_v = reinterpret_cast<float*>(vl_sm);
  std::int64_t* red_i = vl_sm + kVlTok * blockDim.x;
  __shared__ float ps[kVlKeys][kVlTok];
  __shared__ float ms[kVlTok];
  const int ttiles = (qn + kVlTok - 1) / kVlTok;
  const int tt_tile = static_cast<int>(blockIdx.x % static_cast<unsigned>(ttiles));
  const int h = static_cast<int>(blockIdx.x / static_cast<unsigned>(ttiles));
  const int t0 = tt_tile * kVlTok;
  const std::int64_t per_row = static_cast<std::int64_t>(qn) * N;
  const int nthr = static_cast<int>(blockDim.x), tid = static_cast<int>(threadIdx.x);
  std::int64_t last[kVlTok];
  std::int64_t last_max = 0;
#pragma unroll
  for (int k = 0; k < kVlTok; ++k) {
    const int t = t0 + k;
    last[k] = t < qn ? (causal ? min64(n, mla::causal_end(t, n, qn)) : n) : 0;
    last_max = last[k] > last_max ? last[k] : last_max;
  }
  // The max: each thread scans keys tid, tid + nthr, ... (strict >, so its first maximum).
#pragma unroll
  for (int k = 0; k < kVlTok; ++k) {
    float bv = mla::neg_inf();
    std::int64_t bi = INT64_MAX;
    for (std::int64_t i = tid; i < last[k]; i += nthr) {
      const float x = store[(key0 + i) * per_row + static_cast<std::int64_t>(t0 + k) * N + h];
      if (x > bv) {
        bv = x;
        bi = i;
      }
    }
    red_v[k * nthr + tid] = bv;
    red_i[k * nthr + tid] = bi;
  }
  __syncthreads();
  if (tid < kVlTok) {  // combine in thread order: larger value, or equal value and earlier key
    float bv = mla::neg_inf();
    std::int64_t bi = INT64_MAX;
    for (int u = 0; u < nthr; ++u) {
      const float x = red_v[tid * nthr + u];
      const std::int64_t xi = red_i[tid * nthr + u];
      if (x > bv || (x == bv && xi < bi)) {
        bv = x;
        bi = xi;
      }
    }
    ms[tid] = bv;
  }
  __syncthreads();
  float m[kVlTok], l[kVlTok], o[kVlTok];
#pragma unroll
  for (int k = 0; k < kVlTok; ++k) {
    m[k] = ms[k];
    l[k] = 0.0f;
    o[k] = 0.0f;
  }
  const int d = tid;
  for (std::int64_t lo = 0; lo < last_max; lo += kVlKeys) {
    for (int e = tid; e < kVlKeys * kVlTok; e += nthr) {
      const int k = e % kVlTok;
      const std::int64_t i = lo + e / kVlTok;
      float p = 0.0f;
      if (i < last[k])
        p = mla::exp_cp(mla::sub_rn(store[(key0 + i) * per_row + static_cast<std::int64_t>(t0 + k) * N + h], m[k]));
      ps[e / kVlTok][k] = p;
    }
    __syncthreads();
    if (d < Vd) {
      const std::int64_t hi = min64(last_max, lo + kVlKeys);
      for (std::int64_t i = lo; i < hi; ++i) {
        const float vv = v[(i * N + h) * Vd + d];
        const int r = static_cast<int>(i - lo);
#pragma unroll
        for (int k = 0; k < kVlTok; ++k)
          if (i < last[k]) {
            const float p = ps[r][k];
            l[k] = mla::add_rn(l[k], p);
            o[k] = mla::dot_step(o[k], p, vv);
          }
      }
    }
    __syncthreads();
  }
  if (d >= Vd) return;
#pragma unroll
  for (int k = 0; k < kVlTok; ++k) {
    const int t = t0 + k;
    if (t >= qn) continue;
    const bool empty = m[k] == mla::neg_inf();
    part_out[(static_cast<std::int64_t>(t) * N + h) * Vd + d] = empty ? 0.0f : mla::div_rn(o[k], l[k]);
    if (d == 0)
      part_lse[static_cast<std::int64_t>(h) * qn + t] = empty ? mla::neg_inf() : mla::add_rn(m[k], mla::log_cp(l[k]));
  }
}

__global__ void merge_kernel(int flavour, mla::MergeTensors m, mla::MergeRule rule) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= m.tokens * m.heads) return;
  mla::merge_one(flavour == 0 ? mla::MergeFlavour::triton : mla::MergeFlavour::cuda, m, idx / m.heads, idx % m.heads,
                 rule);
}

}  // namespace

ScoresKernel scores_kernel_choice() {
  // CHUNKPROOF_GPU_SCORES=tiled32: the previous kernel (32 keys x 16 tokens per block, 2 scores
  // per thread), for A/B timing in `bench --device gpu`; both give the same bits.
  static const ScoresKernel k = [] {
    const char* e = std::getenv("CHUNKPROOF_GPU_SCORES");
    return e != nullptr && std::string(e) == "tiled32" ? ScoresKernel::tiled32 : ScoresKernel::reg4x4;
  }();
  return k;
}

void launch_scores(const float* q, int qn, int N, int Pn, int Rr, const float* kn, const float* kpe, std::int64_t n,
                   bool causal, float scale, float* store, std::int64_t key0, std::uint32_t* mx_key) {
  if (n <= 0 || qn <= 0) return;
  if (scores_kernel_choice() == ScoresKernel::reg4x4) {
    const dim3 grid(static_cast<unsigned>(N * ((n + kSrKeys - 1) / kSrKeys)),
                    static_cast<unsigned>((qn + kSrTok - 1) / kSrTok));
    // 16-byte loads when k_nope, k_pe and the pointers allow (Pn, Rr multiples of 4, aligned).
    auto aligned = [](const float* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0u; };
    const bool vec = Pn % 4 == 0 && Rr % 4 == 0 && aligned(q) && aligned(kn) && aligned(kpe);
    // Blocks per SM the registers are sized for (CHUNKPROOF_GPU_SCORES_BLOCKS=5|6: fewer registers,
    // a few spills, more warps; for A/B timing): same code, same bits.
    static const int blocks = [] {
      const char* e = std::getenv("CHUNKPROOF_GPU_SCORES_BLOCKS");
      return e != nullptr ? std::atoi(e) : 4;
    }();
    if (vec && blocks == 5)
      CP_LAUNCH((scores_reg_kernel<true, 5>), grid, kSrThreads, 0, 0, q, qn, N, Pn, Rr, kn, kpe, n, causal, scale,
                store, key0, mx_key);
    else if (vec && blocks == 6)
      CP_LAUNCH((scores_reg_kernel<true, 6>), grid, kSrThreads, 0, 0, q, qn, N, Pn, Rr, kn, kpe, n, causal, scale,
                store, key0, mx_key);
    else if (vec)
      CP_LAUNCH((scores_reg_kernel<true, 4>), grid, kSrThreads, 0, 0, q, qn, N, Pn, Rr, kn, kpe, n, causal, scale,
                store, key0, mx_key);
    else
      CP_LAUNCH((scores_reg_kernel<false, 4>), grid, kSrThreads, 0, 0, q, qn, N, Pn, Rr, kn, kpe, n, causal, scale,
                store, key0, mx_key);
    return;
  }
  if (Pn + Rr > kScMaxQk) {
    CP_LAUNCH(scores_kernel, blocks_for(n * qn * N, 256), 256, 0, 0, q, qn, N, Pn, Rr, kn, kpe, n, causal, scale, store,
              key0, mx_key);
    return;
  }
  // x: head fastest, then key tile (blocks of one key tile, all heads, run together: their
  // score writes share cache lines); y: token tile.
  const dim3 grid(static_cast<unsigned>(N * ((n + kScKeys - 1) / kScKeys)),
                  static_cast<unsigned>((qn + kScTok - 1) / kScTok));
  const std::size_t shmem = sizeof(float) * (kScTok + kScKeys) * static_cast<std::size_t>(Pn + Rr + 1);
  CP_LAUNCH(scores_tiled_kernel, grid, kScThreads, shmem, 0, q, qn, N, Pn, Rr, kn, kpe, n, causal, scale, store, key0,
            mx_key);
}
void launch_decode_max(const std::uint32_t* mx_key, std::int64_t count, float* mx) {
  if (count <= 0) return;
  CP_LAUNCH(decode_max_kernel, blocks_for(count, 256), 256, 0, 0, mx_key, count, mx);
}
std::int64_t exact_scratch_size(std::int64_t n, int qn, int N, int Vd) {
  const std::int64_t tiles = std::max<std::int64_t>(1, (n + kKeyTile - 1) / kKeyTile);
  return tiles * qn * N * (Vd + 1);
}
void launch_exact_accumulate(const float* store, std::int64_t key0, std::int64_t n, bool causal, int qn, int N, int Vd,
                             const float* mx, const float* v, ExactAcc* scratch, ExactAcc* num, ExactAcc* den) {
  if (n <= 0 || qn <= 0) return;
  const std::int64_t tiles = (n + kKeyTile - 1) / kKeyTile;
  // Vd threads rounded up to a multiple of 64: whole warps on NVIDIA (32) and AMD (64) alike.
  const int threads = ((Vd + 63) / 64) * 64;
  const std::int64_t blocks = tiles * N * ((qn + kExTok - 1) / kExTok);
  CP_LAUNCH(exact_tile_kernel, static_cast<unsigned>(blocks), threads, 0, 0, store, key0, n, causal, qn, N, Vd, mx, v,
            scratch);
  const std::int64_t per_row = static_cast<std::int64_t>(qn) * N;
  CP_LAUNCH(exact_den_kernel, blocks_for(tiles * per_row, 128), 128, 0, 0, store, key0, n, causal, qn, N, Vd, mx, tiles,
            scratch);
  CP_LAUNCH(exact_merge_kernel, blocks_for(per_row * (Vd + 1), 256), 256, 0, 0, scratch, tiles, per_row, Vd, num, den);
}
void launch_init_acc(ExactAcc* a, std::int64_t count) {
  if (count <= 0) return;
  CP_LAUNCH(init_acc_kernel, blocks_for(count, 256), 256, 0, 0, a, count);
}
void launch_normalize(const ExactAcc* num, const ExactAcc* den, std::int64_t th, int Vd, float* out,
                      std::uint32_t* flags) {
  if (th <= 0) return;
  CP_LAUNCH(normalize_kernel, blocks_for(th * Vd, 256), 256, 0, 0, num, den, th, Vd, out, flags);
}
void launch_vllm_partial(const float* store, std::int64_t key0, std::int64_t n, bool causal, int qn, int N, int Vd,
                         const float* v, float* part_out, float* part_lse) {
  if (qn <= 0) return;
  const int threads = ((Vd + 31) / 32) * 32;
  const unsigned blocks = static_cast<unsigned>(N * ((qn + kVlTok - 1) / kVlTok));
  const std::size_t shmem = 2 * sizeof(std::int64_t) * kVlTok * static_cast<std::size_t>(threads);
  CP_LAUNCH(vllm_partial_kernel, blocks, threads, shmem, 0, store, key0, n, causal, qn, N, Vd, v, part_out, part_lse);
}

void launch_merge(int flavour, int qn, int N, int Vd, const float* p_out, const float* p_lse, const float* s_out,
                  const float* s_lse, float* out, float* out_lse, mla::MergeRule rule) {
  if (qn <= 0) return;
  const long ts = static_cast<long>(N) * Vd, hs = Vd;
  mla::MergeTensors m{out, out_lse, ts, hs, p_out, p_lse, ts, hs, s_out, s_lse, ts, hs, qn, N, Vd};
  CP_LAUNCH(merge_kernel, blocks_for(static_cast<std::int64_t>(qn) * N, 128), 128, 0, 0, flavour, m, rule);
}

}  // namespace cp::gpu

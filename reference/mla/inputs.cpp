#include "reference/mla/inputs.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "reference/dcp/ownership.h"
#include "reference/mla/math/bf16.h"
#include "reference/mla/math/generator.h"

namespace cp::mla {

namespace {

// Uniform in [-1, 1) with 24 bits, pushed away from 0 (|x| >= 2^-8), as a bf16.
std::uint16_t real_value(std::uint64_t h, float mult) {
  float x = static_cast<float>(static_cast<std::int64_t>(h >> 40) - (std::int64_t{1} << 23)) * 0x1p-23f;
  if (x > -0x1p-8f && x < 0x1p-8f) x = x < 0.0f ? -0x1p-8f : 0x1p-8f;
  return float_to_bf16(x * mult);
}

}  // namespace

Shape shape_of(const Case& c) {
  return {static_cast<int>(c.dims.kv_lora_rank), static_cast<int>(c.dims.rope_dim), static_cast<int>(c.dims.nope_dim),
          static_cast<int>(c.dims.v_dim), static_cast<int>(c.dims.heads)};
}

const std::uint16_t* Inputs::local_row(int request, std::int64_t rank, std::int64_t local) const {
  const auto& bt = block_table[static_cast<std::size_t>(request)];
  const std::int64_t v = local / B;
  if (local < 0 || v >= static_cast<std::int64_t>(bt.size())) return nullptr;
  const std::int64_t slot = bt[static_cast<std::size_t>(v)] * B + local % B;
  return shard[static_cast<std::size_t>(rank)].data() + slot * s.row();
}

const std::uint16_t* Inputs::cache_row(int request, std::int64_t position) const {
  if (position < 0) return nullptr;
  const Int p = position, Ii = I, Wi = W;
  return local_row(request, owner_rank(p, Ii, Wi).get(), local_index(p, Ii, Wi).get());
}

void Inputs::garbage_row(std::uint64_t stream, std::uint64_t key, std::uint16_t* out) const {
  for (int e = 0; e < s.row(); ++e) out[e] = garbage_elem(seed, stream, key, e);
}

void Inputs::fetch(int request, std::int64_t position, std::uint16_t* out) const {
  if (const std::uint16_t* r = cache_row(request, position))
    std::copy(r, r + s.row(), out);
  else
    garbage_row(1, pos_key(request, position), out);
}

Inputs make_inputs(const Case& c) {
  Inputs in;
  in.s = shape_of(c);
  in.scale = 1.0f / std::sqrt(static_cast<float>(in.s.qk()));  // IEEE sqrt and divide
  in.B = c.block;
  in.W = c.dcp;
  in.I = c.interleave;
  in.seed = c.seed;
  in.ctx = c.ctx;
  in.q = c.q;
  const Shape& s = in.s;
  const auto nreq = c.ctx.size();
  const std::int64_t vbs = in.B * in.W;

  // Block tables: virtual blocks covering ctx + q positions, pages a seeded permutation.
  std::int64_t pages = 0;
  in.block_table.resize(nreq);
  for (std::size_t r = 0; r < nreq; ++r) {
    in.block_table[r].resize(static_cast<std::size_t>((c.ctx[r] + c.q[r] + vbs - 1) / vbs));
    pages += static_cast<std::int64_t>(in.block_table[r].size());
  }
  std::vector<std::int64_t> perm(static_cast<std::size_t>(pages));
  std::iota(perm.begin(), perm.end(), 0);
  for (std::int64_t i = pages - 1; i > 0; --i) {  // Fisher-Yates on the counter RNG
    const auto j = static_cast<std::int64_t>(counter_hash(c.seed, kPages, static_cast<std::uint64_t>(i)) %
                                             static_cast<std::uint64_t>(i + 1));
    std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(j)]);
  }
  std::size_t next = 0;
  for (auto& bt : in.block_table)
    for (auto& pg : bt) pg = perm[next++];

  const CounterStream kv(c.seed, kKv), wuk(c.seed, kWuk), wuv(c.seed, kWuv), query(c.seed, kQuery);
  // Shards: write every slot of every allocated page (real KV or stale garbage).
  in.shard.assign(static_cast<std::size_t>(in.W),
                  std::vector<std::uint16_t>(static_cast<std::size_t>(pages * in.B * s.row())));
  for (std::size_t r = 0; r < nreq; ++r) {
    const std::int64_t cap = static_cast<std::int64_t>(in.block_table[r].size()) * vbs;
    for (std::int64_t p = 0; p < cap; ++p) {
      auto* dst = const_cast<std::uint16_t*>(in.cache_row(static_cast<int>(r), p));
      if (p < c.ctx[r] + c.q[r]) {
        const std::uint64_t base = pos_key(static_cast<int>(r), p) * static_cast<std::uint64_t>(s.row());
        for (int e = 0; e < s.row(); ++e) dst[e] = real_value(kv(base + static_cast<std::uint64_t>(e)), 1.0f);
      } else {
        in.garbage_row(0, pos_key(static_cast<int>(r), p), dst);
      }
    }
  }

  // Weights: U(-1, 1) / sqrt(L), bf16; queries U(-2, 2), bf16.
  const float wmul = 1.0f / std::sqrt(static_cast<float>(s.L));
  in.w_uk.resize(static_cast<std::size_t>(s.L) * s.N * s.Pn);
  in.w_uv.resize(static_cast<std::size_t>(s.L) * s.N * s.Vd);
  for (std::size_t i = 0; i < in.w_uk.size(); ++i) in.w_uk[i] = bf16_to_float(real_value(wuk(i), wmul));
  for (std::size_t i = 0; i < in.w_uv.size(); ++i) in.w_uv[i] = bf16_to_float(real_value(wuv(i), wmul));
  in.query.resize(nreq);
  for (std::size_t r = 0; r < nreq; ++r) {
    auto& qr = in.query[r];
    qr.resize(static_cast<std::size_t>(c.q[r] * s.N * s.qk()));
    const std::uint64_t base = static_cast<std::uint64_t>(r) << 40;
    for (std::size_t i = 0; i < qr.size(); ++i) qr[i] = bf16_to_float(real_value(query(base + i), 2.0f));
  }
  return in;
}

Inputs slice_heads(Inputs in, const std::vector<int>& heads) {
  const Shape s = in.s;
  for (std::size_t k = 0; k < heads.size(); ++k)
    if (heads[k] < 0 || heads[k] >= s.N || (k > 0 && heads[k] <= heads[k - 1]))
      throw std::invalid_argument("slice_heads: heads must be sorted, distinct and below " + std::to_string(s.N));
  Inputs out = std::move(in);  // cache, block tables, seed: shared by every head
  out.s.N = static_cast<int>(heads.size());
  const int K = out.s.N;
  auto cols = [&](const std::vector<float>& w, int c) {
    std::vector<float> r(static_cast<std::size_t>(s.L) * K * c);
    for (int l = 0; l < s.L; ++l)
      for (int k = 0; k < K; ++k)
        std::copy_n(w.begin() + (static_cast<long>(l) * s.N + heads[static_cast<std::size_t>(k)]) * c, c,
                    r.begin() + (static_cast<long>(l) * K + k) * c);
    return r;
  };
  out.w_uk = cols(out.w_uk, s.Pn);
  out.w_uv = cols(out.w_uv, s.Vd);
  const int qk = s.qk();
  for (auto& qr : out.query) {
    const auto tokens = static_cast<long>(qr.size()) / (static_cast<long>(s.N) * qk);
    std::vector<float> sq(static_cast<std::size_t>(tokens * K * qk));
    for (long t = 0; t < tokens; ++t)
      for (int k = 0; k < K; ++k)
        std::copy_n(qr.begin() + (t * s.N + heads[static_cast<std::size_t>(k)]) * qk, qk,
                    sq.begin() + (t * K + k) * qk);
    qr = std::move(sq);
  }
  return out;
}

std::vector<int> sample_heads(int N, int K, std::uint64_t seed) {
  std::vector<int> all(static_cast<std::size_t>(N));
  std::iota(all.begin(), all.end(), 0);
  if (K >= N) return all;
  for (int i = 0; i < K; ++i) {  // partial Fisher-Yates on the counter RNG
    const auto j =
        i + static_cast<int>(counter_hash(seed, 91, static_cast<std::uint64_t>(i)) % static_cast<std::uint64_t>(N - i));
    std::swap(all[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(j)]);
  }
  all.resize(static_cast<std::size_t>(std::max(K, 0)));
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace cp::mla

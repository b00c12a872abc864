// Numerics inputs from a case line (issue item 1): a paged, DCP-sharded bf16 latent cache with
// permuted block tables, per-request queries and the up-projection weights, all drawn from the
// case's seed by a counter-based generator (value i does not depend on generation order).
//
// Cache layout, as vLLM's slot mapping under DCP (spec §3.1): a request's positions form
// virtual blocks of B*W positions; virtual block v lives in page block_table[req][v] on EVERY
// rank, and rank r's page holds the B positions of v that r owns, at
// local_off = ((p mod B*W) / (I*W)) * I + p mod I. Slots for positions ctx .. ctx+q-1 hold the
// new tokens' own latent KV (written before attention); slots past ctx+q in an allocated page
// hold stale garbage. Garbage values have magnitude in [2, 4), real values below 1, so a
// garbage row never equals a real row. Values are never all zero (|x| >= 2^-8).
#pragma once

#include <cstdint>
#include <vector>

#include "reference/caseio/case.h"
#include "reference/mla/math/generator.h"

namespace cp::mla {

struct Shape {
  int L = 0, Rr = 0, Pn = 0, Vd = 0, N = 0;
  int row() const { return L + Rr; }  // latent cache entry: kv_c then k_pe
  int qk() const { return Pn + Rr; }  // query/key head size
};
Shape shape_of(const Case& c);

struct Inputs {
  Shape s;
  float scale = 0;  // 1 / sqrt(Pn + Rr), IEEE sqrt and divide
  std::int64_t B = 1, W = 1, I = 1;
  std::uint64_t seed = 0;
  std::vector<std::int64_t> ctx, q;
  std::vector<std::vector<std::int64_t>> block_table;  // [request][virtual block] -> page
  std::vector<std::vector<std::uint16_t>> shard;       // [rank][page * B + slot][row] bf16
  std::vector<float> w_uk;                             // [L][N * Pn], bf16 values
  std::vector<float> w_uv;                             // [L][N * Vd], bf16 values
  std::vector<std::vector<float>> query;               // [request][token][N][Pn + Rr], bf16 values

  // The cache row of (request, position) on its owner rank; nullptr past the block table.
  const std::uint16_t* cache_row(int request, std::int64_t position) const;
  // Local slot `local` of rank `rank` for `request` (what cp_gather_cache reads); nullptr past
  // the block table.
  const std::uint16_t* local_row(int request, std::int64_t rank, std::int64_t local) const;
  // Deterministic garbage for `key` (stale workspace rows, slots past the block table).
  void garbage_row(std::uint64_t stream, std::uint64_t key, std::uint16_t* out) const;
  // A row for (request, position), garbage when past the block table.
  void fetch(int request, std::int64_t position, std::uint16_t* out) const;
};

Inputs make_inputs(const Case& c);

// Sampled verification (issue 15): the inputs of `heads` only (sorted, distinct, each < N), as
// an Inputs of heads.size() heads: the W_UK / W_UV columns and the query heads of those heads.
// Every output element depends only on its own head's columns, so element (t, k, d) of a run
// on the slice has exactly the bits of (t, heads[k], d) of the full run.
Inputs slice_heads(Inputs in, const std::vector<int>& heads);
// K distinct heads of N, drawn from `seed` (sorted); all N heads when K >= N.
std::vector<int> sample_heads(int N, int K, std::uint64_t seed);

}  // namespace cp::mla

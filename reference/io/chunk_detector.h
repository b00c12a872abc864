// The chunk-corruption detector (issue 22 item 5): a kernel set's chunked run against its own
// unchunked run, in units of that set's own rounding noise (its unchunked run against the
// exact reference). Chunking a correct plan only re-rounds: partials in the kernel's dtype,
// one merge per chunk, so the chunked run moves by about as much as the set's own error, a
// ratio near 1. A plan that drops, doubles or swaps context rows moves every output of the
// request, and above all its LSE (fp32 in every kernel set, bf16 outputs or not), by the rows'
// share of the softmax weight: far past a few fp32 ulps. docs/kernels.md has the measured
// margins.
//
//   Detection d = detect_chunk_corruption(chunked, unchunked, exact, owners, heads, v_dim);
//   d.ratio() > kDetectorThreshold   // flagged; d.requests names the requests that moved
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "reference/io/export.h"

namespace cp::io {

// Chosen before the corpus was measured, as the kernel bound: 8 times the noise. Measured on
// every corpus plan (docs/kernels.md): correct plans stay at or below ~2.3, corrupting ones
// start far above.
inline constexpr double kDetectorThreshold = 8;

// A result's outputs: out [token][head][dim], lse [token][head] (natural log).
struct Outputs {
  std::span<const float> out, lse;
};

struct RequestShift {
  int request = -1;
  double ratio_out = 0, ratio_lse = 0;  // this request's shift over the set's noise
  std::int64_t nonfinite = 0;           // NaN/inf in the chunked run where the unchunked run is finite
  double ratio() const;
};

struct Detection {
  // The set's own noise: max row-scaled |unchunked - exact| of out (scaled by max_d |exact[t,h,:]|,
  // as compare_out), max |unchunked - exact| of the LSE; never below one fp32 ulp of the values
  // (2^-23 of the row's scale, 2^-23 of max(1, max |lse|)), so an exact unchunked run still has
  // a noise to divide by.
  double noise_out = 0, noise_lse = 0;
  double shift_out = 0, shift_lse = 0;  // the same measures, chunked vs unchunked
  double ratio_out = 0, ratio_lse = 0;  // shift / noise
  std::int64_t nonfinite = 0;
  std::vector<RequestShift> requests;  // every prefill request, in request order
  double ratio() const;                // max(ratio_out, ratio_lse); +inf when nonfinite
  bool flagged(double threshold = kDetectorThreshold) const { return ratio() > threshold; }
  std::vector<int> flagged_requests(double threshold = kDetectorThreshold) const;
};

// Throws IoError when the sizes do not match owners x heads (x dim).
Detection detect_chunk_corruption(const Outputs& chunked, const Outputs& unchunked, const Outputs& exact,
                                  const std::vector<TokenOwner>& owners, int heads, int dim);

}  // namespace cp::io

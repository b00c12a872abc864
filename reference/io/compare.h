// Numbers a kernel comparison reports (issue 13, DESIGN §7): bitwise-equal fraction, a ULP
// histogram in the output dtype (bf16), max/mean absolute and relative error against the exact
// reference (its outputs are the exact sums rounded once to fp32: within half an fp32 ulp of
// the float64 value), NaN/Inf counts, and LSE errors kept apart with +-inf handled.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cp::io {

// bf16 ULP distance buckets: 0, 1, 2, (2,4], (4,8], ..., (2^14, 2^15], > 2^15.
struct UlpHistogram {
  static constexpr int kBuckets = 18;
  std::array<std::int64_t, kBuckets> count{};
  std::int64_t nan = 0;  // pairs where either side is NaN
  static int bucket_of(std::int64_t ulp);
  static std::string label(int b);
};

struct Where {
  std::int64_t token = -1;
  int head = -1, dim = -1;
};

struct OutStats {
  std::int64_t elements = 0;
  std::int64_t bit_equal = 0;   // identical fp32 bits
  std::int64_t bf16_equal = 0;  // equal after rounding both to bf16 (the production output dtype)
  std::int64_t nan_got = 0, inf_got = 0, nan_want = 0;
  double max_abs = 0, mean_abs = 0;
  double max_rel = 0, mean_rel = 0;  // |got - want| / max_d |want[t, h, :]| (row-scaled, as docs/numerics.md)
  std::int64_t max_ulp = 0;
  Where worst;
  UlpHistogram hist;
  double bit_equal_fraction() const {
    return elements ? static_cast<double>(bit_equal) / static_cast<double>(elements) : 1.0;
  }
};

struct LseStats {
  std::int64_t elements = 0;
  std::int64_t both_neg_inf = 0;  // empty on both sides: agree
  std::int64_t inf_mismatch = 0;  // one side +-inf, the other not (or different infinities)
  std::int64_t nan_got = 0, nan_want = 0;
  std::int64_t bit_equal = 0;
  double max_abs = 0, mean_abs = 0;  // over pairs finite on both sides
};

// got/want: [tokens][heads][dim] (dim = v head size).
OutStats compare_out(const std::vector<float>& got, const std::vector<float>& want, int heads, int dim);
// got/want: [tokens][heads].
LseStats compare_lse(const std::vector<float>& got, const std::vector<float>& want, int heads);
void accumulate(OutStats& into, const OutStats& more);  // chunk by chunk
void accumulate(LseStats& into, const LseStats& more);

// The bound a production kernel set must meet on a correct plan (docs/kernels.md): bf16
// operands (q, up-projected k/v) and bf16 outputs put the error near 2^-9 of the row's
// largest output; the bound allows 8 times that. A wrong, missing or duplicated token is
// typically 2^-4 and more.
struct KernelBound {
  double rel = 0x1p-6;      // row-scaled relative error of out
  double lse_abs = 0x1p-6;  // absolute error of the natural-log LSE
};
inline constexpr KernelBound kKernelBound{};
bool within(const OutStats& o, const LseStats& l, const KernelBound& b = kKernelBound);
std::string why_not_within(const OutStats& o, const LseStats& l, const KernelBound& b = kKernelBound);

}  // namespace cp::io

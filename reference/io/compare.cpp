#include "reference/io/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "reference/io/number_text.h"
#include "reference/mla/math/bf16.h"

namespace cp::io {

namespace {
bool nan_f(float x) { return std::isnan(x); }
}  // namespace

int UlpHistogram::bucket_of(std::int64_t ulp) {
  if (ulp <= 2) return static_cast<int>(ulp);
  int b = 3;
  std::int64_t hi = 4;
  while (ulp > hi && b < kBuckets - 1) {
    hi *= 2;
    ++b;
  }
  return b;
}

std::string UlpHistogram::label(int b) {
  if (b <= 2) return std::to_string(b);
  if (b == kBuckets - 1) return ">" + std::to_string(std::int64_t{1} << (b - 2));
  return std::to_string((std::int64_t{1} << (b - 2)) + 1) + "-" + std::to_string(std::int64_t{1} << (b - 1));
}

OutStats compare_out(const std::vector<float>& got, const std::vector<float>& want, int heads, int dim) {
  OutStats s;
  const std::size_t n = std::min(got.size(), want.size());
  s.elements = static_cast<std::int64_t>(n);
  double sum_abs = 0, sum_rel = 0;
  std::int64_t finite = 0;
  const auto d = static_cast<std::size_t>(dim);
  for (std::size_t row = 0; row < n; row += d) {
    double scale = 0;
    for (std::size_t k = 0; k < d && row + k < n; ++k)
      if (!nan_f(want[row + k])) scale = std::max(scale, std::abs(static_cast<double>(want[row + k])));
    for (std::size_t k = 0; k < d && row + k < n; ++k) {
      const std::size_t i = row + k;
      const float g = got[i], w = want[i];
      std::uint32_t gb, wb;
      std::memcpy(&gb, &g, 4);
      std::memcpy(&wb, &w, 4);
      if (gb == wb) ++s.bit_equal;
      if (nan_f(w)) ++s.nan_want;
      if (nan_f(g))
        ++s.nan_got;
      else if (std::isinf(g))
        ++s.inf_got;
      if (nan_f(g) || nan_f(w)) {
        ++s.hist.nan;
        continue;
      }
      const std::uint16_t g16 = mla::float_to_bf16(g), w16 = mla::float_to_bf16(w);
      if (g16 == w16) ++s.bf16_equal;
      const std::int64_t ulp = mla::bf16_ulp_distance(g16, w16);
      s.max_ulp = std::max(s.max_ulp, ulp);
      ++s.hist.count[static_cast<std::size_t>(UlpHistogram::bucket_of(ulp))];
      if (std::isinf(g) || std::isinf(w)) continue;
      const double err = std::abs(static_cast<double>(g) - static_cast<double>(w));
      const double rel = scale > 0 ? err / scale : (err > 0 ? INFINITY : 0.0);
      if (err > s.max_abs || s.worst.token < 0) {
        if (err > s.max_abs) s.max_abs = err;
        if (s.worst.token < 0 || err >= s.max_abs) {
          s.worst.token = static_cast<std::int64_t>(i / (d * static_cast<std::size_t>(heads)));
          s.worst.head = static_cast<int>((i / d) % static_cast<std::size_t>(heads));
          s.worst.dim = static_cast<int>(k);
        }
      }
      s.max_rel = std::max(s.max_rel, rel);
      sum_abs += err;
      sum_rel += rel;
      ++finite;
    }
  }
  if (finite) {
    s.mean_abs = sum_abs / static_cast<double>(finite);
    s.mean_rel = sum_rel / static_cast<double>(finite);
  }
  return s;
}

LseStats compare_lse(const std::vector<float>& got, const std::vector<float>& want, int) {
  LseStats s;
  const std::size_t n = std::min(got.size(), want.size());
  s.elements = static_cast<std::int64_t>(n);
  double sum = 0;
  std::int64_t finite = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float g = got[i], w = want[i];
    if (std::memcmp(&g, &w, 4) == 0) ++s.bit_equal;
    if (nan_f(g)) ++s.nan_got;
    if (nan_f(w)) ++s.nan_want;
    if (nan_f(g) || nan_f(w)) continue;
    if (std::isinf(g) || std::isinf(w)) {
      if (g == w && g < 0)
        ++s.both_neg_inf;
      else
        ++s.inf_mismatch;
      continue;
    }
    const double e = std::abs(static_cast<double>(g) - static_cast<double>(w));
    s.max_abs = std::max(s.max_abs, e);
    sum += e;
    ++finite;
  }
  if (finite) s.mean_abs = sum / static_cast<double>(finite);
  return s;
}

void accumulate(OutStats& a, const OutStats& b) {
  const auto fa = static_cast<double>(a.elements), fb = static_cast<double>(b.elements);
  if (fa + fb > 0) {
    a.mean_abs = (a.mean_abs * fa + b.mean_abs * fb) / (fa + fb);
    a.mean_rel = (a.mean_rel * fa + b.mean_rel * fb) / (fa + fb);
  }
  a.elements += b.elements;
  a.bit_equal += b.bit_equal;
  a.bf16_equal += b.bf16_equal;
  a.nan_got += b.nan_got;
  a.inf_got += b.inf_got;
  a.nan_want += b.nan_want;
  if (b.max_abs > a.max_abs) {
    a.max_abs = b.max_abs;
    a.worst = b.worst;
  }
  a.max_rel = std::max(a.max_rel, b.max_rel);
  a.max_ulp = std::max(a.max_ulp, b.max_ulp);
  for (std::size_t k = 0; k < a.hist.count.size(); ++k) a.hist.count[k] += b.hist.count[k];
  a.hist.nan += b.hist.nan;
}

void accumulate(LseStats& a, const LseStats& b) {
  const auto fa = static_cast<double>(a.elements), fb = static_cast<double>(b.elements);
  if (fa + fb > 0) a.mean_abs = (a.mean_abs * fa + b.mean_abs * fb) / (fa + fb);
  a.elements += b.elements;
  a.both_neg_inf += b.both_neg_inf;
  a.inf_mismatch += b.inf_mismatch;
  a.nan_got += b.nan_got;
  a.nan_want += b.nan_want;
  a.bit_equal += b.bit_equal;
  a.max_abs = std::max(a.max_abs, b.max_abs);
}

std::string why_not_within(const OutStats& o, const LseStats& l, const KernelBound& b) {
  std::vector<std::string> why;
  if (o.nan_got) why.push_back(std::to_string(o.nan_got) + " NaN outputs");
  if (o.inf_got) why.push_back(std::to_string(o.inf_got) + " inf outputs");
  if (o.max_rel > b.rel) why.push_back("max rel " + significant(o.max_rel) + " > " + significant(b.rel));
  if (l.nan_got) why.push_back(std::to_string(l.nan_got) + " NaN LSE");
  if (l.inf_mismatch) why.push_back(std::to_string(l.inf_mismatch) + " LSE inf mismatches");
  if (l.max_abs > b.lse_abs) why.push_back("LSE max abs " + significant(l.max_abs) + " > " + significant(b.lse_abs));
  std::string s;
  for (const auto& w : why) s += (s.empty() ? "" : "; ") + w;
  return s;
}

bool within(const OutStats& o, const LseStats& l, const KernelBound& b) { return why_not_within(o, l, b).empty(); }

}  // namespace cp::io

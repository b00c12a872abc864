#include "reference/io/chunk_detector.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace cp::io {

namespace {

constexpr double kUlp = 0x1p-23;  // one fp32 ulp, relative
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Accum {
  double out = 0, lse = 0;
  std::int64_t nonfinite = 0;
};

// Row-scaled |a - b| over the finite pairs; a non-finite a against a finite b counts as such.
void add_out(Accum& acc, std::span<const float> a, std::span<const float> b, std::span<const float> exact) {
  double scale = 0;
  for (float x : exact)
    if (std::isfinite(x)) scale = std::max(scale, std::abs(static_cast<double>(x)));
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (!std::isfinite(b[k])) continue;  // the reference side is broken itself: not a chunking shift
    if (!std::isfinite(a[k])) {
      ++acc.nonfinite;
      continue;
    }
    const double err = std::abs(static_cast<double>(a[k]) - static_cast<double>(b[k]));
    acc.out = std::max(acc.out, scale > 0 ? err / scale : (err > 0 ? kInf : 0.0));
  }
}

// |a - b| of natural-log LSEs: -inf on both sides agrees (no keys); any other infinity or NaN
// against a finite value counts as non-finite.
void add_lse(Accum& acc, float a, float b) {
  if (std::isnan(b) || (std::isinf(b) && a == b)) return;
  if (!std::isfinite(a) || !std::isfinite(b)) {
    ++acc.nonfinite;
    return;
  }
  acc.lse = std::max(acc.lse, std::abs(static_cast<double>(a) - static_cast<double>(b)));
}

// Token by token: the shift of `a` from `b`, per request (keyed by request) and in total.
struct Shifts {
  std::map<int, Accum> per_request;
  Accum total;
};
Shifts measure(const Outputs& a, const Outputs& b, const Outputs& exact, const std::vector<TokenOwner>& owners,
               int heads, int dim) {
  Shifts s;
  const auto H = static_cast<std::size_t>(heads), D = static_cast<std::size_t>(dim);
  for (std::size_t t = 0; t < owners.size(); ++t) {
    Accum& r = s.per_request[owners[t].request];
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t row = (t * H + h) * D;
      add_out(r, a.out.subspan(row, D), b.out.subspan(row, D), exact.out.subspan(row, D));
      add_lse(r, a.lse[t * H + h], b.lse[t * H + h]);
    }
    s.total.out = std::max(s.total.out, r.out);
    s.total.lse = std::max(s.total.lse, r.lse);
  }
  for (const auto& [req, acc] : s.per_request) s.total.nonfinite += acc.nonfinite;
  return s;
}

void check_sizes(const Outputs& o, std::size_t tokens, int heads, int dim, const char* what) {
  const std::size_t th = tokens * static_cast<std::size_t>(heads);
  if (o.lse.size() != th || o.out.size() != th * static_cast<std::size_t>(dim))
    throw IoError(std::string("chunk detector: the ") + what + " outputs are not " + std::to_string(tokens) +
                  " tokens x " + std::to_string(heads) + " heads x " + std::to_string(dim));
}

double lse_floor(std::span<const float> lse) {
  double m = 1;
  for (float x : lse)
    if (std::isfinite(x)) m = std::max(m, std::abs(static_cast<double>(x)));
  return kUlp * m;
}

}  // namespace

double RequestShift::ratio() const { return nonfinite ? kInf : std::max(ratio_out, ratio_lse); }

double Detection::ratio() const { return nonfinite ? kInf : std::max(ratio_out, ratio_lse); }

std::vector<int> Detection::flagged_requests(double threshold) const {
  std::vector<int> out;
  for (const auto& r : requests)
    if (r.ratio() > threshold) out.push_back(r.request);
  return out;
}

Detection detect_chunk_corruption(const Outputs& chunked, const Outputs& unchunked, const Outputs& exact,
                                  const std::vector<TokenOwner>& owners, int heads, int dim) {
  check_sizes(chunked, owners.size(), heads, dim, "chunked");
  check_sizes(unchunked, owners.size(), heads, dim, "unchunked");
  check_sizes(exact, owners.size(), heads, dim, "exact");
  const Shifts noise = measure(unchunked, exact, exact, owners, heads, dim);
  const Shifts shift = measure(chunked, unchunked, exact, owners, heads, dim);
  Detection d;
  d.noise_out = std::max(noise.total.out, kUlp);
  d.noise_lse = std::max(noise.total.lse, lse_floor(exact.lse));
  d.shift_out = shift.total.out;
  d.shift_lse = shift.total.lse;
  d.ratio_out = d.shift_out / d.noise_out;
  d.ratio_lse = d.shift_lse / d.noise_lse;
  d.nonfinite = shift.total.nonfinite;
  for (const auto& [req, acc] : shift.per_request)
    d.requests.push_back({req, acc.out / d.noise_out, acc.lse / d.noise_lse, acc.nonfinite});
  return d;
}

}  // namespace cp::io

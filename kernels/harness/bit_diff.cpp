#include "kernels/harness/bit_diff.h"

#include <cstdio>
#include <sstream>

#include "reference/mla/math/all.h"

namespace cp::gpu {

BitDiff bit_diff(const std::vector<float>& a, const std::vector<float>& b) {
  BitDiff d;
  d.elements = static_cast<std::int64_t>(a.size());
  if (a.size() != b.size()) {
    d.size_mismatch = true;
    return d;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::uint32_t x = mla::bits_of(a[i]), y = mla::bits_of(b[i]);
    if (x == y) continue;
    if (mla::is_nan(a[i]) && mla::is_nan(b[i])) ++d.nan_payload;
    if (d.differing++ == 0) {
      d.first = static_cast<std::int64_t>(i);
      d.a_bits = x;
      d.b_bits = y;
    }
  }
  return d;
}

std::int64_t count_nonequal(const std::vector<float>& a, const std::vector<float>& b, std::int64_t* first) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (mla::bits_of(a[i]) != mla::bits_of(b[i]) || mla::is_nan(a[i]) || mla::is_nan(b[i])) {
      if (n++ == 0 && first) *first = static_cast<std::int64_t>(i);
    }
  return n;
}

std::string describe(const char* name, const BitDiff& d, std::int64_t N, std::int64_t vd) {
  std::ostringstream os;
  os << name << ": ";
  if (d.size_mismatch) return os.str() + "SIZE MISMATCH";
  os << d.differing << " of " << d.elements << " differ";
  if (d.differing == 0) return os.str();
  const std::int64_t per_token = N * vd;
  char bits[48];
  std::snprintf(bits, sizeof bits, "0x%08x vs 0x%08x", d.a_bits, d.b_bits);
  os << ", first at (token " << d.first / per_token << ", head " << (d.first % per_token) / vd;
  if (vd > 1) os << ", dim " << d.first % vd;
  os << "): " << bits;
  if (d.nan_payload) os << " (" << d.nan_payload << " are NaN vs NaN with other bits)";
  return os.str();
}

}  // namespace cp::gpu

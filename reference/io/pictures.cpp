#include "reference/io/pictures.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "reference/io/number_text.h"

namespace cp::io {

namespace {
constexpr const char* kRed = "#c44";
constexpr const char* kGreen = "#4a7";
std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else
      o += c;
  }
  return o;
}
}  // namespace

std::string ulp_histogram_svg(const UlpHistogram& h, const std::string& title) {
  const int W = 640, H = 260, left = 50, bottom = 200, bw = 30;
  std::int64_t mx = 1;
  for (auto c : h.count) mx = std::max(mx, c);
  mx = std::max(mx, h.nan);
  const double top = std::ceil(std::log10(static_cast<double>(mx) + 1.0));
  std::ostringstream os;
  os << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H
     << "' font-family='sans-serif' font-size='10'>\n";
  os << "<text x='" << left << "' y='14' font-size='12'>" << esc(title) << "</text>\n";
  os << "<text x='4' y='30'>count (log10)</text>\n";
  auto bar = [&](int i, std::int64_t c, const std::string& lab, const char* color) {
    const double hgt = c > 0 ? (std::log10(static_cast<double>(c)) + 1.0) / (top + 1.0) * 160.0 : 0.0;
    const int x = left + i * bw;
    os << "<rect x='" << x + 2 << "' y='" << bottom - hgt << "' width='" << bw - 4 << "' height='" << hgt << "' fill='"
       << color << "'><title>" << lab << " ulp: " << c << "</title></rect>\n";
    os << "<text x='" << x + bw / 2 << "' y='" << bottom + 12 << "' text-anchor='end' transform='rotate(-45 "
       << x + bw / 2 << " " << bottom + 12 << ")'>" << esc(lab) << "</text>\n";
    if (c > 0)
      os << "<text x='" << x + bw / 2 << "' y='" << bottom - hgt - 2 << "' text-anchor='middle' font-size='8'>" << c
         << "</text>\n";
  };
  for (int b = 0; b < UlpHistogram::kBuckets; ++b)
    bar(b, h.count[static_cast<std::size_t>(b)], UlpHistogram::label(b), b <= 2 ? kGreen : kRed);
  bar(UlpHistogram::kBuckets, h.nan, "NaN", "#000");
  os << "<line x1='" << left << "' y1='" << bottom << "' x2='" << left + (UlpHistogram::kBuckets + 1) * bw << "' y2='"
     << bottom << "' stroke='#000'/>\n<text x='" << left + 200 << "' y='" << H - 4
     << "'>bf16 ULP distance to the exact reference</text>\n</svg>\n";
  return os.str();
}

std::string error_overview_svg(const std::vector<OverviewBar>& rows, double bound, const std::string& title) {
  std::size_t longest = 10;
  for (const auto& r : rows) longest = std::max(longest, r.label.size());
  const int left = 16 + static_cast<int>(longest) * 7, width = 420, rh = 18;  // ~7 px per 11-px character
  const int H = 50 + static_cast<int>(rows.size()) * rh + 44;
  const double lo = -9, hi = 1;  // log10 axis
  auto xof = [&](double v) {
    const double l = v > 0 ? std::clamp(std::log10(v), lo, hi) : lo;
    return left + (l - lo) / (hi - lo) * width;
  };
  std::ostringstream os;
  os << "<svg xmlns='http://www.w3.org/2000/svg' width='" << left + width + 150 << "' height='" << H
     << "' font-family='sans-serif' font-size='11'>\n<text x='4' y='16' font-size='13'>" << esc(title) << "</text>\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const int y = 36 + static_cast<int>(i) * rh;
    // Red: a corrupting plan whatever its error (the error may sit under the bound), or past the bound.
    const bool bad = r.corrupt || !(r.value <= bound);
    os << "<text x='" << left - 6 << "' y='" << y + 12 << "' text-anchor='end'>" << esc(r.label) << "</text>\n";
    os << "<rect x='" << left << "' y='" << y + 2 << "' width='" << xof(r.value) - left << "' height='" << rh - 5
       << "' fill='" << (bad ? kRed : kGreen) << "'/>\n<text x='" << xof(r.value) + 3 << "' y='" << y + 12 << "'"
       << (r.corrupt ? " fill='" + std::string(kRed) + "' font-weight='bold'" : "") << ">" << significant(r.value, 2)
       << (r.corrupt ? " corrupting plan" : "") << "</text>\n";
  }
  const int yb = 36 + static_cast<int>(rows.size()) * rh;
  for (int e = static_cast<int>(lo); e <= static_cast<int>(hi); ++e)
    os << "<text x='" << xof(std::pow(10.0, e)) << "' y='" << yb + 14 << "' text-anchor='middle'>1e" << e
       << "</text>\n";
  os << "<line x1='" << xof(bound) << "' y1='30' x2='" << xof(bound) << "' y2='" << yb
     << "' stroke='#000' stroke-dasharray='4 3'/>\n";
  os << "<text x='" << xof(bound) + 3 << "' y='30'>bound " << significant(bound, 2) << "</text>\n";
  os << "<text x='4' y='" << yb + 32 << "'>red: a corrupting plan (its exact chunked reference differs, or the "
     << "detector flags it) or past the bound</text>\n</svg>\n";
  return os.str();
}

}  // namespace cp::io

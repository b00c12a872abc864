// The self-contained SVG pictures `chunkproof compare` writes: a bf16 ULP histogram per result
// and pair, and the overview of every result's error against the bound.
#pragma once

#include <string>
#include <vector>

#include "reference/io/compare.h"

namespace cp::io {

// A bar chart of the histogram (log10 counts).
std::string ulp_histogram_svg(const UlpHistogram& h, const std::string& title);

struct OverviewBar {
  std::string label;
  double value = 0;      // max row-scaled relative error against the exact reference
  bool corrupt = false;  // the result's plan corrupts (or the detector flags its chunking): red, marked
};
// One bar per row, log10 scale of `value` with a vertical line at `bound`; red past the bound
// and for every corrupting plan.
std::string error_overview_svg(const std::vector<OverviewBar>& rows, double bound, const std::string& title);

}  // namespace cp::io

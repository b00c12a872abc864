// The one-page HTML report of a command whose report is its text output (`audit --html FILE`):
// the text as it printed, with violation maps of the configuration inline (the same maps
// `chunkproof map` draws), through the one HTML writer (reference/io/html_report.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "campaign/heatmap.h"

namespace cp::cli {

// Writes `path`; UsageError naming `option` when it cannot be written.
void write_text_report_html(const std::string& path, std::string_view option, const std::string& title,
                            const std::string& headline, const std::string& text,
                            const std::vector<fuzz::MapSpec>& maps);

}  // namespace cp::cli

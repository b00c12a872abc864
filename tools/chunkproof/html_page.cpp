// write_text_report_html (html_page.h): the maps drawn into a private temporary folder, the page
// rendered from markdown that links them (so they are inlined), the folder removed.
#include "tools/chunkproof/html_page.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "reference/io/html_report.h"
#include "tools/chunkproof/cli.h"

namespace cp::cli {

void write_text_report_html(const std::string& path, std::string_view option, const std::string& title,
                            const std::string& headline, const std::string& text,
                            const std::vector<fuzz::MapSpec>& maps) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec) / ("chunkproof-html-" + std::to_string(::getpid()));
  fs::create_directories(tmp, ec);
  std::ostringstream md;
  md << "# " << title << "\n\n**" << headline << "**\n\n```\n" << text << "```\n";
  if (!maps.empty()) md << "\n## Violation maps\n\n";
  for (std::size_t i = 0; i < maps.size(); ++i) {
    fuzz::Map m;
    try {
      m = fuzz::compute_map(maps[i]);
    } catch (const std::invalid_argument& e) {  // a configuration the map's axes cannot hold
      md << "(map " << i << " not drawn: " << e.what() << ")\n\n";
      continue;
    }
    const std::string file = "map-" + std::to_string(i) + ".svg";
    std::ofstream(tmp / file) << fuzz::render_svg(m);
    md << "Each cell: the configuration with " << m.spec.x << " and " << m.spec.y << " replaced (`chunkproof map`).\n\n"
       << "![" << name(m.spec.version) << "/" << name(m.spec.platform) << ": " << m.spec.y << " x " << m.spec.x << "]("
       << file << ")\n\n";
  }
  try {
    io::write_html_report(path, title, md.str(), tmp);
  } catch (const std::exception& e) {
    fs::remove_all(tmp, ec);
    throw UsageError(std::string(option) + ": " + e.what());
  }
  fs::remove_all(tmp, ec);
}

}  // namespace cp::cli

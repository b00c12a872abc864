// The self-contained HTML report (issue 24): the markdown a report writer already produces
// (report.md of `fuzz` and `compare`, the audit's one page), rendered as one HTML file with its
// pictures inline — SVG as markup, PNG as a data: URI — so it can be mailed, attached to an
// issue or opened offline as it is. The markdown is GitHub's (tables included), rendered by
// cmark-gfm (Debian's libcmark-gfm): the reports' content is written once, as markdown.
#pragma once

#include <filesystem>
#include <string>

namespace cp::io {

// The page. A picture a line links — `![alt](file.svg)` or `[label](file.svg|file.png)` with a
// relative path — is read from `base_dir` and inlined where it is linked; an absent file stays a
// link.
std::string markdown_to_html(const std::string& title, const std::string& markdown,
                             const std::filesystem::path& base_dir);

// markdown_to_html written to `path` (through a temporary name, renamed). Throws
// std::runtime_error naming the file when it cannot be written.
void write_html_report(const std::filesystem::path& path, const std::string& title, const std::string& markdown,
                       const std::filesystem::path& base_dir);

}  // namespace cp::io

// The HTML report (html_report.h): a line-oriented renderer of the reports' markdown subset.
#include "reference/io/html_report.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace cp::io {
namespace {

namespace fs = std::filesystem;

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string base64(const std::string& bytes) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string o;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) o += k[(v >> s) & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    o += k[(v >> 18) & 63];
    o += k[(v >> 12) & 63];
    o += i + 1 < bytes.size() ? k[(v >> 6) & 63] : '=';
    o += '=';
  }
  return o;
}

bool read_file(const fs::path& p, std::string& out) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The picture at `target` inline, or "" when it is not a local SVG/PNG that can be read.
std::string picture(const std::string& target, const std::string& alt, const fs::path& base) {
  if (target.find("://") != std::string::npos || target.empty() || target[0] == '/') return {};
  std::string bytes;
  if (ends_with(target, ".svg") && read_file(base / target, bytes)) {
    const auto at = bytes.find("<svg");
    if (at == std::string::npos) return {};
    return "<figure>" + bytes.substr(at) + "<figcaption>" + escape(alt) + "</figcaption></figure>";
  }
  fs::path svg = base / target;
  svg.replace_extension(".svg");
  std::error_code ec;
  if (ends_with(target, ".png") && fs::exists(svg, ec)) return "<!-- " + escape(target) + ": drawn from its SVG -->";
  if (ends_with(target, ".png") && read_file(base / target, bytes))
    return "<figure><img alt=\"" + escape(alt) + "\" src=\"data:image/png;base64," + base64(bytes) + "\"><figcaption>" +
           escape(alt) + "</figcaption></figure>";
  return {};
}

// Inline markup: `code`, **bold**, ![alt](pic), [text](target). Pictures are collected into
// `figures` (drawn after the line), the rest escaped.
std::string inline_md(const std::string& s, const fs::path& base, std::string& figures) {
  std::string o;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '`') {
      const auto end = s.find('`', i + 1);
      if (end != std::string::npos) {
        o += "<code>" + escape(s.substr(i + 1, end - i - 1)) + "</code>";
        i = end + 1;
        continue;
      }
    }
    if (s.compare(i, 2, "**") == 0) {
      const auto end = s.find("**", i + 2);
      if (end != std::string::npos) {
        o += "<b>" + inline_md(s.substr(i + 2, end - i - 2), base, figures) + "</b>";
        i = end + 2;
        continue;
      }
    }
    const bool image = s.compare(i, 2, "![") == 0;
    if (image || s[i] == '[') {
      const std::size_t open = i + (image ? 2 : 1);
      const auto close = s.find("](", open);
      const auto end = close == std::string::npos ? close : s.find(')', close + 2);
      if (end != std::string::npos) {
        const std::string text = s.substr(open, close - open), target = s.substr(close + 2, end - close - 2);
        if (const std::string pic = picture(target, text, base); !pic.empty()) {
          figures += pic;
          o += image ? "" : escape(text) + " (below)";
        } else {
          o += "<a href=\"" + escape(target) + "\">" + escape(text) + "</a>";
        }
        i = end + 1;
        continue;
      }
    }
    o += escape(std::string(1, s[i]));
    ++i;
  }
  return o;
}

std::vector<std::string> cells_of(const std::string& row) {
  std::vector<std::string> out;
  std::string cur;
  bool code = false;
  for (std::size_t i = 1; i < row.size(); ++i) {  // past the leading '|'
    if (row[i] == '`') code = !code;
    if (row[i] == '|' && !code) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += row[i];
    }
  }
  for (auto& c : out) {
    c.erase(0, c.find_first_not_of(' '));
    c.erase(c.find_last_not_of(' ') + 1);
  }
  return out;
}

struct Renderer {
  const fs::path& base;
  std::ostringstream html;
  std::string open;  // "ul", "table", "p", "pre" or ""
  std::string figures;

  void close() {
    if (!open.empty()) html << "</" << (open == "table" ? "tbody></table" : open) << ">\n";
    open.clear();
    html << figures;
    figures.clear();
  }
  void start(const std::string& what) {
    if (open == what) return;
    close();
    open = what;
    html << "<" << (what == "table" ? "table><tbody" : what) << ">";
  }
  void line(const std::string& l) {
    if (open == "pre") {
      if (l.rfind("```", 0) == 0)
        close();
      else
        html << escape(l) << "\n";
      return;
    }
    if (l.rfind("```", 0) == 0) return start("pre");
    if (l.empty()) return close();
    if (l[0] == '#') {
      const auto level = std::min<std::size_t>(l.find_first_not_of('#'), 4);
      close();
      html << "<h" << level << ">" << inline_md(l.substr(l.find_first_not_of("# ")), base, figures) << "</h" << level
           << ">\n";
      return close();
    }
    if (l.rfind("- ", 0) == 0) {
      start("ul");
      html << "<li>" << inline_md(l.substr(2), base, figures) << "</li>\n";
      return;
    }
    if (l[0] == '|') {
      if (l.find_first_not_of("|-: ") == std::string::npos) return;  // the header rule
      const bool header = open != "table";
      start("table");
      html << "<tr>";
      for (const auto& c : cells_of(l))
        html << (header ? "<th>" : "<td>") << inline_md(c, base, figures) << (header ? "</th>" : "</td>");
      html << "</tr>\n";
      return;
    }
    start("p");
    html << inline_md(l, base, figures) << "\n";
  }
};

constexpr const char* kStyle =
    "body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;line-height:1.4}"
    "code,pre{font-family:monospace;background:#f4f4f4}pre{padding:.5em;overflow-x:auto}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}"
    "figure{margin:1em 0}figure svg,figure img{max-width:100%;height:auto}figcaption{color:#555}";

}  // namespace

std::string markdown_to_html(const std::string& title, const std::string& markdown, const fs::path& base_dir) {
  Renderer r{base_dir, {}, {}, {}};
  r.html << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << escape(title) << "</title><style>"
         << kStyle << "</style></head><body>\n";
  std::istringstream in(markdown);
  for (std::string l; std::getline(in, l);) r.line(l);
  r.close();
  r.html << "</body></html>\n";
  return r.html.str();
}

void write_html_report(const fs::path& path, const std::string& title, const std::string& markdown,
                       const fs::path& base_dir) {
  const std::string page = markdown_to_html(title, markdown, base_dir);
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!(f << page) || !f.flush()) throw std::runtime_error("cannot write " + path.string());
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot write " + path.string() + ": " + ec.message());
}

}  // namespace cp::io

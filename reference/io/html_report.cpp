// The HTML report (html_report.h): the reports' markdown rendered by cmark-gfm (Debian's
// libcmark-gfm, GitHub's CommonMark with its table extension), the pictures swapped in.
#include "reference/io/html_report.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace cp::io {
namespace {

namespace fs = std::filesystem;

// The text of a placeholder paragraph for figure N (no markdown or HTML character in it).
constexpr const char* kFigureMark = "chunkproof-figure-";

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

// The figure of the picture node `n` (an image, or a link to a picture) goes after the document's
// top-level block that holds it, as a placeholder paragraph the HTML output swaps for the markup
// (cmark escapes raw HTML in a node's text; the placeholder is plain text).
void move_out(cmark_node* n, std::size_t figure, std::map<cmark_node*, cmark_node*>& last_after) {
  cmark_node* top = n;
  while (cmark_node_get_type(cmark_node_parent(top)) != CMARK_NODE_DOCUMENT) top = cmark_node_parent(top);
  cmark_node* para = cmark_node_new(CMARK_NODE_PARAGRAPH);
  cmark_node* text = cmark_node_new(CMARK_NODE_TEXT);
  cmark_node_set_literal(text, (kFigureMark + std::to_string(figure)).c_str());
  cmark_node_append_child(para, text);
  cmark_node*& after = last_after[top];
  cmark_node_insert_after(after ? after : top, para);
  after = para;
  if (cmark_node_get_type(n) == CMARK_NODE_LINK) {  // a link's label stays, pointing below
    while (cmark_node* child = cmark_node_first_child(n)) cmark_node_insert_before(n, child);
    cmark_node* below = cmark_node_new(CMARK_NODE_TEXT);
    cmark_node_set_literal(below, " (below)");
    cmark_node_insert_before(n, below);
  }
  cmark_node_free(n);  // unlinks it
}

// Every image or link whose target is a local picture: its figure, the node moved out.
std::vector<std::string> inline_pictures(cmark_node* doc, const fs::path& base) {
  std::vector<cmark_node*> found;
  std::vector<std::string> figures;
  cmark_iter* it = cmark_iter_new(doc);
  for (cmark_event_type ev; (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
    cmark_node* n = cmark_iter_get_node(it);
    const auto type = cmark_node_get_type(n);
    if (ev != CMARK_EVENT_ENTER || (type != CMARK_NODE_IMAGE && type != CMARK_NODE_LINK)) continue;
    std::string alt;  // the label's text
    for (cmark_node* c = cmark_node_first_child(n); c; c = cmark_node_next(c))
      if (const char* l = cmark_node_get_literal(c)) alt += l;
    if (std::string pic = picture(cmark_node_get_url(n), alt, base); !pic.empty()) {
      found.push_back(n);
      figures.push_back(std::move(pic));
    }
  }
  cmark_iter_free(it);
  std::map<cmark_node*, cmark_node*> last_after;
  for (std::size_t i = 0; i < found.size(); ++i) move_out(found[i], i, last_after);
  return figures;
}

// GitHub-flavoured markdown (the tables the reports write) through cmark-gfm, the figures swapped in.
std::string render_body(const std::string& markdown, const fs::path& base) {
  cmark_gfm_core_extensions_ensure_registered();
  cmark_parser* parser = cmark_parser_new(CMARK_OPT_DEFAULT);
  if (cmark_syntax_extension* table = cmark_find_syntax_extension("table"))
    cmark_parser_attach_syntax_extension(parser, table);
  cmark_parser_feed(parser, markdown.data(), markdown.size());
  cmark_node* doc = cmark_parser_finish(parser);
  const std::vector<std::string> figures = inline_pictures(doc, base);
  char* raw = cmark_render_html(doc, CMARK_OPT_DEFAULT, cmark_parser_get_syntax_extensions(parser));
  std::string html = raw;
  std::free(raw);
  cmark_node_free(doc);
  cmark_parser_free(parser);
  for (std::size_t i = figures.size(); i-- > 0;) {  // from the last: mark 1 is a prefix of mark 10
    const std::string mark = "<p>" + std::string(kFigureMark) + std::to_string(i) + "</p>";
    if (const auto at = html.find(mark); at != std::string::npos) html.replace(at, mark.size(), figures[i]);
  }
  return html;
}

constexpr const char* kStyle =
    "body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;line-height:1.4}"
    "code,pre{font-family:monospace;background:#f4f4f4}pre{padding:.5em;overflow-x:auto}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}"
    "figure{margin:1em 0}figure svg,figure img{max-width:100%;height:auto}figcaption{color:#555}";

}  // namespace

std::string markdown_to_html(const std::string& title, const std::string& markdown, const fs::path& base_dir) {
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + escape(title) + "</title><style>" + kStyle +
         "</style></head><body>\n" + render_body(markdown, base_dir) + "</body></html>\n";
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

#include "campaign/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "fuzz/common/plan_cost.h"
#include "invariants/catalogue.h"
#include "live/live.h"
#include "reference/arith/checked_int.h"
#include "reference/io/png.h"
#include "reference/planner/plan.h"

namespace cp::fuzz {
namespace {

// Roughly geometric, distinct integers from lo to hi: non-round values on purpose, so that
// divisibility (M mod W, S mod V) varies from cell to cell as it does in real configurations.
std::vector<std::int64_t> geometric(std::int64_t lo, std::int64_t hi, int n) {
  std::vector<std::int64_t> v;
  for (int i = 0; i < n; ++i) {
    const double t = n == 1 ? 0.0 : static_cast<double>(i) / (n - 1);
    const auto x = static_cast<std::int64_t>(
        std::llround(static_cast<double>(lo) * std::pow(static_cast<double>(hi) / static_cast<double>(lo), t)));
    if (v.empty() || x > v.back()) v.push_back(x);
  }
  return v;
}
std::vector<std::int64_t> linear(std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> v;
  for (std::int64_t x = lo; x <= hi; ++x) v.push_back(x);
  return v;
}

std::vector<std::int64_t> default_values(const std::string& key) {
  if (key == "workspace") {  // multiples of 64: inside every sizing domain for W | 64
    std::vector<std::int64_t> v;
    for (std::int64_t x : geometric(512, std::int64_t{1} << 21, 32))
      if (v.empty() || (x + 32) / 64 * 64 > v.back()) v.push_back((x + 32) / 64 * 64);
    return v;
  }
  if (key == "max_model_len") return geometric(1024, std::int64_t{1} << 20, 32);
  if (key == "max_num_seqs") return geometric(1, 1024, 24);
  if (key == "prefills") return linear(1, 24);
  if (key == "ctx") return geometric(1, std::int64_t{1} << 24, 32);
  if (key == "q") return linear(1, 32);
  if (key == "block") return {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
  if (key == "dcp") return {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 32, 48, 64};
  if (key == "interleave") return {1, 2, 4, 8, 16, 32, 64};
  throw std::invalid_argument("unknown map key '" + key +
                              "' (one of: workspace, max_model_len, max_num_seqs, "
                              "prefills, ctx, q, block, dcp, interleave)");
}

// The base configuration every cell starts from: the 8xMI300X crash of the README (DCP 8,
// block 64, three requests of 30,000 tokens) with the workspace each version sizes for
// DeepSeek's engine config (max_model_len 163840, 256 sequences: 65536 rows for the legacy
// versions). An explicit workspace (an axis or --fix workspace=) replaces the sizing.
struct Base {
  std::int64_t workspace = 0, max_model_len = 163840, max_num_seqs = 256, prefills = 3, ctx = 30000, q = 16, block = 64,
               dcp = 8, interleave = 1;
  void set(const std::string& k, std::int64_t v) {
    if (k == "workspace")
      workspace = v, max_model_len = max_num_seqs = 0;
    else if (k == "max_model_len" || k == "max_num_seqs") {
      workspace = 0;
      if (!max_model_len) max_model_len = 163840;
      if (!max_num_seqs) max_num_seqs = 256;
      (k == "max_model_len" ? max_model_len : max_num_seqs) = v;
    } else if (k == "prefills")
      prefills = v;
    else if (k == "ctx")
      ctx = v;
    else if (k == "q")
      q = v;
    else if (k == "block")
      block = v;
    else if (k == "dcp")
      dcp = v;
    else if (k == "interleave")
      interleave = v;
    else
      default_values(k);  // throws naming the key
  }
  Case to_case(Version ver, Platform p) const {
    Case c;
    c.version = ver;
    c.platform = p;
    if (workspace)
      c.workspace = workspace;
    else
      c.max_model_len = max_model_len, c.max_num_seqs = max_num_seqs;
    c.block = block;
    // Versions without DCP / interleave run their only configuration.
    c.dcp = info(ver).supports_dcp ? dcp : 1;
    c.interleave = info(ver).supports_interleave ? interleave : 1;
    c.ctx.assign(static_cast<std::size_t>(std::max<std::int64_t>(prefills, 0)), ctx);
    c.q.assign(c.ctx.size(), q);
    return c;
  }
};

// The base case's value of an axis key (the workspace the version sizes when none is fixed).
std::int64_t base_value(const Base& b, const std::string& k, Version v, Platform p) {
  if (k == "workspace") {
    if (b.workspace) return b.workspace;
    try {
      const Case c = b.to_case(v, p);
      return size_workspace(v, p, *c.max_model_len, *c.max_num_seqs, c.block, c.dcp, c.interleave);
    } catch (const std::exception&) {
      return 0;
    }
  }
  if (k == "max_model_len") return b.max_model_len;
  if (k == "max_num_seqs") return b.max_num_seqs;
  if (k == "prefills") return b.prefills;
  if (k == "ctx") return b.ctx;
  if (k == "q") return b.q;
  if (k == "block") return b.block;
  if (k == "dcp") return b.dcp;
  if (k == "interleave") return b.interleave;
  return 0;
}

void include_value(std::vector<std::int64_t>& axis, std::int64_t v) {
  if (v <= 0 || std::find(axis.begin(), axis.end(), v) != axis.end()) return;
  axis.insert(std::upper_bound(axis.begin(), axis.end(), v), v);
}

constexpr std::int64_t kMaxCellWork = std::int64_t{1} << 16;
// A family without closed forms (FamilyInfo::interval_level false) walks tokens: a cell costs its
// simulated rows. 2^20 keeps a map of such a family to seconds (tokenspeed-compact's four maps
// took 59 s without it, most of it in a few cells of millions of rows).
constexpr std::int64_t kMaxCellTokenRows = std::int64_t{1} << 20;

// An external planner's cell: "ok" or its finding's signature without the "live v/p " prefix.
void live_cell(live::ExternalPlanner& planner, const Case& c, MapCell& cell) {
  const live::LiveResult r = live::run_live(planner, c, {.diff = true, .level = Level::interval});
  if (!r.finding()) {
    cell.category = "ok";
    return;
  }
  const auto sp = r.signature.find(' ', 5);
  cell.category = sp == std::string::npos ? r.signature : r.signature.substr(sp + 1);
  cell.detail = r.detail;
}

MapCell evaluate_cell(const Case& c, live::ExternalPlanner* planner) {
  MapCell cell;
  cell.case_line = print_case(c);
  try {
    validate_case(c);
  } catch (const CaseError& e) {
    cell.category = "invalid input";
    cell.detail = e.what();
    return cell;
  }
  if (estimated_plan_work(c) > kMaxCellWork) {
    cell.category = "plan too large";
    cell.detail = "over 2^16 entries x W: not evaluated";
    return cell;
  }
  if (!info(c.version).family->interval_level && simulated_rows(c) > kMaxCellTokenRows) {
    cell.category = "plan too large";
    cell.detail = "over 2^20 simulated rows (the family's checks walk tokens): not evaluated";
    return cell;
  }
  try {
    if (planner) {
      live_cell(*planner, c, cell);
      return cell;
    }
    const Evaluation ev = cp::evaluate(c, Level::interval);
    if (ev.outcome == Outcome::assert_fired) {
      cell.category = "assert: " + ev.first_assert()->which;
      cell.detail = ev.first_assert()->detail;
    } else if (ev.outcome == Outcome::violation) {
      std::string tags;
      for (const auto& r : ev.results)
        if (r.verdict == Verdict::violated) tags += (tags.empty() ? "" : ",") + std::string(info(r.id).tag);
      cell.category = "violation: " + tags;
      for (const auto& r : ev.results)
        if (r.verdict == Verdict::violated && !r.violations.empty()) {
          cell.detail = std::string(info(r.id).tag) + ": expected " + r.violations.front().expected + ", got " +
                        r.violations.front().got;
          break;
        }
    } else {
      cell.category = "ok";
    }
  } catch (const CaseError& e) {
    cell.category = "plan too large";
    cell.detail = e.what();
  } catch (const ArithmeticError& e) {
    cell.category = "invalid input";
    cell.detail = e.what();
  }
  return cell;
}

std::string xml(std::string_view s) {
  std::string o;
  for (char ch : s) {
    if (ch == '<')
      o += "&lt;";
    else if (ch == '>')
      o += "&gt;";
    else if (ch == '&')
      o += "&amp;";
    else if (ch == '"')
      o += "&quot;";
    else
      o += ch;
  }
  return o;
}

std::string colour_of(const std::string& cat, std::size_t index) {
  if (cat == "ok") return "#4caf50";
  if (cat == "invalid input") return "#d9d9d9";
  if (cat == "plan too large") return "#f2f2f2";
  if (cat == kNotComputed) return "#ffffff";
  static const char* kAsserts[] = {"#d62728", "#ff7f0e", "#8c1c13", "#e377c2", "#bcbd22", "#ff9896"};
  static const char* kViolations[] = {"#1f77b4", "#9467bd", "#17becf", "#393b79", "#8c564b",
                                      "#6b6ecf", "#7f7f7f", "#aec7e8", "#c5b0d5", "#843c39"};
  if (cat.rfind("assert", 0) == 0) return kAsserts[index % std::size(kAsserts)];
  return kViolations[index % std::size(kViolations)];
}

}  // namespace

std::vector<std::string> map_keys() {
  return {"workspace", "max_model_len", "max_num_seqs", "prefills", "ctx", "q", "block", "dcp", "interleave"};
}

Map compute_map(const MapSpec& spec) {
  if (spec.x == spec.y) throw std::invalid_argument("--x and --y must differ");
  Map m;
  m.spec = spec;
  m.xs = spec.x_values.empty() ? default_values(spec.x) : spec.x_values;
  m.ys = spec.y_values.empty() ? default_values(spec.y) : spec.y_values;
  Base base;
  for (const auto& [k, v] : spec.fix) base.set(k, v);
  include_value(m.xs, base_value(base, spec.x, spec.version, spec.platform));
  include_value(m.ys, base_value(base, spec.y, spec.version, spec.platform));
  {
    Case shown = base.to_case(spec.version, spec.platform);
    m.base_line = print_case(shown);
  }
  const auto cells = static_cast<std::int64_t>(m.xs.size() * m.ys.size());
  m.total_cells = cells;
  for (std::size_t j = 0; j < m.ys.size() && !m.interrupted; ++j)
    for (std::int64_t x : m.xs) {
      Base b = base;
      b.set(spec.y, m.ys[j]);
      b.set(spec.x, x);
      m.interrupted = m.interrupted || (spec.stop && spec.stop());
      MapCell cell;
      if (m.interrupted) {
        // The row under way is completed as not computed and the rows after it are dropped: the
        // grid the renderers draw is the part computed so far (fast to write, however large).
        cell.category = kNotComputed;
        cell.case_line = print_case(b.to_case(spec.version, spec.platform));
        m.ys.resize(j + 1);
      } else {
        cell = evaluate_cell(b.to_case(spec.version, spec.platform), spec.planner);
        ++m.computed;
        if (spec.progress) spec.progress(m.computed, cells);
      }
      if (!m.counts.count(cell.category)) m.categories.push_back(cell.category);
      ++m.counts[cell.category];
      m.cells.push_back(std::move(cell));
    }
  std::stable_sort(m.categories.begin(), m.categories.end(), [](const std::string& a, const std::string& b) {
    auto rank = [](const std::string& s) {
      return s == "ok" ? 0 : s.rfind("assert", 0) == 0 ? 1 : s.rfind("violation", 0) == 0 ? 2 : 3;
    };
    return rank(a) < rank(b);
  });
  return m;
}

std::string render_svg(const Map& m) {
  const int cw = 16, ch = 14, left = 90, top = 64, nx = static_cast<int>(m.xs.size()),
            ny = static_cast<int>(m.ys.size());
  const int grid_w = nx * cw, grid_h = ny * ch;
  const int legend_top = top + grid_h + 56;
  const int height = legend_top + 20 * static_cast<int>(m.categories.size()) + 40;
  const int width = std::max({left + grid_w + 40, 760, 30 + 7 * static_cast<int>(m.base_line.size() + 11)});
  std::map<std::string, std::string> colour;
  std::size_t na = 0, nv = 0;
  for (const auto& c : m.categories)
    colour[c] = colour_of(c, c.rfind("assert", 0) == 0 ? na++ : c.rfind("violation", 0) == 0 ? nv++ : 0);
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">" << xml(name(m.spec.version)) << " / "
    << xml(name(m.spec.platform)) << ": " << xml(m.spec.y) << " (rows) x " << xml(m.spec.x) << " (columns)</text>\n"
    << "<text x=\"10\" y=\"38\">base case: " << xml(m.base_line) << "</text>\n"
    << "<text x=\"10\" y=\"54\">each cell: that case with " << xml(m.spec.x) << " and " << xml(m.spec.y)
    << " replaced, evaluated at interval level (hover for the case line)</text>\n";
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const MapCell& cell = m.cells[static_cast<std::size_t>(j * nx + i)];
      // Row 0 at the bottom: y grows upwards.
      const int px = left + i * cw, py = top + (ny - 1 - j) * ch;
      s << "<rect x=\"" << px << "\" y=\"" << py << "\" width=\"" << cw << "\" height=\"" << ch << "\" fill=\""
        << colour[cell.category] << "\" stroke=\"white\" stroke-width=\"0.5\"><title>" << xml(m.spec.x) << "="
        << m.xs[static_cast<std::size_t>(i)] << " " << xml(m.spec.y) << "=" << m.ys[static_cast<std::size_t>(j)] << ": "
        << xml(cell.category) << (cell.detail.empty() ? "" : " (" + xml(cell.detail) + ")") << "\n"
        << xml(cell.case_line) << "</title></rect>\n";
    }
  const int xstep = std::max(1, nx / 10), ystep = std::max(1, ny / 12);
  for (int i = 0; i < nx; i += xstep)
    s << "<text x=\"" << left + i * cw + cw / 2 << "\" y=\"" << top + grid_h + 14
      << "\" text-anchor=\"end\" transform=\"rotate(-40 " << left + i * cw + cw / 2 << " " << top + grid_h + 14
      << ")\">" << m.xs[static_cast<std::size_t>(i)] << "</text>\n";
  for (int j = 0; j < ny; j += ystep)
    s << "<text x=\"" << left - 6 << "\" y=\"" << top + (ny - 1 - j) * ch + ch - 3 << "\" text-anchor=\"end\">"
      << m.ys[static_cast<std::size_t>(j)] << "</text>\n";
  s << "<text x=\"" << left + grid_w / 2 << "\" y=\"" << top + grid_h + 46
    << "\" text-anchor=\"middle\" font-weight=\"bold\">" << xml(m.spec.x) << "</text>\n"
    << "<text x=\"14\" y=\"" << top + grid_h / 2 << "\" font-weight=\"bold\" transform=\"rotate(-90 14 "
    << top + grid_h / 2 << ")\" text-anchor=\"middle\">" << xml(m.spec.y) << "</text>\n";
  int ly = legend_top;
  const auto total = static_cast<std::int64_t>(m.cells.size());
  for (const auto& c : m.categories) {
    s << "<rect x=\"10\" y=\"" << ly << "\" width=\"14\" height=\"14\" fill=\"" << colour[c]
      << "\" stroke=\"#666\" stroke-width=\"0.5\"/><text x=\"30\" y=\"" << ly + 11 << "\">" << xml(c) << " — "
      << m.counts.at(c) << " of " << total << " cells</text>\n";
    ly += 20;
  }
  s << "</svg>\n";
  return s.str();
}

std::vector<std::int64_t> parse_axis(const std::string& key, const std::string& spec) {
  auto number = [&](const std::string& t) {
    std::size_t pos = 0;
    std::int64_t v = 0;
    try {
      v = std::stoll(t, &pos);
    } catch (const std::exception&) {
      pos = std::string::npos;
    }
    if (pos != t.size() || v < 0)
      throw std::invalid_argument("--x/--y " + key + ": not a non-negative integer: '" + t + "'");
    return v;
  };
  std::vector<std::int64_t> out;
  if (const auto dots = spec.find(".."); dots != std::string::npos) {
    const auto colon = spec.find(':', dots);
    const std::int64_t lo = number(spec.substr(0, dots));
    const std::int64_t hi =
        number(spec.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2));
    if (hi < lo) throw std::invalid_argument("--x/--y " + key + ": empty range '" + spec + "'");
    if (colon == std::string::npos) {
      for (std::int64_t v : default_values(key))
        if (v >= lo && v <= hi) out.push_back(v);
      if (out.empty() || out.front() != lo) out.insert(out.begin(), lo);
      if (out.back() != hi) out.push_back(hi);
    } else {
      const std::int64_t step = number(spec.substr(colon + 1));
      if (step < 1 || (hi - lo) / step > 4096)
        throw std::invalid_argument("--x/--y " + key + ": step must be >= 1 and give at most 4096 values");
      for (std::int64_t v = lo; v <= hi; v += step) out.push_back(v);
    }
  } else {
    std::stringstream ss(spec);
    for (std::string t; std::getline(ss, t, ',');) out.push_back(number(t));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  if (out.empty()) throw std::invalid_argument("--x/--y " + key + ": no values in '" + spec + "'");
  default_values(key);  // the key must be an axis key
  return out;
}

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
}  // namespace

std::string render_csv(const Map& m) {
  std::ostringstream o;
  o << m.spec.x << "," << m.spec.y << ",outcome,case\n";
  std::size_t k = 0;
  for (std::int64_t y : m.ys)
    for (std::int64_t x : m.xs) {
      const MapCell& c = m.cells[k++];
      o << x << "," << y << "," << csv_field(c.category) << "," << csv_field(c.case_line) << "\n";
    }
  return o.str();
}

std::string render_table(const Map& m) {
  std::map<std::string, char> code;
  char next = 'A';
  for (const auto& c : m.categories) code[c] = c == "ok" ? '.' : next <= 'Z' ? next++ : '?';
  std::ostringstream o;
  o << name(m.spec.version) << " " << name(m.spec.platform) << ": " << m.spec.y << " (down) x " << m.spec.x
    << " (across); base " << m.base_line << "\n";
  std::size_t w = 0;
  for (auto y : m.ys) w = std::max(w, std::to_string(y).size());
  o << std::string(w + 2, ' ') << m.spec.x << ": ";
  for (std::size_t i = 0; i < m.xs.size(); ++i) o << (i ? "," : "") << m.xs[i];
  o << "\n";
  std::size_t k = 0;
  for (std::int64_t y : m.ys) {
    const std::string ys = std::to_string(y);
    o << std::string(w - ys.size(), ' ') << ys << "  ";
    for (std::size_t i = 0; i < m.xs.size(); ++i) o << code[m.cells[k++].category];
    o << "\n";
  }
  for (const auto& c : m.categories) o << "  " << code[c] << "  " << m.counts.at(c) << "\t" << c << "\n";
  return o.str();
}

std::string write_map_files(const Map& m, const std::string& svg_path, std::string& png_note) {
  {
    std::ofstream out(svg_path + ".tmp", std::ios::trunc);
    out << render_svg(m);
    if (!out) throw std::runtime_error("cannot write " + svg_path);
  }
  std::rename((svg_path + ".tmp").c_str(), svg_path.c_str());
  std::string png = svg_path.substr(0, svg_path.size() - (svg_path.ends_with(".svg") ? 4 : 0)) + ".png";
  std::remove(png.c_str());
  std::string why;
  if (!io::svg_to_png(svg_path, png, why, 2.0)) {  // twice the SVG's size: readable text in a report
    png_note = "no PNG: " + why;
    return {};
  }
  return png;
}

std::vector<MapSpec> default_maps(Version v, Platform p) {
  std::vector<MapSpec> maps;
  MapSpec a;
  a.version = v, a.platform = p, a.x = "workspace", a.y = "prefills";
  maps.push_back(a);
  if (info(v).supports_dcp) {
    MapSpec b;
    // Interleave only where the version has it; otherwise the workspace against W.
    b.version = v, b.platform = p, b.x = "dcp", b.y = info(v).supports_interleave ? "interleave" : "workspace";
    maps.push_back(b);
  }
  return maps;
}

}  // namespace cp::fuzz

// Violation maps: one version and platform evaluated (interval level) over a grid of two
// parameters of the domain, each cell coloured by what happens there — ok, which assert fires,
// or which invariant is violated first. Drawn directly as SVG, and as PNG through librsvg + Cairo
// (reference/io/png.h) where the build found them. `chunkproof map` draws one; the campaign report links one
// per version and platform.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "reference/planner/versions.h"

namespace cp::live {
class ExternalPlanner;
}

namespace cp::fuzz {

// Axis and fixed keys: workspace, max_model_len, max_num_seqs, prefills (number of requests),
// ctx (each request's context), q, block, dcp, interleave.
std::vector<std::string> map_keys();

struct MapSpec {
  Version version = Version::v6_current;
  Platform platform = Platform::cuda;
  std::string x = "workspace", y = "prefills";
  std::vector<std::pair<std::string, std::int64_t>> fix;  // applied over the base case
  std::vector<std::int64_t> x_values, y_values;           // empty: the key's default range
  // --planner-cmd (docs/live.md): each cell is planned by this external planner, checked and
  // diffed against the model of `version`; a cell's outcome is its finding's signature.
  live::ExternalPlanner* planner = nullptr;
  // Every axis also holds the base case's value of its key (a --fix value, or the base config's:
  // workspace the version sizes for it, 65536 for the legacy versions), so the pinned
  // configuration is always a cell.
  // Long grids: `progress(cells done, cells)` after every cell; `stop` polled before every cell,
  // true ends the grid there (Map::interrupted): the rest of that row is kNotComputed and the
  // rows after it are not in the map.
  std::function<void(std::int64_t, std::int64_t)> progress;
  std::function<bool()> stop;
};

// The category of the cells an interrupted map did not reach.
inline constexpr const char* kNotComputed = "not computed (interrupted)";

struct MapCell {
  std::string category;  // "ok", "assert: ...", "violation: I-x", "invalid input", "plan too large"
  std::string case_line;
  std::string detail;
};

struct Map {
  MapSpec spec;
  std::vector<std::int64_t> xs, ys;
  std::vector<MapCell> cells;           // row-major, y outer
  std::vector<std::string> categories;  // in first-seen order, "ok" first when present
  std::map<std::string, std::int64_t> counts;
  std::string base_line;         // the base case (x, y shown as X, Y)
  bool interrupted = false;      // MapSpec::stop ended the grid early (ys then ends at its row)
  std::int64_t computed = 0;     // cells evaluated
  std::int64_t total_cells = 0;  // cells of the whole grid asked for
};

// Evaluates the grid. Throws std::invalid_argument naming the bad key or value.
Map compute_map(const MapSpec& spec);
std::string render_svg(const Map& m);
// One row per cell: <x key>,<y key>,outcome,case (RFC 4180 quoting).
std::string render_csv(const Map& m);
// A text grid: y down, x across, one character per cell ('.' ok, A, B, ... the other outcomes),
// the legend with counts below.
std::string render_table(const Map& m);
// "LO..HI:STEP", "LO..HI" (the key's default values inside [LO, HI]) or "V1,V2,...": an axis's
// values. Throws std::invalid_argument naming the key.
std::vector<std::int64_t> parse_axis(const std::string& key, const std::string& spec);

// Writes <path> (SVG) and, when a converter is installed, the PNG beside it; returns the PNG
// path or "" (and why in `png_note`).
std::string write_map_files(const Map& m, const std::string& svg_path, std::string& png_note);

// The maps a campaign report links for one version and platform: workspace x prefills at its
// default DCP/interleave, and dcp x interleave (dcp x workspace for versions without interleave).
std::vector<MapSpec> default_maps(Version v, Platform p);

}  // namespace cp::fuzz

// chunkproof map: a violation map of one version and platform over two parameters
// (campaign/heatmap.h), written as SVG (and PNG where a converter is installed).
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "campaign/heatmap.h"
#include "reference/planner/versions.h"
#include "reference/proc/interrupt.h"
#include "reference/proc/progress.h"
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/json.h"
#include "tools/chunkproof/live_cli.h"

namespace cp::cli {
namespace cmd_map {  // one per file: the unity build puts several files in one TU
namespace {

constexpr const char* kHelp =
    R"(usage: chunkproof map --version V --platform cuda|rocm --x KEY[=VALUES] --y KEY[=VALUES]
                      [--fix KEY=VAL ...] [--format svg|csv|table] [--out FILE|-] [--json]

Evaluates the version on a grid of two parameters (every other parameter from a base case, the
8xMI300X configuration: block=64 dcp=8 interleave=1, 3 prefills of ctx=30000, q=16, the
workspace sized by the version from max_model_len=163840 max_num_seqs=256 unless workspace is
an axis or fixed; changed with --fix) and draws each cell in the colour of its outcome: ok, the assert that
fires, or the invariants violated (interval-level evaluation, the same verdicts as `plan`).
Hovering a cell in a browser shows its case line, which replays with `chunkproof plan --case`.

  --version V       a planner version (chunkproof versions)
  --platform P      cuda or rocm
  --x KEY[=VALUES], --y KEY[=VALUES]
                    workspace, max_model_len, max_num_seqs, prefills (number of requests), ctx
                    (each request's context), q, block, dcp, interleave; VALUES: LO..HI:STEP,
                    LO..HI (the key's default values inside, and both ends) or V1,V2,...
                    (e.g. --x workspace=16384..131072:16384). Every axis also holds the base
                    case's value of its key (a --fix value; workspace: what the version sizes
                    for the base config, 65536 for the legacy versions)
  --fix KEY=VAL[,KEY=VAL...], --pin ...
                    set parameters of the base case exactly (repeatable), e.g. --pin block=64,dcp=8;
                    every axis holds the pinned value of its key
  --planner-cmd CMD each cell planned by an external planner (docs/live.md), checked and diffed
                    against chunkproof's model of --version; a cell's outcome is its finding
  --format F        svg (default; a PNG beside it, rendered through librsvg + Cairo where this
                    build has them: `chunkproof --version`), csv (one row per cell: x, y, outcome, case line) or table (a
                    text grid, one character per cell, and the legend)
  --out FILE        default map-<version>-<platform>-<y>-x-<x>.<svg|csv>; - is stdout (csv,
                    table); checked before any cell is computed
  --json            one chunkproof.map/1 object on stdout (docs/json.md)
  --progress        the progress line (cells, estimate) on stderr even when it is not a terminal

Ctrl-C or SIGTERM: the rows computed so far are drawn and written, the rest of the last row as
'not computed (interrupted)'; exit 3.
exit: 0 map written (every cell ok), 1 map written with findings in some cells, 2 usage,
3 interrupted (the map is partial).
)";

int run(Args args) {
  CLI::App app{kHelp, "chunkproof map"};
  configure(app);
  std::string version, platform, out;
  std::vector<std::string> fixes;
  fuzz::MapSpec spec;
  app.add_option("--version", version, "the planner version")->required();
  app.add_option("--platform", platform, "cuda or rocm")->required();
  app.add_option("--x", spec.x, "the parameter along x")->required();
  app.add_option("--y", spec.y, "the parameter along y")->required();
  app.add_option("--fix,--pin", fixes, "KEY=VAL[,KEY=VAL...] of the base case (repeatable; --pin: the same)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--out", out, "the output file (- for stdout: csv, table)")->type_name("FILE");
  std::string format = "svg";
  app.add_option("--format", format, "svg | csv | table")
      ->check(CLI::IsMember({"svg", "csv", "table"}))
      ->capture_default_str();
  bool json = false, progress_flag = false;
  app.add_flag("--json", json, "machine-readable output: one chunkproof.map/1 object (docs/json.md)");
  app.add_flag("--progress", progress_flag, "progress on stderr even when it is not a terminal");
  LiveArgs live;
  add_live_options(app, live, false);  // the map's --version is the model the plans are diffed against
  if (!parse(app, args)) return kExitOk;
  std::vector<std::pair<std::string, std::int64_t>> fix;
  for (const auto& kv : fixes) {
    const auto eq = kv.find('=');
    std::int64_t val = 0;
    const char* b = kv.data() + (eq == std::string::npos ? 0 : eq + 1);
    auto [ptr, ec] = std::from_chars(b, kv.data() + kv.size(), val);
    if (eq == std::string::npos || ec != std::errc() || ptr != kv.data() + kv.size() || val < 0)
      throw UsageError("--fix expects KEY=non-negative integer, got '" + kv + "'");
    fix.emplace_back(kv.substr(0, eq), val);
  }
  const auto v = parse_version(version);
  if (!v) throw UsageError("--version: unknown version '" + version + "' (see chunkproof versions)");
  const auto p = parse_platform(platform);
  if (!p) throw UsageError("--platform must be cuda or rocm");
  spec.version = *v;
  spec.platform = *p;
  spec.fix = fix;
  try {
    for (auto [axis, values] : {std::pair{&spec.x, &spec.x_values}, std::pair{&spec.y, &spec.y_values}}) {
      const auto eq = axis->find('=');
      if (eq == std::string::npos) continue;
      *values = fuzz::parse_axis(axis->substr(0, eq), axis->substr(eq + 1));
      axis->resize(eq);
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (out.empty() && format != "table")
    out = "map-" + std::string(name(spec.version)) + "-" + std::string(name(spec.platform)) + "-" + spec.y + "-x-" +
          spec.x + "." + format;
  if (out == "-" && format == "svg") throw UsageError("--out -: stdout takes --format csv or table");
  if (json && format != "svg" && (out.empty() || out == "-"))
    throw UsageError("--json with --format " + format + " needs --out FILE (stdout holds the JSON document)");
  // The output first: nothing is computed for a file that cannot be written.
  if (!out.empty() && out != "-") {
    const std::filesystem::path dir = std::filesystem::path(out).parent_path();
    if (!writable_dir(dir.empty() ? std::string(".") : dir.string()))
      throw UsageError("--out: cannot create or write the folder of '" + out + "' (nothing was computed)");
  }
  const auto planner = start_planner(live);
  spec.planner = planner.get();
  fuzz::Map m;
  {
    // Ctrl-C / SIGTERM: the cells so far are drawn and written (the rest "not computed"), exit 3.
    proc::InterruptGuard guard;
    proc::Progress progress("map", 0, "cells", show_progress(progress_flag));
    spec.progress = [&](std::int64_t done, std::int64_t total) {
      progress.set_total(total);
      progress.set(done);
    };
    spec.stop = [] { return proc::interrupted(); };
    try {
      m = fuzz::compute_map(spec);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  std::string png_note, png;
  if (format == "svg") {
    png = fuzz::write_map_files(m, out, png_note);
  } else {
    const std::string text = format == "csv" ? fuzz::render_csv(m) : fuzz::render_table(m);
    if (out.empty() || out == "-") {
      std::cout << text;
    } else {
      std::ofstream f(out, std::ios::trunc);
      if (!(f << text) || !f.flush()) throw UsageError("--out: cannot write '" + out + "'");
    }
  }
  bool findings = false;
  for (const auto& c : m.categories)
    for (const char* f :
         {"assert", "crash", "violation", "diff", "exception", "protocol"})  // the last three: --planner-cmd
      findings = findings || c.rfind(f, 0) == 0;
  const int rc = worst(findings ? kExitFinding : kExitOk, m.interrupted ? kExitInconclusive : kExitOk);
  const std::string stopped =
      m.interrupted ? "interrupted after " + std::to_string(m.computed) + " of " + std::to_string(m.total_cells) +
                          " cells (the map holds the rows so far, its last row's rest " + fuzz::kNotComputed + ")"
                    : std::string();
  if (!stopped.empty()) std::cerr << "chunkproof map: " << stopped << "\n";
  if (json) {
    Json counts = Json::array();
    for (const auto& c : m.categories) counts.push_back(Json{{"outcome", c}, {"cells", m.counts.at(c)}});
    print_json(std::cout, Json{{"schema", "chunkproof.map/1"},
                               {"version", name(spec.version)},
                               {"platform", name(spec.platform)},
                               {"x", spec.x},
                               {"y", spec.y},
                               {"svg", format == "svg" ? Json(out) : Json(nullptr)},
                               {"png", png.empty() ? Json(nullptr) : Json(png)},
                               {"png_note", png.empty() && format == "svg" ? Json(png_note) : Json(nullptr)},
                               {"format", format},
                               {"out", out.empty() || out == "-" ? Json(nullptr) : Json(out)},
                               {"outcomes", counts},
                               {"interrupted", m.interrupted},
                               {"exit_code", rc}});
    return rc;
  }
  if (format == "table" || out == "-") return rc;  // the text is the output
  std::cout << (format == "svg" ? "map: " : "csv: ") << out << "\n";
  if (format == "svg") std::cout << (png.empty() ? png_note : "png: " + png) << "\n";
  for (const auto& c : m.categories) std::cout << "  " << m.counts.at(c) << "\t" << c << "\n";
  return rc;
}

const RegisterCommand reg{"map", "draw a violation map (SVG/PNG) of a version over two parameters", run};

}  // namespace
}  // namespace cmd_map
}  // namespace cp::cli

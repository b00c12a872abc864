// chunkproof map: a violation map of one version and platform over two parameters
// (campaign/heatmap.h), written as SVG (and PNG where a converter is installed).
#include <charconv>
#include <iostream>

#include "campaign/heatmap.h"
#include "reference/planner/versions.h"
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/json.h"

namespace cp::cli {
namespace {

constexpr const char* kHelp =
    R"(usage: chunkproof map --version V --platform cuda|rocm --x KEY --y KEY [--fix KEY=VAL ...]
                      [--out FILE.svg]

Evaluates the version on a grid of two parameters (every other parameter from a base case, the
8xMI300X configuration: block=64 dcp=8 interleave=1, 3 prefills of ctx=30000, q=16, the
workspace sized by the version from max_model_len=163840 max_num_seqs=256 unless workspace is
an axis or fixed; changed with --fix) and draws each cell in the colour of its outcome: ok, the assert that
fires, or the invariants violated (interval-level evaluation, the same verdicts as `plan`).
Hovering a cell in a browser shows its case line, which replays with `chunkproof plan --case`.

  --version V       a planner version (chunkproof versions)
  --platform P      cuda or rocm
  --x KEY, --y KEY  workspace, max_model_len, max_num_seqs, prefills (number of requests), ctx
                    (each request's context), q, block, dcp, interleave
  --fix KEY=VAL     set a parameter of the base case (repeatable), e.g. --fix dcp=4
  --out FILE.svg    default map-<version>-<platform>-<y>-x-<x>.svg; a PNG is written beside it
                    when rsvg-convert or ImageMagick's convert is installed
  --json            one chunkproof.map/1 object on stdout (docs/json.md)

exit: 0 map written (every cell ok), 1 map written with findings in some cells, 2 usage.
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
  app.add_option("--fix", fixes, "KEY=VAL of the base case (repeatable)")->allow_extra_args(false);
  app.add_option("--out", out, "the SVG file")->type_name("FILE.svg");
  bool json = false;
  app.add_flag("--json", json, "machine-readable output: one chunkproof.map/1 object (docs/json.md)");
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
  fuzz::Map m;
  try {
    m = fuzz::compute_map(spec);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (out.empty())
    out = "map-" + std::string(name(spec.version)) + "-" + std::string(name(spec.platform)) + "-" + spec.y + "-x-" +
          spec.x + ".svg";
  std::string png_note;
  const std::string png = fuzz::write_map_files(m, out, png_note);
  bool findings = false;
  for (const auto& c : m.categories)
    findings = findings || c.rfind("assert", 0) == 0 || c.rfind("crash", 0) == 0 || c.rfind("violation", 0) == 0;
  const int rc = findings ? kExitFinding : kExitOk;
  if (json) {
    Json counts = Json::array();
    for (const auto& c : m.categories) counts.push_back(Json{{"outcome", c}, {"cells", m.counts.at(c)}});
    print_json(std::cout, Json{{"schema", "chunkproof.map/1"},
                               {"version", name(spec.version)},
                               {"platform", name(spec.platform)},
                               {"x", spec.x},
                               {"y", spec.y},
                               {"svg", out},
                               {"png", png.empty() ? Json(nullptr) : Json(png)},
                               {"png_note", png.empty() ? Json(png_note) : Json(nullptr)},
                               {"outcomes", counts},
                               {"exit_code", rc}});
    return rc;
  }
  std::cout << "map: " << out << "\n";
  if (!png.empty())
    std::cout << "png: " << png << "\n";
  else
    std::cout << png_note << "\n";
  for (const auto& c : m.categories) std::cout << "  " << m.counts.at(c) << "\t" << c << "\n";
  return rc;
}

const RegisterCommand reg{"map", "draw a violation map (SVG/PNG) of a version over two parameters", run};

}  // namespace
}  // namespace cp::cli

// chunkproof map: a violation map of one version and platform over two parameters
// (fuzz/runner/heatmap.h), written as SVG (and PNG where a converter is installed).
#include <charconv>
#include <iostream>

#include "fuzz/runner/heatmap.h"
#include "reference/planner/versions.h"
#include "tools/chunkproof/cli.h"

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

exit: 0 map written (every cell ok), 1 map written with findings in some cells, 2 usage.
)";

int run(Args args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    return kExitOk;
  }
  // --fix repeats; Options keeps the last value of a key, so collect them here.
  std::vector<std::pair<std::string, std::int64_t>> fix;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string kv;
    if (args[i] == "--fix" && i + 1 < args.size())
      kv = args[i + 1];
    else if (args[i].rfind("--fix=", 0) == 0)
      kv = args[i].substr(6);
    else
      continue;
    const auto eq = kv.find('=');
    std::int64_t v = 0;
    const char* b = kv.data() + (eq == std::string::npos ? 0 : eq + 1);
    auto [p, ec] = std::from_chars(b, kv.data() + kv.size(), v);
    if (eq == std::string::npos || ec != std::errc() || p != kv.data() + kv.size() || v < 0)
      throw UsageError("--fix expects KEY=non-negative integer, got '" + kv + "'");
    fix.emplace_back(kv.substr(0, eq), v);
  }
  Options o(args, {}, {"--version", "--platform", "--x", "--y", "--fix", "--out"});
  if (!o.positional().empty()) throw UsageError("unexpected argument '" + o.positional().front() + "'");
  fuzz::MapSpec spec;
  const auto v = parse_version(o.get_or("--version", ""));
  if (!v) throw UsageError("--version: missing or unknown (see chunkproof versions)");
  const auto p = parse_platform(o.get_or("--platform", ""));
  if (!p) throw UsageError("--platform must be cuda or rocm");
  spec.version = *v;
  spec.platform = *p;
  spec.x = o.get_or("--x", "");
  spec.y = o.get_or("--y", "");
  if (spec.x.empty() || spec.y.empty()) throw UsageError("--x and --y are required");
  spec.fix = fix;
  fuzz::Map m;
  try {
    m = fuzz::compute_map(spec);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const std::string out =
      o.get_or("--out", "map-" + std::string(name(spec.version)) + "-" + std::string(name(spec.platform)) + "-" +
                            spec.y + "-x-" + spec.x + ".svg");
  std::string png_note;
  const std::string png = fuzz::write_map_files(m, out, png_note);
  std::cout << "map: " << out << "\n";
  if (!png.empty())
    std::cout << "png: " << png << "\n";
  else
    std::cout << png_note << "\n";
  bool findings = false;
  for (const auto& c : m.categories) {
    std::cout << "  " << m.counts.at(c) << "\t" << c << "\n";
    findings = findings || c.rfind("assert", 0) == 0 || c.rfind("violation", 0) == 0;
  }
  return findings ? kExitFinding : kExitOk;
}

const RegisterCommand reg{"map", "draw a violation map (SVG/PNG) of a version over two parameters", run};

}  // namespace
}  // namespace cp::cli

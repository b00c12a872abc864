// chunkproof compare: production-kernel results (python/chunkproof_runner) against an export's
// exact reference, and against each other: chunked vs unchunked with one kernel set, plan A vs
// plan B, kernel set vs kernel set. Writes report.md, report.json and SVG pictures.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "reference/io/compare.h"
#include "reference/io/export.h"
#include "tools/chunkproof/cli.h"

namespace cp::cli {

namespace {

using json = nlohmann::ordered_json;

constexpr const char* kCompareHelp =
    R"(usage: chunkproof compare EXPORT RESULT... [--out DIR] [--bound-rel X] [--bound-lse X]

EXPORT is a directory written by `chunkproof export`, each RESULT one written by the Python
runner (python3 -m chunkproof_runner run ...). Results may come from other exports of the same
batch (same ctx, q, seed, dims; another version, platform or DCP setting): every one is
measured against EXPORT's exact unchunked reference, which does not depend on the plan.

Per result: fp32 bit-equal and bf16-equal fractions, a bf16 ULP histogram, max/mean abs and
row-scaled rel error of out, LSE errors (finite pairs; -inf on both sides agrees; inf
mismatches and NaN counted), NaN/Inf counts, the kernel alone (each chunk's (out, lse) against
the CPU partial of the same workspace rows), and a pass/fail line against the kernel bound
(docs/kernels.md). Pairs (found automatically; A is always a result on EXPORT's plan): chunked
vs unchunked of one kernel set, plan A vs plan B of one kernel set, kernel set vs kernel set.

  --out DIR        where report.md, report.json and the SVGs go (default compare-report)
  --bound-rel X    row-scaled relative bound on out (default 2^-6)
  --bound-lse X    absolute bound on the LSE (default 2^-6)

exit: 0 every result within the bound; 1 a finding (a result out of bound: a broken plan or
a kernel past the bound); 2 bad input (unreadable files, a result of another batch).
)";

std::string sci(double x) {
  std::ostringstream os;
  os << std::scientific << std::setprecision(2) << x;
  return os.str();
}
std::string pct(std::int64_t a, std::int64_t n) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(n && a != n ? 4 : 0)
     << (n ? 100.0 * static_cast<double>(a) / static_cast<double>(n) : 100.0) << "%";
  return os.str();
}

json out_json(const io::OutStats& s) {
  json h = json::object();
  for (int b = 0; b < io::UlpHistogram::kBuckets; ++b)
    if (s.hist.count[static_cast<std::size_t>(b)])
      h[io::UlpHistogram::label(b)] = s.hist.count[static_cast<std::size_t>(b)];
  if (s.hist.nan) h["NaN"] = s.hist.nan;
  return {{"elements", s.elements},
          {"bit_equal", s.bit_equal},
          {"bf16_equal", s.bf16_equal},
          {"max_abs", s.max_abs},
          {"mean_abs", s.mean_abs},
          {"max_rel", s.max_rel},
          {"mean_rel", s.mean_rel},
          {"max_bf16_ulp", s.max_ulp},
          {"nan", s.nan_got},
          {"inf", s.inf_got},
          {"worst", {{"token", s.worst.token}, {"head", s.worst.head}, {"dim", s.worst.dim}}},
          {"bf16_ulp_histogram", h}};
}
json lse_json(const io::LseStats& s) {
  return {{"elements", s.elements}, {"bit_equal", s.bit_equal},       {"max_abs", s.max_abs},
          {"mean_abs", s.mean_abs}, {"both_neg_inf", s.both_neg_inf}, {"inf_mismatch", s.inf_mismatch},
          {"nan", s.nan_got}};
}

struct Loaded {
  io::RunResult r;
  io::Export ex;  // the export the result ran on
  std::string label;
};

// The batch a result's outputs belong to: requests, seed and shape (not the plan).
json batch_of(const nlohmann::json& m) {
  json reqs = json::array();
  for (const auto& r : m.at("requests")) reqs.push_back({r.at("ctx"), r.at("q")});
  return {{"requests", reqs}, {"seed", m.at("seed")}, {"shape", m.at("shape")}};
}

std::vector<float> f32(const io::SafetensorsFile& f, const std::string& n) { return f.at(n).to_f32(); }

void write_file(const std::string& path, const std::string& s) {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw io::IoError("cannot write " + path);
  f << s;
}

}  // namespace

int compare_main(Args args) {
  CLI::App app{kCompareHelp, "chunkproof compare"};
  configure(app);
  std::vector<std::string> dirs;
  io::KernelBound bound;
  std::string outdir = "compare-report";
  app.add_option("dirs", dirs, "EXPORT then RESULT...")->required()->expected(2, 1 << 20);
  app.add_option("--out", outdir, "report folder")->capture_default_str();
  app.add_option("--bound-rel", bound.rel, "max relative error bound")->check(CLI::PositiveNumber);
  app.add_option("--bound-lse", bound.lse_abs, "max LSE abs error bound")->check(CLI::PositiveNumber);
  if (!parse(app, args)) return kExitOk;
  require_writable_dir(outdir, "--out");
  std::filesystem::create_directories(outdir);

  io::Export ref;
  std::vector<Loaded> res;
  try {
    ref = io::read_export(dirs[0]);
    if (!ref.reference.has("out")) throw io::IoError(ref.dir + ": the export holds no reference (its assert fired)");
    for (std::size_t i = 1; i < dirs.size(); ++i) {
      Loaded l{io::read_result(dirs[i]), {}, {}};
      const std::string ed = l.r.info.value("export", "");
      if (!ed.empty() && std::filesystem::exists(ed + "/" + io::kManifestFile))
        l.ex = io::read_export(ed);
      else if (l.r.info.value("case", "") == ref.manifest.value("case", ""))
        l.ex = ref;
      else
        throw io::IoError(l.r.dir + ": its export '" + ed + "' is not readable here");
      if (batch_of(l.ex.manifest) != batch_of(ref.manifest))
        throw io::IoError(l.r.dir + ": a result of another batch (requests, seed or shape differ from " + ref.dir +
                          ")");
      l.label = l.r.info.value("kernel_set", "?") + " " + l.r.info.value("mode", "?") + ", " +
                l.ex.manifest.value("version", "?") + " " + l.ex.manifest.value("platform", "?") +
                " dcp=" + std::to_string(l.ex.manifest["geometry"].value("dcp", 0)) +
                " I=" + std::to_string(l.ex.manifest["geometry"].value("interleave", 0));
      res.push_back(std::move(l));
    }
  } catch (const io::IoError& e) {
    std::cerr << "chunkproof compare: " << e.what() << "\n";
    return kExitUsage;
  }
  const auto& shp = ref.manifest["shape"];
  const int N = shp.value("heads", 0), Vd = shp.value("v_dim", 0);
  const auto want = f32(ref.reference, "out");
  const auto want_lse = f32(ref.reference, "lse");

  json jr;
  jr["schema"] = "chunkproof-compare";
  jr["schema_version"] = 1;
  jr["export"] = ref.dir;
  jr["case"] = ref.manifest["case"];
  jr["bound"] = {{"rel", bound.rel}, {"lse_abs", bound.lse_abs}};
  std::ostringstream md, tab;
  md << "# chunkproof compare\n\nReference: `" << ref.dir << "` — exact unchunked outputs of\n`"
     << ref.manifest.value("case", "") << "`\n(" << ref.manifest.value("prefill_tokens", 0) << " prefill tokens x " << N
     << " heads x " << Vd
     << "; errors against the exact reference, relative errors scaled by the row's largest |out|).\n\n"
     << "Bound for a correct plan: max rel <= " << sci(bound.rel) << ", LSE max abs <= " << sci(bound.lse_abs)
     << ", no NaN/Inf, no LSE inf mismatch.\n\n"
     << "![overview](overview.svg)\n\n## Results against the exact reference\n\n"
     << "| # | result | plan | verdict | max rel | mean rel | max abs | bf16 ulp max | fp32 bit-equal | bf16-equal | "
        "LSE max abs | NaN/Inf | kernel alone: max rel / LSE |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  bool finding = false;
  std::vector<std::pair<std::string, double>> bars;
  json jres = json::array();
  for (std::size_t i = 0; i < res.size(); ++i) {
    auto& l = res[i];
    io::OutStats os;
    io::LseStats ls;
    try {
      os = io::compare_out(f32(l.r.tensors, "out"), want, N, Vd);
      ls = io::compare_lse(f32(l.r.tensors, "lse"), want_lse, N);
    } catch (const io::IoError& e) {
      std::cerr << "chunkproof compare: " << l.r.dir << ": " << e.what() << "\n";
      return kExitUsage;
    }
    // The kernel alone: each chunk's partial against the CPU partial of the same rows.
    io::OutStats ko;
    io::LseStats kl;
    bool have_k = false;
    for (std::size_t c = 0; l.r.info.value("mode", "") == "chunked"; ++c) {
      const std::string on = "chunk." + std::to_string(c) + ".out", ln = "chunk." + std::to_string(c) + ".lse";
      if (!l.r.tensors.has(on) || !l.ex.reference.has(on)) break;
      io::accumulate(ko, io::compare_out(f32(l.r.tensors, on), f32(l.ex.reference, on), N, Vd));
      io::accumulate(kl, io::compare_lse(f32(l.r.tensors, ln), f32(l.ex.reference, ln), N));
      have_k = true;
    }
    const std::string expected = l.ex.manifest["verdict"].value("expected", "exact");
    const bool ok = io::within(os, ls, bound);
    std::string verdict;
    if (ok)
      verdict = expected == "exact" ? "within bound" : "within bound (plan expected to corrupt: NOT flagged)";
    else
      verdict = std::string("OUT OF BOUND") + (expected == "corrupt" ? " (broken plan, flagged)" : " (kernel)");
    if (!ok) finding = true;
    const std::string plan = l.ex.manifest.value("version", "?") + " " + l.ex.manifest.value("platform", "?") +
                             " dcp=" + std::to_string(l.ex.manifest["geometry"].value("dcp", 0)) +
                             " I=" + std::to_string(l.ex.manifest["geometry"].value("interleave", 0)) +
                             (l.ex.manifest.value("asserts", true) ? "" : " asserts=off");
    md << "| " << i << " | " << l.r.info.value("kernel_set", "?") << " " << l.r.info.value("mode", "?") << " | " << plan
       << " | " << verdict << " | " << sci(os.max_rel) << " | " << sci(os.mean_rel) << " | " << sci(os.max_abs) << " | "
       << os.max_ulp << " | " << pct(os.bit_equal, os.elements) << " | " << pct(os.bf16_equal, os.elements) << " | "
       << sci(ls.max_abs) << (ls.inf_mismatch ? " (" + std::to_string(ls.inf_mismatch) + " inf mismatch)" : "") << " | "
       << os.nan_got + ls.nan_got << "/" << os.inf_got << " | "
       << (have_k ? sci(ko.max_rel) + " / " + sci(kl.max_abs) : "-") << " |\n";
    bars.emplace_back("#" + std::to_string(i) + " " + l.label, os.max_rel);
    const std::string svg = "hist-" + std::to_string(i) + ".svg";
    write_file(outdir + "/" + svg,
               io::ulp_histogram_svg(os.hist, "#" + std::to_string(i) + " " + l.label + " vs exact"));
    tab << "\n### #" << i << " " << l.label << "\n\n" << verdict;
    if (!ok) tab << ": " << io::why_not_within(os, ls, bound);
    tab << ". Worst element: token " << os.worst.token << " head " << os.worst.head << " dim " << os.worst.dim
        << ". LSE: " << ls.both_neg_inf << " both -inf, " << ls.inf_mismatch << " inf mismatches, " << ls.nan_got
        << " NaN.\n\n![hist](" << svg << ")\n";
    json j{{"result", l.r.dir},
           {"label", l.label},
           {"kernel_set", l.r.info.value("kernel_set", "")},
           {"mode", l.r.info.value("mode", "")},
           {"case", l.ex.manifest.value("case", "")},
           {"expected", expected},
           {"within_bound", ok},
           {"verdict", verdict},
           {"out", out_json(os)},
           {"lse", lse_json(ls)},
           {"environment", l.r.info.value("environment", json::object())},
           {"seconds", l.r.info.value("seconds", 0.0)}};
    if (have_k) j["kernel_alone"] = {{"out", out_json(ko)}, {"lse", lse_json(kl)}};
    jres.push_back(j);
  }
  jr["results"] = jres;

  // Pairs.
  json jp = json::array();
  std::ostringstream pmd;
  pmd << "\n## Pairs\n\n| kind | A | B | fp32 bit-equal | bf16-equal | max rel | max abs | bf16 ulp max | LSE max abs "
         "|\n|---|---|---|---|---|---|---|---|---|\n";
  int npairs = 0;
  for (std::size_t a = 0; a < res.size(); ++a)
    for (std::size_t b = a + 1; b < res.size(); ++b) {
      const auto &A = res[a].r.info, &B = res[b].r.info;
      const bool same_set = A.value("kernel_set", "") == B.value("kernel_set", "");
      const bool same_case = res[a].ex.manifest.value("case", "") == res[b].ex.manifest.value("case", "");
      const bool same_mode = A.value("mode", "") == B.value("mode", "");
      std::string kind;
      // Pairs across plans or sets start from the reference export's plan (one page, not n^2 rows).
      if (res[a].ex.manifest.value("case", "") != ref.manifest.value("case", "")) continue;
      if (same_set && same_case && !same_mode)
        kind = "chunked vs unchunked";
      else if (same_set && same_mode && !same_case)
        kind = "plan A vs plan B";
      else if (!same_set && same_case && same_mode)
        kind = "kernel set vs kernel set";
      else
        continue;
      const auto os = io::compare_out(f32(res[a].r.tensors, "out"), f32(res[b].r.tensors, "out"), N, Vd);
      const auto ls = io::compare_lse(f32(res[a].r.tensors, "lse"), f32(res[b].r.tensors, "lse"), N);
      pmd << "| " << kind << " | #" << a << " " << res[a].label << " | #" << b << " " << res[b].label << " | "
          << pct(os.bit_equal, os.elements) << " | " << pct(os.bf16_equal, os.elements) << " | " << sci(os.max_rel)
          << " | " << sci(os.max_abs) << " | " << os.max_ulp << " | " << sci(ls.max_abs) << " |\n";
      const std::string svg = "pair-" + std::to_string(a) + "-" + std::to_string(b) + ".svg";
      write_file(outdir + "/" + svg,
                 io::ulp_histogram_svg(os.hist, kind + ": #" + std::to_string(a) + " vs #" + std::to_string(b)));
      jp.push_back({{"kind", kind}, {"a", a}, {"b", b}, {"out", out_json(os)}, {"lse", lse_json(ls)}, {"svg", svg}});
      ++npairs;
    }
  jr["pairs"] = jp;
  md << "\nKernel alone: every chunk's (out, lse) from the kernel set against the CPU's fp32 partial over the same\n"
        "workspace rows of the same plan (rows a broken plan fills with stale data differ between the two).\n";
  if (npairs) md << pmd.str();
  md << "\n## Details\n" << tab.str();
  md << "\n## Environment\n\n";
  for (std::size_t i = 0; i < res.size(); ++i)
    md << "- #" << i << ": `" << res[i].r.info.value("environment", json::object()).dump() << "`\n";
  write_file(
      outdir + "/overview.svg",
      io::error_overview_svg(bars, bound.rel, "max row-scaled rel error vs exact reference (log10); dashed: bound"));
  write_file(outdir + "/report.md", md.str());
  write_file(outdir + "/report.json", jr.dump(1) + "\n");
  // stdout: the results table.
  const std::string s = md.str();
  const auto from = s.find("| # |"), to = s.find("\nKernel alone");
  std::cout << s.substr(from, to - from) << (npairs ? pmd.str() : "") << "\nwrote " << outdir
            << "/{report.md, report.json, overview.svg, hist-*.svg" << (npairs ? ", pair-*.svg" : "") << "}\n";
  return finding ? kExitFinding : kExitOk;
}

namespace {
const RegisterCommand reg{"compare", "production-kernel results against an export's exact reference", compare_main};
}

}  // namespace cp::cli

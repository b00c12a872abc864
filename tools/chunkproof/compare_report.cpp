// What `chunkproof compare` writes (report.md, report.json, SVGs) and prints (the results
// table, the pairs, one line per finding), from the stages' Run (compare_run.h).
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "reference/io/html_report.h"
#include "reference/io/pictures.h"
#include "tools/chunkproof/compare_run.h"
#include "tools/chunkproof/json.h"

namespace cp::cli::compare {

namespace {

std::string sci(double x) {
  if (std::isinf(x)) return "inf";
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
std::string num(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}
std::string ints(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

void write_file(const std::string& path, const std::string& s) {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw io::IoError("cannot write " + path);
  f << s;
}

Json out_json(const io::OutStats& s) {
  Json h = Json::object();
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
Json lse_json(const io::LseStats& s) {
  return {{"elements", s.elements}, {"bit_equal", s.bit_equal},       {"max_abs", s.max_abs},
          {"mean_abs", s.mean_abs}, {"both_neg_inf", s.both_neg_inf}, {"inf_mismatch", s.inf_mismatch},
          {"nan", s.nan_got}};
}
// JSON has no infinity: an infinite ratio (non-finite chunked outputs) is null.
Json ratio_json(double r) { return std::isinf(r) ? Json(nullptr) : Json(r); }

Json plan_json(const PlanCheck& p) {
  Json reqs = Json::array();
  for (const auto& d : p.corruption.requests) {
    Json toks = Json::array();
    for (const auto& [lo, hi] : d.tokens) toks.push_back({lo, hi});
    reqs.push_back({{"request", d.request}, {"differing", d.differing}, {"merge_nan", d.merge_nan}, {"tokens", toks}});
  }
  return {{"export", p.ex.dir},
          {"case", p.case_line()},
          {"checked", p.corruption.checked},
          {"corrupts", p.corruption.corrupts()},
          {"elements", p.corruption.elements},
          {"differing", p.corruption.differing},
          {"merge_nan", p.corruption.merge_nan},
          {"requests", reqs}};
}

Json detector_json(const ResultRow& row, double threshold) {
  if (!row.det) return nullptr;
  const auto& d = *row.det;
  Json reqs = Json::array();
  for (const auto& r : d.requests)
    reqs.push_back({{"request", r.request},
                    {"ratio_out", ratio_json(r.ratio_out)},
                    {"ratio_lse", ratio_json(r.ratio_lse)},
                    {"nonfinite", r.nonfinite}});
  return {{"against", *row.partner},
          {"noise_out", d.noise_out},
          {"noise_lse", d.noise_lse},
          {"shift_out", d.shift_out},
          {"shift_lse", d.shift_lse},
          {"ratio_out", ratio_json(d.ratio_out)},
          {"ratio_lse", ratio_json(d.ratio_lse)},
          {"ratio", ratio_json(d.ratio())},
          {"nonfinite", d.nonfinite},
          {"threshold", threshold},
          {"flagged", row.flagged},
          {"requests", reqs}};
}

Json contracts_json(const ResultRow& row) {
  Json a = Json::array();
  for (const auto& c : row.contracts)
    a.push_back({{"id", c.id}, {"name", c.name}, {"verdict", std::string(io::name(c.verdict))}, {"detail", c.detail}});
  return a;
}

Json report_json(const Run& run) {
  Json jr;
  jr["schema"] = "chunkproof-compare";
  jr["schema_version"] = 3;
  Json cat = Json::array();
  for (const auto& k : io::kernel_contracts())
    cat.push_back({{"id", std::string(k.id)},
                   {"name", std::string(k.name)},
                   {"refs", std::string(k.refs)},
                   {"statement", std::string(k.statement)}});
  jr["kernel_contracts"] = cat;
  jr["export"] = run.ref().dir;
  jr["case"] = run.plans.front().case_line();
  jr["bound"] = {{"rel", run.opt.bound.rel}, {"lse_abs", run.opt.bound.lse_abs}};
  jr["detector_threshold"] = run.opt.detector;
  jr["finding"] = run.finding();
  Json plans = Json::array();
  for (const auto& p : run.plans) plans.push_back(plan_json(p));
  jr["plans"] = plans;
  Json jres = Json::array();
  for (std::size_t i = 0; i < run.res.size(); ++i) {
    const auto& l = run.res[i];
    const auto& row = run.rows[i];
    Json j{{"result", l.r.dir},
           {"label", l.label},
           {"kernel_set", l.set()},
           {"mode", l.mode()},
           {"case", run.plans[l.plan].case_line()},
           {"expected",
            run.plans[l.plan].ex.manifest.value("verdict", nlohmann::json::object()).value("expected", "exact")},
           {"plan_corrupts", row.plan_corrupts},
           {"within_bound", row.within},
           {"detector", detector_json(row, run.opt.detector)},
           {"verdict", row.verdict},
           {"merge_kernel", l.r.info.value("merge_kernel", Json::object()).value("id", "")},
           {"lse_convention", l.r.info.value("lse_convention", Json::object())},
           {"boundary", l.r.info.value("boundary", Json::object())},
           {"contracts", contracts_json(row)},
           {"out", out_json(row.out)},
           {"lse", lse_json(row.lse)},
           {"environment", l.r.info.value("environment", Json::object())},
           {"seconds", l.r.info.value("seconds", 0.0)}};
    if (row.kernel_out) j["kernel_alone"] = {{"out", out_json(*row.kernel_out)}, {"lse", lse_json(row.kernel_lse)}};
    jres.push_back(j);
  }
  jr["results"] = jres;
  Json jp = Json::array();
  for (const auto& p : run.pairs)
    jp.push_back(
        {{"kind", p.kind}, {"a", p.a}, {"b", p.b}, {"out", out_json(p.out)}, {"lse", lse_json(p.lse)}, {"svg", p.svg}});
  jr["pairs"] = jp;
  return jr;
}

std::string detector_cell(const ResultRow& row) {
  if (!row.det) return "-";
  return sci(row.det->ratio_out) + " / " + sci(row.det->ratio_lse) + (row.flagged ? " **flagged**" : "");
}

std::string results_table(const Run& run) {
  std::ostringstream md;
  md << "| # | result | plan | verdict | max rel | mean rel | max abs | bf16 ulp max | fp32 bit-equal | bf16-equal | "
        "LSE max abs | NaN/Inf | kernel alone: max rel / LSE | detector: out / LSE ratio |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < run.res.size(); ++i) {
    const auto& l = run.res[i];
    const auto& r = run.rows[i];
    const auto& os = r.out;
    const auto& ls = r.lse;
    md << "| " << i << " | " << l.set() << " " << l.mode() << " | " << l.where << " | " << r.verdict << " | "
       << sci(os.max_rel) << " | " << sci(os.mean_rel) << " | " << sci(os.max_abs) << " | " << os.max_ulp << " | "
       << pct(os.bit_equal, os.elements) << " | " << pct(os.bf16_equal, os.elements) << " | " << sci(ls.max_abs)
       << (ls.inf_mismatch ? " (" + std::to_string(ls.inf_mismatch) + " inf mismatch)" : "") << " | "
       << os.nan_got + ls.nan_got << "/" << os.inf_got << " | "
       << (r.kernel_out ? sci(r.kernel_out->max_rel) + " / " + sci(r.kernel_lse.max_abs) : "-") << " | "
       << detector_cell(r) << " |\n";
  }
  return md.str();
}

std::string pairs_table(const Run& run) {
  if (run.pairs.empty()) return "";
  std::ostringstream md;
  md << "\n## Pairs\n\n| kind | A | B | fp32 bit-equal | bf16-equal | max rel | max abs | bf16 ulp max | LSE max abs "
        "|\n|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& p : run.pairs)
    md << "| " << p.kind << " | #" << p.a << " " << run.res[p.a].label << " | #" << p.b << " " << run.res[p.b].label
       << " | " << pct(p.out.bit_equal, p.out.elements) << " | " << pct(p.out.bf16_equal, p.out.elements) << " | "
       << sci(p.out.max_rel) << " | " << sci(p.out.max_abs) << " | " << p.out.max_ulp << " | " << sci(p.lse.max_abs)
       << " |\n";
  return md.str();
}

std::string plans_table(const Run& run) {
  std::ostringstream md;
  md << "| export | case | plan verdict |\n|---|---|---|\n";
  for (const auto& p : run.plans)
    md << "| `" << p.ex.dir << "` | `" << p.case_line() << "` | "
       << (p.corruption.corrupts() ? "**corrupts outputs**: " + p.corruption.summary()
           : p.corruption.checked  ? "exact (chunked == unchunked reference, bit for bit)"
                                   : "not checked (no reference)")
       << " |\n";
  return md.str();
}

std::string detector_table(const Run& run) {
  std::ostringstream md;
  md << "| # | chunked result | against | noise out / LSE | shift out / LSE | ratio out / LSE | requests past "
     << run.opt.detector << " |\n|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < run.res.size(); ++i) {
    const auto& r = run.rows[i];
    if (run.res[i].mode() != "chunked") continue;
    md << "| " << i << " | " << run.res[i].label << " | ";
    if (!r.det) {
      md << "no unchunked run of " << run.res[i].set() << " on this device | - | - | - | - |\n";
      continue;
    }
    const auto& d = *r.det;
    md << "#" << *r.partner << " | " << sci(d.noise_out) << " / " << sci(d.noise_lse) << " | " << sci(d.shift_out)
       << " / " << sci(d.shift_lse) << " | " << sci(d.ratio_out) << " / " << sci(d.ratio_lse)
       << (d.nonfinite ? " (" + std::to_string(d.nonfinite) + " non-finite)" : "") << " | "
       << (r.flagged ? ints(d.flagged_requests(run.opt.detector)) : "none") << " |\n";
  }
  return md.str();
}

// One line per finding, worst first: corrupting plans, flagged chunking, kernels past the bound.
std::vector<std::string> findings(const Run& run) {
  std::vector<std::string> f;
  for (const auto& p : run.plans)
    if (p.corruption.corrupts())
      f.push_back("this plan corrupts outputs: " + p.corruption.summary() + " -- `" + p.case_line() + "` (" + p.ex.dir +
                  ")");
  for (std::size_t i = 0; i < run.res.size(); ++i) {
    const auto& r = run.rows[i];
    if (r.flagged)
      f.push_back("chunk corruption: #" + std::to_string(i) + " " + run.res[i].label + " moves request(s) " +
                  ints(r.det->flagged_requests(run.opt.detector)) + " by " + sci(r.det->ratio_out) + "x (out) / " +
                  sci(r.det->ratio_lse) + "x (LSE) its own noise (threshold " + num(run.opt.detector) + ", against #" +
                  std::to_string(*r.partner) + ")");
    if (!r.within)
      f.push_back("#" + std::to_string(i) + " " + run.res[i].label +
                  " out of bound: " + io::why_not_within(r.out, r.lse, run.opt.bound));
    for (const auto& c : r.contracts)
      if (c.verdict == io::ContractVerdict::violated)
        f.push_back("#" + std::to_string(i) + " " + run.res[i].label + " violates " + c.id + " (" + c.name +
                    "): " + c.detail);
  }
  return f;
}

std::string details(const Run& run) {
  std::ostringstream tab;
  for (std::size_t i = 0; i < run.res.size(); ++i) {
    const auto& l = run.res[i];
    const auto& r = run.rows[i];
    tab << "\n### #" << i << " " << l.label << "\n\n" << r.verdict;
    if (!r.within) tab << ": " << io::why_not_within(r.out, r.lse, run.opt.bound);
    tab << ". Worst element: token " << r.out.worst.token << " head " << r.out.worst.head << " dim " << r.out.worst.dim
        << ". LSE: " << r.lse.both_neg_inf << " both -inf, " << r.lse.inf_mismatch << " inf mismatches, "
        << r.lse.nan_got << " NaN.\n\n![hist](hist-" << i << ".svg)\n";
  }
  return tab.str();
}

// One line per contract per result.
std::string contracts_lines(const Run& run, const std::string& bullet) {
  std::ostringstream md;
  for (std::size_t i = 0; i < run.res.size(); ++i) {
    md << bullet << "#" << i << " " << run.res[i].label << "\n";
    for (const auto& c : run.rows[i].contracts)
      md << bullet << "  " << c.id << " " << c.name << ": "
         << (c.verdict == io::ContractVerdict::violated ? "**VIOLATED**" : std::string(io::name(c.verdict))) << " -- "
         << c.detail << "\n";
  }
  return md.str();
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string report_md(const Run& run) {
  const auto& m = run.ref().manifest;
  std::ostringstream md;
  md << "# chunkproof compare\n\nReference: `" << run.ref().dir << "` — exact unchunked outputs of\n`"
     << run.plans.front().case_line() << "`\n(" << m.value("prefill_tokens", 0) << " prefill tokens x " << run.heads
     << " heads x " << run.v_dim
     << "; errors against the exact reference, relative errors scaled by the row's largest |out|).\n\n"
     << "Bound for a correct plan: max rel <= " << sci(run.opt.bound.rel)
     << ", LSE max abs <= " << sci(run.opt.bound.lse_abs)
     << ", no NaN/Inf, no LSE inf mismatch. Detector threshold: a chunked run "
     << "moved from its own set's unchunked run by more than " << run.opt.detector
     << " times that set's own noise.\n\n![overview](overview.svg)\n\n";
  const auto f = findings(run);
  if (!f.empty()) {
    md << "## Findings\n\n";
    for (const auto& x : f) md << "- " << x << "\n";
    md << "\n";
  }
  md << "## Plans\n\n" << plans_table(run) << "\n## Results against the exact reference\n\n" << results_table(run);
  md << "\nKernel alone: every chunk's (out, lse) from the kernel set against the CPU's fp32 partial over the same\n"
        "workspace rows of the same plan (rows a broken plan fills with stale data differ between the two).\n"
     << "\n## Chunk-corruption detector\n\nEach chunked result against the unchunked result of the same kernel set; "
        "noise: that unchunked result against the exact reference (out: max row-scaled error; LSE: max abs); ratio: "
        "shift / noise.\n\n"
     << detector_table(run) << "\n## Kernel contracts\n\nPer result, every contract of the catalogue "
     << "(reference/io/kernel_contracts.cpp, docs/kernels.md): holds, violated, or not exercised by this export "
     << "(and why).\n\n"
     << contracts_lines(run, "- ") << pairs_table(run) << "\n## Details\n"
     << details(run) << "\n## Environment\n\n";
  for (std::size_t i = 0; i < run.res.size(); ++i)
    md << "- #" << i << ": `" << run.res[i].r.info.value("environment", Json::object()).dump() << "`\n";
  return md.str();
}

}  // namespace

void write_report(const Run& run) {
  const std::string& dir = run.opt.outdir;
  std::vector<io::OverviewBar> bars;
  for (std::size_t i = 0; i < run.res.size(); ++i) {
    const auto& l = run.res[i];
    const auto& r = run.rows[i];
    bars.push_back({"#" + std::to_string(i) + " " + l.label, r.out.max_rel, r.plan_corrupts || r.flagged});
    write_file(dir + "/hist-" + std::to_string(i) + ".svg",
               io::ulp_histogram_svg(r.out.hist, "#" + std::to_string(i) + " " + l.label + " vs exact"));
  }
  for (const auto& p : run.pairs)
    write_file(dir + "/" + p.svg,
               io::ulp_histogram_svg(p.out.hist, p.kind + ": #" + std::to_string(p.a) + " vs #" + std::to_string(p.b)));
  write_file(dir + "/overview.svg",
             io::error_overview_svg(bars, run.opt.bound.rel,
                                    "max row-scaled rel error vs exact reference (log10); dashed: bound"));
  const std::string md = report_md(run);
  write_file(dir + "/report.md", md);
  write_file(dir + "/report.json", report_json(run).dump(1) + "\n");
  // report.md as one self-contained page, the histograms and the overview inline.
  try {
    io::write_html_report(dir + "/report.html", "chunkproof compare", md, dir);
  } catch (const std::runtime_error& e) {
    throw io::IoError(e.what());
  }
}

void print_summary(const Run& run) {
  std::cout << results_table(run) << pairs_table(run) << "\nkernel contracts:\n" << contracts_lines(run, "  ");
  const auto f = findings(run);
  if (!f.empty()) std::cout << "\n";
  for (const auto& x : f) std::cout << "finding: " << x << "\n";
  for (std::size_t i = 0; i < run.res.size(); ++i)
    if (run.res[i].mode() == "chunked" && !run.rows[i].det)
      std::cout << "note: #" << i << " " << run.res[i].label << ": no unchunked run of " << run.res[i].set()
                << " on this device, so the chunk-corruption detector did not run (runner: --mode chunked,unchunked)\n";
  std::cout << "\nwrote " << run.opt.outdir << "/{report.md, report.html, report.json, overview.svg, hist-*.svg"
            << (run.pairs.empty() ? "" : ", pair-*.svg") << "}\n";
}

void print_csv(const Run& run) {
  std::cout << "result,label,kernel_set,mode,merge_kernel,check,name,verdict,detail\n";
  for (std::size_t i = 0; i < run.res.size(); ++i) {
    const auto& l = run.res[i];
    const auto& r = run.rows[i];
    const std::string head = std::to_string(i) + "," + csv_cell(l.label) + "," + csv_cell(l.set()) + "," +
                             csv_cell(l.mode()) + "," +
                             csv_cell(l.r.info.value("merge_kernel", Json::object()).value("id", "")) + ",";
    std::cout << head << "bound,kernel bound," << (r.within ? "holds" : "violated") << ","
              << csv_cell(r.within ? "max rel " + sci(r.out.max_rel) + ", LSE max abs " + sci(r.lse.max_abs)
                                   : io::why_not_within(r.out, r.lse, run.opt.bound))
              << "\n";
    for (const auto& c : r.contracts)
      std::cout << head << c.id << "," << csv_cell(c.name) << "," << io::name(c.verdict) << "," << csv_cell(c.detail)
                << "\n";
  }
}

void print_json_summary(const Run& run, int exit_code) {
  print_json(std::cout, Json{{"schema", "chunkproof.compare/2"},
                             {"exit_code", exit_code},
                             {"finding", run.finding()},
                             {"findings", findings(run)},
                             {"report_dir", run.opt.outdir},
                             {"report", report_json(run)}});
}

}  // namespace cp::cli::compare

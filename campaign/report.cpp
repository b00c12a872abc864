// The write-report stage (campaign_run.h): this run's totals into campaign.state, then
// report.md (the morning report) and report.json (schema chunkproof.fuzz-report/1,
// docs/json.md), each written atomically, and the exit code.
#include <algorithm>
#include <iomanip>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "campaign/campaign_run.h"
#include "reference/io/html_report.h"

namespace cp::fuzz {

std::string root_cause(const CampaignFinding& f) {
  const std::string& s = f.signature;
  const auto sp = s.find(' ');
  const std::string who = s.substr(0, sp);
  if (const auto a = s.find(" assert["); a != std::string::npos) {
    const auto colon = s.find("]: ", a);
    if (colon != std::string::npos) return who + " assert: " + s.substr(colon + 3);
  }
  if (s.find(" violation: ") != std::string::npos && !f.invariant.empty() && f.invariant.rfind("I-", 0) == 0)
    return who + " violation: " + f.invariant;
  return s;
}

std::vector<FindingGroup> group_findings(const std::vector<CampaignFinding>& findings) {
  auto requests = [](const CampaignFinding& f) {  // the representative: the fewest requests
    try {
      return parse_case(f.case_line).ctx.size();
    } catch (const std::exception&) {
      return std::numeric_limits<std::size_t>::max();  // no case line (or not ours to read)
    }
  };
  std::vector<FindingGroup> groups;
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const std::string key = root_cause(findings[i]);
    auto [it, fresh] = at.emplace(key, groups.size());
    if (fresh) groups.push_back({key, {}});
    groups[it->second].members.push_back(i);
  }
  for (auto& g : groups)
    std::stable_sort(g.members.begin(), g.members.end(), [&](std::size_t a, std::size_t b) {
      const auto ra = requests(findings[a]), rb = requests(findings[b]);
      if (ra != rb) return ra < rb;
      return findings[a].case_line.size() < findings[b].case_line.size();
    });
  return groups;
}

namespace {

// The totals with this run in them; the targets' execution log is counted in the state now.
void finish_totals(CampaignRun& run) {
  CampaignResult& res = run.res;
  checkpoint(run, res.run, res.run.seconds);
  std::error_code ec;
  fs::remove(run.exec_log, ec);
  run.exec_log_total = 0;
  run.totals.execs_log_counted = 0;
  save_totals(run.state_file, run.totals);
  const CampaignTotals& t = run.totals;
  res.runs = t.runs;
  res.cumulative = {t.executions,   t.seconds,  t.seconds > 0 ? static_cast<double>(t.executions) / t.seconds : 0,
                    t.coverage,     t.features, res.run.corpus,
                    res.run.crashes};
}

void write_md_header(const CampaignRun& run, std::ostream& md) {
  const CampaignOptions& opt = run.opt;
  const CampaignResult& res = run.res;
  const CampaignTotals& t = run.totals;
  md << "# chunkproof fuzz report\n\n"
     << "- command: `" << opt.command_line << "`\n"
     << "- finished: " << now_iso() << (res.interrupted ? " (interrupted: the report covers what ran)" : "") << "\n"
     << "- target: `" << opt.target << "_fuzz`, versions: " << run.vers << ", platforms: " << opt.platform
     << ", expected correct (a violation is a crash): " << (opt.expect_correct.empty() ? "none" : opt.expect_correct)
     << "\n- engine: " << opt.engine << " (" << res.fuzzer << "), jobs " << opt.jobs << ", budget " << opt.max_time
     << " s\n- corpus: `" << fs::absolute(run.corpus).string() << "`, findings: `"
     << fs::absolute(run.findings).string() << "`\n\n## Totals\n\n| | this run | all " << t.runs
     << " run(s) |\n|---|---|---|\n"
     << std::fixed << std::setprecision(0) << "| executions | " << res.run.executions << " | " << t.executions
     << " |\n| fuzzing time (s) | " << res.run.seconds << " | " << t.seconds << " |\n| exec/s | " << res.run.exec_per_s
     << " | " << res.cumulative.exec_per_s << " |\n| coverage (edges / features) | " << res.run.coverage << " / "
     << res.run.features << " | " << t.coverage << " / " << t.features << " |\n| corpus files | " << res.run.corpus
     << " | |\n| crash artifacts | " << count_files(run.crashes) << " | |\n\n";
}

void write_md_finding(const CampaignFinding& f, std::ostream& md) {
  md << "- invariant: " << f.invariant << ", kind: " << f.kind
     << (f.kind == "crash"  ? " (an expected-correct version or a sanitizer: check it against the spec first)"
         : f.kind == "slow" ? " (performance, not correctness: the input is slow to simulate)"
                            : "")
     << "\n";
  if (!f.detail.empty()) md << "- detail (as found): " << f.detail << "\n";
  if (!f.case_line.empty())
    md << "- case: `" << f.case_line << "`" << (f.reproduced ? " (replayed: same signature)" : "") << "\n";
  if (!f.original_line.empty() && f.original_line != f.case_line)
    md << "- as found (before minimization): `" << f.original_line << "`\n";
  if (!f.replay.empty()) md << "- replay: `" << f.replay << "`\n";
  md << "- record: `" << f.file << "` (regression-file format: copy it to corpus/regressions/)\n";
}

// One section per root cause (group_findings): its representative in full, then the other raw
// signatures of the same cause, one line each.
void write_md_findings(const CampaignRun& run, std::ostream& md) {
  const CampaignResult& res = run.res;
  int fresh = 0;
  for (const auto& f : res.findings) fresh += f.is_new;
  const auto groups = group_findings(res.findings);
  md << "## Findings: " << groups.size() << " root cause(s), " << res.findings.size() << " raw signature(s) (" << fresh
     << " new in this run)\n\n";
  if (res.findings.empty())
    md << "No findings" << (run.opt.engine == "libfuzzer" ? " in the executions above" : "")
       << ". Fuzzing shows no counterexample was found within the budget; it is not a proof (`chunkproof prove`).\n";
  int i = 0;
  for (const auto& g : groups) {
    const CampaignFinding& rep = res.findings[g.members.front()];
    bool any_new = false;
    for (std::size_t k : g.members) any_new = any_new || res.findings[k].is_new;
    md << "### " << ++i << ". `" << g.root_cause << "` (" << g.members.size() << " raw signature"
       << (g.members.size() == 1 ? "" : "s") << ")" << (any_new ? " (new)" : "") << "\n\n"
       << "- signature: `" << rep.signature << "`\n";
    write_md_finding(rep, md);
    for (std::size_t k = 1; k < g.members.size(); ++k) {
      const CampaignFinding& f = res.findings[g.members[k]];
      md << "- same cause: `" << f.signature << "`" << (f.case_line.empty() ? "" : ": `" + f.case_line + "`")
         << " (record `" << f.file << "`)\n";
    }
    md << "\n";
  }
  if (res.pending_artifacts)
    md << "**" << res.pending_artifacts << " crash artifact(s) not yet examined** (interrupted): the next run of the "
       << "same command replays and records them.\n\n";
}

void write_md_maps(const CampaignRun& run, std::ostream& md) {
  md << "## Violation maps\n\n";
  if (run.maps.empty())
    md << "None (maps are drawn for the planner target).\n\n";
  else
    md << "Each map evaluates one version and platform on a grid of two parameters, every cell coloured by its "
          "outcome (ok, the assert that fires, the invariants violated); hover a cell in a browser for its case line. "
          "`chunkproof map --version V --platform P --x KEY --y KEY [--fix KEY=VAL]` draws others.\n\n";
  std::error_code ec;
  for (const auto& [label, svg] : run.maps) {
    const fs::path rel = fs::relative(svg, run.findings, ec);
    fs::path png = svg;
    png.replace_extension(".png");
    md << "- [" << label << "](" << rel.string() << ")";
    if (fs::exists(png, ec)) md << " ([PNG](" << fs::relative(png, run.findings, ec).string() << "))";
    md << "\n";
  }
  if (!run.png_note.empty()) md << "\n(" << run.png_note << ")\n";
}

void write_report_md(CampaignRun& run) {
  std::ostringstream md;
  write_md_header(run, md);
  write_md_findings(run, md);
  write_md_maps(run, md);
  md << "\n## Resume\n\nRun the same command again: the corpus and the findings above are kept, and known findings are "
        "not minimized twice.\n";
  run.res.report_md = (run.findings / "report.md").string();
  write_file_atomic(run.res.report_md, md.str());
  // The same report as one self-contained page, the maps inline (reference/io/html_report.h).
  try {
    io::write_html_report(run.findings / "report.html", "chunkproof fuzz report", md.str(), run.findings);
  } catch (const std::exception& e) {
    run.log << "chunkproof fuzz: " << e.what() << " (report.md and report.json are written)\n";
  }
}

void write_report_json(CampaignRun& run) {
  const CampaignOptions& opt = run.opt;
  CampaignResult& res = run.res;
  using Json = nlohmann::ordered_json;
  auto stats = [](const CampaignStats& s) {
    return Json{{"executions", s.executions}, {"seconds", s.seconds},   {"exec_per_s", s.exec_per_s},
                {"coverage", s.coverage},     {"features", s.features}, {"corpus", s.corpus}};
  };
  Json j{{"schema", "chunkproof.fuzz-report/1"},
         {"command", opt.command_line},
         {"finished", now_iso()},
         {"interrupted", res.interrupted},
         {"target", opt.target},
         {"versions", run.vers},
         {"platforms", opt.platform},
         {"expect_correct", opt.expect_correct},
         {"engine", opt.engine},
         {"fuzzer", res.fuzzer},
         {"jobs", opt.jobs},
         {"max_time", opt.max_time},
         {"corpus_dir", fs::absolute(run.corpus).string()},
         {"findings_dir", fs::absolute(run.findings).string()},
         {"runs", run.totals.runs},
         {"this_run", stats(res.run)},
         {"cumulative", stats(res.cumulative)},
         {"maps", res.maps},
         {"pending_artifacts", static_cast<std::int64_t>(res.pending_artifacts)},
         {"findings", Json::array()}};
  for (const auto& f : res.findings)
    j["findings"].push_back(Json{{"signature", f.signature},
                                 {"invariant", f.invariant},
                                 {"kind", f.kind},
                                 {"case", f.case_line},
                                 {"original", f.original_line},
                                 {"detail", f.detail},
                                 {"replay", f.replay},
                                 {"reproduced", f.reproduced},
                                 {"new", f.is_new},
                                 {"record", f.file}});
  j["root_causes"] = Json::array();
  for (const auto& g : group_findings(res.findings)) {
    Json raw = Json::array();
    for (std::size_t k : g.members) raw.push_back(res.findings[k].signature);
    j["root_causes"].push_back(Json{{"root_cause", g.root_cause},
                                    {"raw_signatures", g.members.size()},
                                    {"representative", res.findings[g.members.front()].signature},
                                    {"signatures", raw}});
  }
  std::ostringstream js;
  js << j.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
  res.report_json = (run.findings / "report.json").string();
  write_file_atomic(res.report_json, js.str());
}

}  // namespace

void write_reports(CampaignRun& run) {
  finish_totals(run);
  write_report_md(run);
  write_report_json(run);
  CampaignResult& res = run.res;
  // A finding is a verdict whatever stopped the run; without one, an interrupted run (or one that
  // executed nothing) has not checked its budget's worth: inconclusive, as every command's Ctrl-C.
  if (!res.findings.empty())
    res.exit_code = 1;
  else if (res.interrupted || res.run.executions == 0)
    res.exit_code = 3;
}

}  // namespace cp::fuzz

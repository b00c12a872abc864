// The collect and draw-maps stages (campaign_run.h): the targets' records (versions under
// investigation) and libFuzzer's crash artifacts become one minimized record per signature
// in <findings>/minimized; the violation maps are drawn into <findings>/maps; and the records
// the folder holds are read back for the report.
#include <algorithm>
#include <fstream>
#include <sstream>

#include "campaign/campaign_run.h"
#include "campaign/heatmap.h"
#include "campaign/minimize.h"
#include "fuzz/common/judge.h"
#include "invariants/catalogue.h"
#include "invariants/expect.h"
#include "reference/caseio/regression.h"

namespace cp::fuzz {
namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

}  // namespace

std::string replay_command(const CampaignRun& run, const std::string& case_line) {
  std::string cmd = "chunkproof plan";
  if (!run.opt.planner_cmd.empty()) {
    cmd += " --planner-cmd " + shell_quote(run.opt.planner_cmd);
    if (run.opt.planner_diff) {
      // The case line names the version the plan is diffed against.
      std::string v = "v6-current";
      try {
        v = std::string(name(parse_case(case_line).version));
      } catch (const std::exception&) {
      }
      cmd += " --version " + v;
    }
  }
  return cmd + " --case " + shell_quote(case_line);
}

namespace {

// The record of a finding file (reference/caseio/regression.h); unreadable text gives an empty one.
CaseRecord parse_record(const std::string& text, const std::string& name) {
  try {
    return read_case_record_text(text, name);
  } catch (const std::exception&) {
    return {};
  }
}

std::string expect_line(const Case& c) {
  try {
    return print_expect_line(expectation_of(evaluate(c)));
  } catch (const std::exception&) {
    return {};
  }
}

fs::path file_for(const CampaignRun& run, const std::string& sig) { return run.minimized / (slug(sig) + ".case"); }

// One finding in the regression-file format; a signature already recorded is kept as it is.
void write_record(const CampaignRun& run, const std::string& sig, const std::string& kind, const std::string& invariant,
                  const std::string& detail, const std::string& original, const Case* c, const std::string& extra) {
  const fs::path f = file_for(run, sig);
  std::error_code ec;
  if (fs::exists(f, ec)) return;
  std::string text = "# signature: " + sig + "\n# invariant: " + invariant + "\n# kind: " + kind +
                     "\n# detail: " + detail + "\n# found: " + now_iso() + " by chunkproof fuzz (" + run.opt.target +
                     ", " + run.vers + "/" + run.opt.platform + ")\n";
  if (!original.empty()) text += "# original: " + original + "\n";
  text += extra;
  if (c) {
    const std::string e = expect_line(*c);
    if (!e.empty()) text += e + "\n";
    text += print_case(*c) + "\n";
  }
  write_file_atomic(f.string(), text);
}

void minimize_and_record(const CampaignRun& run, const Case& c0, const Judgement& j, const std::string& kind,
                         const std::string& extra) {
  std::error_code ec;
  if (fs::exists(file_for(run, j.signature), ec)) return;
  MinimizeResult m = minimize_case(
      c0, j.signature, [&run](const Case& c) { return run.judge_case(c, nullptr); }, run.minimize_budget,
      stop_requested, run.sel.pins);
  // Verify through the printed line, as a user would replay it.
  Case replay = c0;
  try {
    replay = parse_case(print_case(m.c));
  } catch (const std::exception&) {
  }
  const Judgement back = run.judge_case(replay, nullptr);
  const Case& keep = back.signature == j.signature ? replay : c0;
  write_record(run, j.signature, kind, j.invariant, j.detail, print_case(c0), &keep,
               extra + (run.minimize_budget > 0 ? "# minimize: " + std::to_string(m.evaluations) + " evaluations\n"
                                                : std::string("# minimize: skipped (interrupted)\n")));
}

// The targets' records (<findings>/raw), judged again in process.
void collect_raw(CampaignRun& run) {
  std::error_code ec;
  std::vector<fs::path> raws;
  for (const auto& e : fs::directory_iterator(run.raw, ec))
    if (e.path().extension() == ".case") raws.push_back(e.path());
  std::sort(raws.begin(), raws.end());
  for (const auto& f : raws) {
    const CaseRecord r = parse_record(read_text(f), f.string());
    try {
      const Case c = parse_case(r.line);
      const Judgement j = run.judge_case(c, nullptr);
      if (j.kind == Judgement::finding || j.kind == Judgement::crash)
        minimize_and_record(run, c, j, j.kind == Judgement::crash ? "crash" : "finding", "");
    } catch (const std::exception& e) {
      run.log << "fuzz: skipping unreadable finding " << f << ": " << e.what() << "\n";
    }
  }
}

// What replaying an artifact in the fuzzer printed: the case line, the target's signature
// (CHUNKPROOF-CRASH) and the first line that says why it failed.
struct ArtifactReplay {
  int rc = 0;
  std::string case_line, sig, why;
};

ArtifactReplay replay_artifact(const CampaignRun& run, const fs::path& a) {
  proc::Env env = run.env;
  env.push_back({"CHUNKPROOF_PRINT_CASE", "1"});
  std::string out;
  ArtifactReplay r;
  r.rc = run_capture({run.fuzzer, "-runs=1", a.string()}, env, 120, out);
  std::istringstream in(out);
  for (std::string s; std::getline(in, s);) {
    if (s.rfind("case: ", 0) == 0) r.case_line = s.substr(6);
    if (r.sig.empty() && s.rfind("CHUNKPROOF-CRASH ", 0) == 0) r.sig = s.substr(17, s.find(" | ") - 17);
    if (r.why.empty() &&
        (s.find("ERROR: AddressSanitizer") != std::string::npos || s.find("runtime error:") != std::string::npos ||
         s.find("ERROR: libFuzzer") != std::string::npos || s.find("_fuzz: ") != std::string::npos))
      r.why = s;
  }
  return r;
}

// One crash artifact of libFuzzer's: a planner case the runner judges in process is minimized
// as a case; anything else is recorded as the fuzzer reports it (byte-minimized by libFuzzer).
void examine_artifact(const CampaignRun& run, const fs::path& a) {
  ArtifactReplay r = replay_artifact(run, a);
  const std::string extra = "# artifact: " + fs::absolute(a).string() + "\n";
  if (!r.sig.empty() && !r.case_line.empty() && run.opt.target == "planner") {
    try {
      const Case c = parse_case(r.case_line);
      Judgement j = run.judge_case(c, nullptr);
      if (j.kind == Judgement::finding || j.kind == Judgement::crash) {
        minimize_and_record(run, c, j, "crash", extra);
        return;
      }
    } catch (const std::exception&) {
    }
  }
  const std::string an = a.filename().string();
  const bool slow = an.rfind("slow-unit-", 0) == 0 || an.rfind("timeout-", 0) == 0;
  std::string kind = "crash";
  if (slow) {
    // Not a correctness finding: an input over libFuzzer's time limit (-timeout=25 s, or the
    // slow-unit report). One signature per version/platform; the case line says which.
    kind = an.rfind("timeout-", 0) == 0 ? "timeout" : "slow";
    std::string who;
    try {
      const Case c = parse_case(r.case_line);
      who = " " + std::string(name(c.version)) + "/" + std::string(name(c.platform));
    } catch (const std::exception&) {
    }
    r.sig = (kind == "timeout" ? "timeout:" : "slow input:") + who;
    r.why = "over libFuzzer's time limit (" + an + "); replays in the fuzzer without a crash";
  } else if (r.rc == 0) {
    r.why = "did not reproduce (" + an + ")";
  }
  if (r.sig.empty()) r.sig = "crash: " + (r.why.empty() ? an : r.why.substr(0, 160));
  // Byte-level minimization by libFuzzer for crashes the runner cannot judge in process.
  if (r.rc != 0 && !slow && run.minimize_budget > 0) {
    const fs::path minp = run.crashes / (".minimized-" + a.filename().string());
    std::string mout;
    run_capture(
        {run.fuzzer, "-minimize_crash=1", "-max_total_time=" + std::to_string(static_cast<int>(run.minimize_budget)),
         "-exact_artifact_path=" + minp.string(), a.string()},
        run.env, run.minimize_budget + 60, mout);
  }
  write_record(run, r.sig, kind, kind, r.why, "", nullptr,
               extra + (r.case_line.empty() ? "" : "# case: " + r.case_line + "\n"));
}

// libFuzzer's artifacts not examined by an earlier run (crashes/.processed lists those).
void collect_artifacts(CampaignRun& run) {
  std::set<std::string> processed;
  {
    std::ifstream in(run.crashes / ".processed");
    for (std::string s; std::getline(in, s);) processed.insert(s);
  }
  std::error_code ec;
  std::vector<fs::path> arts;
  for (const auto& e : fs::directory_iterator(run.crashes, ec)) {
    const std::string n = e.path().filename().string();
    if (n[0] != '.' && !processed.count(n) && n.find(".tmp") == std::string::npos &&
        n.find("minimized") == std::string::npos)
      arts.push_back(e.path());
  }
  std::sort(arts.begin(), arts.end());
  for (const auto& a : arts) {
    if (run.res.interrupted || stop_requested()) {  // left for the next run of the same command
      ++run.res.pending_artifacts;
      continue;
    }
    examine_artifact(run, a);
    processed.insert(a.filename().string());
  }
  std::string list;
  for (const auto& p : processed) list += p + "\n";
  write_file_atomic((run.crashes / ".processed").string(), list);
}

}  // namespace

// Findings: the target's records (versions under investigation) and libFuzzer's artifacts.
// After Ctrl-C the report must come within seconds: findings are recorded as found, without
// minimization (the record says so).
void collect_findings(CampaignRun& run) {
  run.minimize_budget = run.res.interrupted || stop_requested() ? 0.0 : run.opt.minimize_seconds;
  collect_raw(run);
  if (!run.fuzzer.empty()) collect_artifacts(run);
}

// Violation maps: one version and platform over two parameters each (campaign/heatmap.h),
// drawn after every completed run; an interrupted run links the ones already drawn.
void draw_maps(CampaignRun& run) {
  if (run.opt.target != "planner" || run.planner) return;  // the maps are the model's, not an external planner's
  std::error_code ec;
  const fs::path dir = run.findings / "maps";
  fs::create_directories(dir, ec);
  for (Version v : run.sel.versions)
    for (Platform p : run.sel.platforms)
      for (const MapSpec& spec : default_maps(v, p)) {
        const fs::path svg =
            dir / (std::string(name(v)) + "-" + std::string(name(p)) + "-" + spec.y + "-x-" + spec.x + ".svg");
        const std::string label = std::string(name(v)) + "/" + std::string(name(p)) + ": " + spec.y + " x " + spec.x;
        if (!run.res.interrupted && !stop_requested()) {
          try {
            std::string note;
            if (write_map_files(compute_map(spec), svg.string(), note).empty()) run.png_note = note;
          } catch (const std::exception& e) {
            run.log << "fuzz: map " << label << ": " << e.what() << "\n";
          }
        }
        if (fs::exists(svg, ec)) {
          run.maps.emplace_back(label, svg);
          run.res.maps.push_back(svg.string());
        }
      }
}

// The morning report: every finding this campaign directory holds.
void list_findings(CampaignRun& run) {
  std::error_code ec;
  std::vector<fs::path> recs;
  for (const auto& e : fs::directory_iterator(run.minimized, ec))
    if (e.path().extension() == ".case") recs.push_back(e.path());
  std::sort(recs.begin(), recs.end());
  for (const auto& f : recs) {
    const CaseRecord r = parse_record(read_text(f), f.string());
    auto header = [&](const char* key, std::string def) {
      const std::string v = r.header_value(key);
      return v.empty() ? def : v;
    };
    CampaignFinding cf;
    cf.signature = header("signature", f.stem().string());
    cf.invariant = header("invariant", "");
    cf.kind = header("kind", "finding");
    cf.detail = header("detail", "");
    cf.original_line = header("original", "");
    cf.case_line = r.line.empty() ? header("case", "") : r.line;
    cf.file = fs::absolute(f).string();
    cf.is_new = !run.known_before.count(f.filename().string());
    if (!r.line.empty()) {
      cf.replay = replay_command(run, r.line);
      try {
        const Judgement j = run.judge_case(parse_case(r.line), nullptr);
        cf.reproduced = j.signature == cf.signature;
      } catch (const std::exception&) {
      }
    } else if (!r.header_value("artifact").empty()) {
      cf.replay =
          (run.fuzzer.empty() ? run.opt.target + "_fuzz" : run.fuzzer) + " " + shell_quote(r.header_value("artifact"));
    }
    run.res.findings.push_back(std::move(cf));
  }
}

}  // namespace cp::fuzz

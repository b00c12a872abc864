// run_campaign and its first stage, prepare: the campaign folder, its lock, the targets'
// configuration and the totals of earlier runs (campaign_run.h lists the stages).
#include "campaign/campaign.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "campaign/campaign_run.h"
#include "campaign/live_judge.h"
#include "reference/io/user_dirs.h"
#include "reference/proc/interrupt.h"

namespace cp::fuzz {
namespace {

// Campaign state is written at least this often while fuzzing (issue 11: <= 30 s);
// CHUNKPROOF_FUZZ_CHECKPOINT_SECONDS overrides it (the campaign test uses 1).
double checkpoint_seconds() {
  const char* e = std::getenv("CHUNKPROOF_FUZZ_CHECKPOINT_SECONDS");
  const double v = e ? std::atof(e) : 0;
  return v > 0 ? std::min(v, 30.0) : 15.0;
}

bool fail(CampaignRun& run, std::string error) {
  run.res.exit_code = 2;
  run.res.error = std::move(error);
  return false;
}

// libFuzzer reads corpus folders recursively and writes new inputs into the first one: the
// corpus must never contain the findings (reports and records would become inputs), nor sit
// inside the runner's own subfolders. "" when the folders are apart.
std::string overlap(const fs::path& corpus, const fs::path& findings) {
  std::error_code ec;
  const fs::path cc = fs::weakly_canonical(corpus, ec), fc = fs::weakly_canonical(findings, ec);
  auto inside = [](const fs::path& a, const fs::path& b) {  // a is b or below b
    auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    return ib == b.end();
  };
  std::string why;
  if (cc == fc)
    why = "--corpus-dir and --findings-dir are the same folder (" + cc.string() + ")";
  else if (inside(fc, cc))
    why = "the findings folder " + fc.string() + " is inside the corpus folder " + cc.string();
  else
    for (const char* sub : {"raw", "crashes", "minimized", "maps"})
      if (inside(cc, fc / sub))
        why = "the corpus folder " + cc.string() + " is inside the runner's " + (fc / sub).string();
  if (why.empty()) return why;
  return why + ": the corpus must be a folder of its own (reports would become fuzz inputs); the default, " +
         (fc / "corpus").string() + ", is";
}

}  // namespace

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&t));
  return buf;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::int64_t count_files(const fs::path& dir) {
  std::error_code ec;
  std::int64_t n = 0;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().filename().string()[0] != '.') ++n;
  return n;
}

bool stop_requested() { return proc::interrupted(); }

bool FolderLock::acquire(const fs::path& dir, const std::string& command, std::string& holder) {
  const std::string path = (dir / ".lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    holder = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char buf[512] = {};
    const ssize_t n = pread(fd_, buf, sizeof buf - 1, 0);
    holder = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "another process";
    while (!holder.empty() && holder.back() == '\n') holder.pop_back();
    ::close(fd_);
    fd_ = -1;
    return false;
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string who =
      "pid " + std::to_string(getpid()) + " on " + host + " since " + now_iso() + " (" + command + ")\n";
  if (ftruncate(fd_, 0) != 0 || pwrite(fd_, who.data(), who.size(), 0) < 0) { /* the lock itself holds */
  }
  return true;
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

CampaignTotals load_totals(const fs::path& p) {
  CampaignTotals s;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    if (k == "runs") s.runs = std::atoi(v.c_str());
    if (k == "executions") s.executions = std::atoll(v.c_str());
    if (k == "seconds") s.seconds = std::atof(v.c_str());
    if (k == "coverage") s.coverage = std::atoll(v.c_str());
    if (k == "features") s.features = std::atoll(v.c_str());
    if (k == "execs_log_counted") s.execs_log_counted = std::atoll(v.c_str());
  }
  return s;
}

void save_totals(const fs::path& p, const CampaignTotals& s) {
  std::ostringstream os;
  os << "runs=" << s.runs << "\nexecutions=" << s.executions << "\nseconds=" << s.seconds << "\ncoverage=" << s.coverage
     << "\nfeatures=" << s.features << "\nexecs_log_counted=" << s.execs_log_counted << "\n";
  write_file_atomic(p.string(), os.str());
}

void checkpoint(CampaignRun& run, const CampaignStats& stats, double seconds) {
  CampaignTotals& t = run.totals;
  t = run.base;
  t.runs = run.base.runs + 1;
  t.executions = run.base.executions + stats.executions;
  t.seconds = run.base.seconds + seconds;
  t.coverage = std::max(run.base.coverage, stats.coverage);
  t.features = std::max(run.base.features, stats.features);
  t.execs_log_counted = std::max(run.exec_log_total, stats.executions);
  save_totals(run.state_file, t);
}

std::string default_campaign_dir(const std::string& target, const std::string& versions, const std::string& platform,
                                 const std::string& pins) {
  const char* home = std::getenv("CHUNKPROOF_FUZZ_HOME");
  const fs::path root = home && *home ? fs::absolute(home) : io::user_data_dir("fuzz");
  if (root.empty()) return {};
  std::string name = target + "-" + versions + "-" + platform;
  if (!pins.empty()) {  // a pinned campaign is a campaign of its own: block=64,dcp=8 -> -pinned-block64-dcp8
    name += "-pinned-";
    for (char ch : pins)
      if (ch != '=') name += ch == ',' ? '-' : ch;
  }
  return (root / name).string();
}

// Directories: corpus and findings persist across runs, so a killed campaign resumes. The
// campaign folder is the findings folder; its default does not depend on the current
// directory, and the corpus defaults to a folder inside it, so the same command resumes the
// same campaign from anywhere.
bool prepare_folders(CampaignRun& run) {
  const CampaignOptions& opt = run.opt;
  run.vers = opt.versions.empty() ? "all" : join(opt.versions, ",");
  run.findings = opt.findings_dir.empty() ? fs::path(default_campaign_dir(opt.planner_cmd.empty() ? opt.target : "live",
                                                                          run.vers, opt.platform, opt.pins))
                                          : fs::absolute(opt.findings_dir);
  if (run.findings.empty())
    return fail(run,
                "no campaign folder: neither CHUNKPROOF_FUZZ_HOME, XDG_DATA_HOME nor HOME is set; pass --findings-dir");
  run.corpus = opt.corpus_dir.empty() ? run.findings / "corpus" : fs::absolute(opt.corpus_dir);
  run.raw = run.findings / "raw";
  run.crashes = run.findings / "crashes";
  run.minimized = run.findings / "minimized";
  std::error_code ec;
  for (const auto& d : {run.corpus, run.raw, run.crashes, run.minimized}) fs::create_directories(d, ec);
  if (ec) return fail(run, "cannot create " + run.findings.string() + ": " + ec.message());
  if (std::string why = overlap(run.corpus, run.findings); !why.empty()) return fail(run, why);
  if (std::string holder; !run.lock.acquire(run.findings, opt.command_line, holder))
    return fail(run, "campaign folder " + run.findings.string() + " is in use by " + holder +
                         "; wait for it, stop it, or pass another --findings-dir");
  run.corpus_root = fs::path(CHUNKPROOF_SOURCE_DIR) / "corpus";
  run.state_file = run.findings / "campaign.state";
  run.exec_log = run.findings / ".execs";
  return true;
}

// The targets' configuration (and this process's, for the selection), the records known before
// this run, and the totals of earlier runs: campaign.state holds every earlier run; this run is
// checkpointed into it every checkpoint_seconds(), so a run killed outright loses at most that much.
bool prepare_config(CampaignRun& run) {
  const CampaignOptions& opt = run.opt;
  for (std::size_t pos = 0; pos <= opt.expect_correct.size();) {
    auto comma = opt.expect_correct.find(',', pos);
    if (comma == std::string::npos) comma = opt.expect_correct.size();
    const std::string n = opt.expect_correct.substr(pos, comma - pos);
    if (auto v = parse_version(n)) run.cfg.expect_correct.push_back(*v);
    pos = comma + 1;
  }
  run.cfg.quiet = true;
  run.cfg.stop_on = opt.stop_on;
  run.env = {{"CHUNKPROOF_FUZZ_VERSIONS", run.vers},
             {"CHUNKPROOF_FUZZ_PLATFORMS", opt.platform},
             {"CHUNKPROOF_FUZZ_EXPECT_CORRECT", opt.expect_correct.empty() ? "none" : opt.expect_correct},
             {"CHUNKPROOF_FUZZ_FINDINGS_DIR", fs::absolute(run.raw).string()},
             {"CHUNKPROOF_FUZZ_STOP_ON", opt.stop_on},
             {"CHUNKPROOF_FUZZ_PINS", opt.pins},
             {"CHUNKPROOF_FUZZ_DIFFERENTIAL", opt.differential ? "1" : "0"},
             {"CHUNKPROOF_FUZZ_EXEC_LOG", fs::absolute(run.exec_log).string()},
             {"ASAN_OPTIONS", "abort_on_error=1:symbolize=1:detect_leaks=0"},
             {"UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1"}};
  if (!opt.planner_cmd.empty()) {  // live_planner_fuzz's planner child (fuzz_live_planner.cpp)
    run.env.push_back({"CHUNKPROOF_LIVE_PLANNER_CMD", opt.planner_cmd});
    run.env.push_back({"CHUNKPROOF_LIVE_PLANNER_DIFF", opt.planner_diff ? "1" : "0"});
    run.env.push_back({"CHUNKPROOF_LIVE_PLANNER_TIMEOUT", std::to_string(opt.planner_timeout)});
  }
  for (const auto& [k, v] : run.env) setenv(k.c_str(), v.c_str(), 1);
  try {
    run.sel = Selection::from_env();
  } catch (const CaseError& e) {
    return fail(run, e.what());
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(run.minimized, ec)) run.known_before.insert(e.path().filename().string());
  run.base = load_totals(run.state_file);
  {
    // Executions a killed run logged after its last checkpoint.
    std::int64_t logged = 0;
    std::ifstream in(run.exec_log);
    for (std::string line; std::getline(in, line);) logged += std::atoll(line.c_str());
    if (logged > run.base.execs_log_counted) run.base.executions += logged - run.base.execs_log_counted;
    run.base.execs_log_counted = 0;
    in.close();
    fs::remove(run.exec_log, ec);
  }
  run.totals = run.base;
  run.checkpoint_every = checkpoint_seconds();
  if (opt.planner_cmd.empty()) {
    run.judge_case = [&run](const Case& c, const FindingSink* known) { return judge(c, run.cfg, known); };
  } else {
    run.planner = std::make_unique<live::ExternalPlanner>(
        live::PlannerOptions{.command = opt.planner_cmd, .timeout_s = opt.planner_timeout});
    run.judge_case = [&run](const Case& c, const FindingSink*) {
      return live_judgement(*run.planner, c, run.opt.planner_diff);
    };
  }
  run.tty = opt.status_line && isatty(2);
  return true;
}

CampaignResult run_campaign(const CampaignOptions& opt, std::ostream& log) {
  CampaignRun run(opt, log);
  run.res.engine = opt.engine;
  if (!prepare_folders(run) || !prepare_config(run)) return run.res;
  proc::InterruptGuard guard;  // SIGINT/SIGTERM: libFuzzer stopped, the report written
  run.t0 = Clock::now();
  if (!run_engine(run)) return run.res;
  collect_findings(run);
  draw_maps(run);
  list_findings(run);
  write_reports(run);
  return std::move(run.res);
}

}  // namespace cp::fuzz

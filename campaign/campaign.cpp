#include "campaign/campaign.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "campaign/heatmap.h"
#include "campaign/minimize.h"
#include "fuzz/common/case_codec.h"
#include "fuzz/common/findings.h"
#include "fuzz/common/judge.h"
#include "invariants/catalogue.h"
#include "invariants/expect.h"
#include "reference/caseio/regression.h"
#include "reference/proc/group_reaper.h"
#include "reference/proc/interrupt.h"
#include "reference/proc/subprocess.h"

namespace fs = std::filesystem;

namespace cp::fuzz {
namespace {

using Clock = std::chrono::steady_clock;

// Campaign state is written at least this often while fuzzing (issue 11: <= 30 s);
// CHUNKPROOF_FUZZ_CHECKPOINT_SECONDS overrides it (the campaign test uses 1).
double checkpoint_seconds() {
  const char* e = std::getenv("CHUNKPROOF_FUZZ_CHECKPOINT_SECONDS");
  const double v = e ? std::atof(e) : 0;
  return v > 0 ? std::min(v, 30.0) : 15.0;
}
// After Ctrl-C/SIGTERM libFuzzer gets this long to stop before its process group is killed.
constexpr double kInterruptGraceSeconds = 1.0;

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&t));
  return buf;
}

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

struct ChildEnv {
  std::vector<std::pair<std::string, std::string>> vars;
};

bool stop_requested() { return proc::interrupted(); }

// Starts argv[0] with stdout+stderr on a pipe (proc::Child: its own process group, killed by
// the kernel when this process dies). Its own children (libFuzzer's fork-mode jobs) stay in
// the group, which a proc::GroupReaper kills.
std::optional<proc::Child> spawn(const std::vector<std::string>& argv, const ChildEnv& env,
                                 std::string* why = nullptr) {
  try {
    return proc::Child::exec(argv, {.from_child = true}, env.vars);
  } catch (const proc::ProcError& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
}

// An exclusive lock on a campaign folder (flock on <dir>/.lock, released by the kernel when the
// holder dies). The file names the holder.
class FolderLock {
 public:
  bool acquire(const fs::path& dir, const std::string& command, std::string& holder) {
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
  ~FolderLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_ = -1;
};

// Runs a command to completion (with a time limit) and returns its exit status and output.
int run_capture(const std::vector<std::string>& argv, const ChildEnv& env, double timeout_s, std::string& out) {
  std::optional<proc::Child> child = spawn(argv, env);
  if (!child) return -1;
  proc::GroupReaper reaper(child->pid());
  const int fd = child->from_child();
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<std::int64_t>(timeout_s * 1000));
  char buf[4096];
  bool killed = false;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, 200);
    if (r > 0) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (out.size() < (1u << 20)) out.append(buf, static_cast<std::size_t>(n));
    }
    if (!killed && (Clock::now() > deadline || proc::interrupted())) {  // Ctrl-C: do not wait for it
      child->signal_group(SIGKILL);
      killed = true;
    }
  }
  const int status = child->reap();
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

bool is_libfuzzer_binary(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || access(path.c_str(), X_OK) != 0) return false;
  std::string out;
  run_capture({path, "-help=1"}, {}, 20, out);
  return out.find("\n fork ") != std::string::npos && out.find("ignore_crashes") != std::string::npos;
}

std::string self_dir() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.parent_path().string();
}

// libFuzzer's status lines: fork mode "#N: cov: C ft: F corp: K exec/s: E oom/timeout/crash: a/b/c time: Ts",
// plain mode "#N\tNEW    cov: C ft: F corp: K/Sb ... exec/s: E".
void parse_status(const std::string& line, CampaignStats& s) {
  if (line.empty() || line[0] != '#') return;
  auto num_after = [&](const char* key, std::int64_t& out) {
    const auto k = line.find(key);
    if (k == std::string::npos) return;
    out = std::strtoll(line.c_str() + k + std::strlen(key), nullptr, 10);
  };
  const std::int64_t n = std::strtoll(line.c_str() + 1, nullptr, 10);
  if (n > 0) s.executions = n;
  num_after("cov: ", s.coverage);
  num_after("ft: ", s.features);
  std::int64_t e = 0;
  num_after("exec/s: ", e);
  if (e > 0) s.exec_per_s = static_cast<double>(e);
  const auto k = line.find("oom/timeout/crash: ");
  if (k != std::string::npos) {
    long long a = 0, b = 0, c = 0;
    if (std::sscanf(line.c_str() + k + 19, "%lld/%lld/%lld", &a, &b, &c) == 3) s.crashes = a + b + c;
  }
}

std::string status_text(const CampaignStats& s, double elapsed, double budget, std::int64_t findings) {
  std::ostringstream os;
  os << "[" << std::fixed << std::setprecision(0) << elapsed << "s/" << budget << "s] execs " << s.executions << " ("
     << s.exec_per_s << "/s)  cov " << s.coverage << "  ft " << s.features << "  corpus " << s.corpus << "  findings "
     << findings;
  if (s.crashes) os << "  crashes " << s.crashes;
  return os.str();
}

struct State {
  int runs = 0;
  std::int64_t executions = 0;
  double seconds = 0;
  std::int64_t coverage = 0, features = 0;
  // Executions of the targets' log (findings/.execs) already in `executions`: a run killed after
  // its last checkpoint leaves the log behind, and the next run adds what it holds beyond this.
  std::int64_t execs_log_counted = 0;
};

State load_state(const fs::path& p) {
  State s;
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

void save_state(const fs::path& p, const State& s) {
  std::ostringstream os;
  os << "runs=" << s.runs << "\nexecutions=" << s.executions << "\nseconds=" << s.seconds << "\ncoverage=" << s.coverage
     << "\nfeatures=" << s.features << "\nexecs_log_counted=" << s.execs_log_counted << "\n";
  write_file_atomic(p.string(), os.str());
}

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

// The dictionary the fuzzer gets: the target's static tokens plus the name of every version
// row, written into the campaign folder (derived: a new version needs no dictionary edit).
std::string derived_dict(const fs::path& static_dict, const fs::path& dir) {
  std::ifstream in(static_dict);
  std::ostringstream os;
  os << in.rdbuf() << "\n# derived from the version rows (reference/planner/versions.h)\n";
  for (const auto& v : all_versions()) os << '"' << v.name << "\"\n";
  const fs::path out = dir / static_dict.filename();
  write_file_atomic(out.string(), os.str());
  return out.string();
}

// Reads the libFuzzer .options file of a target ([libfuzzer] key = value) into flags; its
// dictionary becomes the derived one in `dir`.
std::vector<std::string> options_flags(const fs::path& corpus_root, const std::string& target, const fs::path& dir) {
  std::vector<std::string> flags;
  std::ifstream in(corpus_root / (target + "_fuzz.options"));
  std::string line;
  bool in_section = false;
  while (std::getline(in, line)) {
    if (line.rfind("[", 0) == 0) {
      in_section = line.rfind("[libfuzzer]", 0) == 0;
      continue;
    }
    const auto eq = line.find('=');
    if (!in_section || eq == std::string::npos || line[0] == '#') continue;
    auto trim = [](std::string t) {
      t.erase(0, t.find_first_not_of(" \t"));
      t.erase(t.find_last_not_of(" \t\r") + 1);
      return t;
    };
    std::string k = trim(line.substr(0, eq)), v = trim(line.substr(eq + 1));
    if (k == "dict") v = derived_dict(corpus_root / v, dir);
    flags.push_back("-" + k + "=" + v);
  }
  return flags;
}

}  // namespace

std::string locate_fuzzer(const std::string& target, const std::string& hint, std::vector<std::string>& searched) {
  const std::string exe = target + "_fuzz";
  std::vector<std::string> cands;
  if (!hint.empty()) {
    std::error_code ec;
    cands.push_back(fs::is_directory(hint, ec) ? (fs::path(hint) / exe).string() : hint);
  } else {
    if (const char* d = std::getenv("CHUNKPROOF_FUZZ_BIN_DIR")) cands.push_back((fs::path(d) / exe).string());
    const std::string here = self_dir();
    if (!here.empty()) {
      cands.push_back((fs::path(here) / "fuzz" / exe).string());                  // a fuzz-preset chunkproof
      cands.push_back((fs::path(here) / ".." / "fuzz" / "fuzz" / exe).string());  // build/fuzz beside build/<preset>
    }
    cands.push_back((fs::path(CHUNKPROOF_SOURCE_DIR) / "build" / "fuzz" / "fuzz" / exe).string());
  }
  for (const auto& c : cands) {
    searched.push_back(c);
    if (is_libfuzzer_binary(c)) return fs::weakly_canonical(c).string();
  }
  return {};
}

std::string default_campaign_dir(const std::string& target, const std::string& versions, const std::string& platform) {
  const char* home = std::getenv("CHUNKPROOF_FUZZ_HOME");
  const fs::path root = home && *home ? fs::absolute(home) : fs::path(CHUNKPROOF_SOURCE_DIR) / "chunkproof-fuzz";
  return (root / (target + "-" + versions + "-" + platform)).string();
}

CampaignResult run_campaign(const CampaignOptions& opt, std::ostream& log) {
  CampaignResult res;
  res.engine = opt.engine;
  const std::string vers = opt.versions.empty() ? "all" : join(opt.versions, ",");
  // Directories: corpus and findings persist across runs, so a killed campaign resumes. The
  // campaign folder is the findings folder; its default does not depend on the current
  // directory, and the corpus defaults to a folder inside it, so the same command resumes the
  // same campaign from anywhere.
  const fs::path findings = opt.findings_dir.empty() ? fs::path(default_campaign_dir(opt.target, vers, opt.platform))
                                                     : fs::absolute(opt.findings_dir);
  const fs::path corpus = opt.corpus_dir.empty() ? findings / "corpus" : fs::absolute(opt.corpus_dir);
  const fs::path raw = findings / "raw", crashes = findings / "crashes", minimized = findings / "minimized";
  std::error_code ec;
  for (const auto& d : {corpus, raw, crashes, minimized}) fs::create_directories(d, ec);
  if (ec) {
    res.exit_code = 2;
    res.error = "cannot create " + findings.string() + ": " + ec.message();
    return res;
  }
  {
    // libFuzzer reads corpus folders recursively and writes new inputs into the first one: the
    // corpus must never contain the findings (reports and records would become inputs), nor sit
    // inside the runner's own subfolders.
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
    if (!why.empty()) {
      res.exit_code = 2;
      res.error = why + ": the corpus must be a folder of its own (reports would become fuzz inputs); the default, " +
                  (fc / "corpus").string() + ", is";
      return res;
    }
  }
  FolderLock lock;
  if (std::string holder; !lock.acquire(findings, opt.command_line, holder)) {
    res.exit_code = 2;
    res.error = "campaign folder " + findings.string() + " is in use by " + holder +
                "; wait for it, stop it, or pass another --findings-dir";
    return res;
  }
  const fs::path corpus_root = fs::path(CHUNKPROOF_SOURCE_DIR) / "corpus";

  // The same configuration the target reads from its environment.
  TargetConfig cfg;
  for (std::size_t pos = 0; pos <= opt.expect_correct.size();) {
    auto comma = opt.expect_correct.find(',', pos);
    if (comma == std::string::npos) comma = opt.expect_correct.size();
    const std::string n = opt.expect_correct.substr(pos, comma - pos);
    if (auto v = parse_version(n)) cfg.expect_correct.push_back(*v);
    pos = comma + 1;
  }
  cfg.quiet = true;
  cfg.stop_on = opt.stop_on;
  ChildEnv env;
  env.vars = {{"CHUNKPROOF_FUZZ_VERSIONS", vers},
              {"CHUNKPROOF_FUZZ_PLATFORMS", opt.platform},
              {"CHUNKPROOF_FUZZ_EXPECT_CORRECT", opt.expect_correct.empty() ? "none" : opt.expect_correct},
              {"CHUNKPROOF_FUZZ_FINDINGS_DIR", fs::absolute(raw).string()},
              {"CHUNKPROOF_FUZZ_STOP_ON", opt.stop_on},
              {"CHUNKPROOF_FUZZ_DIFFERENTIAL", opt.differential ? "1" : "0"},
              {"CHUNKPROOF_FUZZ_EXEC_LOG", fs::absolute(findings / ".execs").string()},
              {"ASAN_OPTIONS", "abort_on_error=1:symbolize=1:detect_leaks=0"},
              {"UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1"}};
  Selection sel = Selection::all();
  {
    for (const auto& [k, v] : env.vars) setenv(k.c_str(), v.c_str(), 1);
    try {
      sel = Selection::from_env();
    } catch (const CaseError& e) {
      res.exit_code = 2;
      res.error = e.what();
      return res;
    }
  }

  const std::set<std::string> known_before = [&] {
    std::set<std::string> s;
    for (const auto& e : fs::directory_iterator(minimized, ec)) s.insert(e.path().filename().string());
    return s;
  }();
  // Totals: campaign.state holds every earlier run; this run is checkpointed into it every
  // checkpoint_seconds(), so a run killed outright loses at most that much.
  const fs::path state_file = findings / "campaign.state";
  State base = load_state(state_file);
  const fs::path exec_log = findings / ".execs";
  std::int64_t exec_log_total = 0;
  {
    // Executions a killed run logged after its last checkpoint.
    std::ifstream in(exec_log);
    for (std::string line; std::getline(in, line);) exec_log_total += std::atoll(line.c_str());
    if (exec_log_total > base.execs_log_counted) base.executions += exec_log_total - base.execs_log_counted;
    base.execs_log_counted = 0;
    in.close();
    fs::remove(exec_log, ec);
    exec_log_total = 0;
  }
  State state = base;
  proc::InterruptGuard guard;  // SIGINT/SIGTERM: libFuzzer stopped, the report written
  const auto t0 = Clock::now();
  auto checkpoint = [&](const CampaignStats& run, double seconds) {
    state = base;
    state.runs = base.runs + 1;
    state.executions = base.executions + run.executions;
    state.seconds = base.seconds + seconds;
    state.coverage = std::max(base.coverage, run.coverage);
    state.features = std::max(base.features, run.features);
    state.execs_log_counted = std::max(exec_log_total, run.executions);
    save_state(state_file, state);
  };
  double last_checkpoint = 0;
  const double checkpoint_every = checkpoint_seconds();
  auto maybe_checkpoint = [&](const CampaignStats& run, double el) {
    if (el - last_checkpoint < checkpoint_every) return;
    last_checkpoint = el;
    checkpoint(run, el);
  };
  const bool tty = opt.status_line && isatty(2);
  auto findings_so_far = [&] { return count_files(raw) + count_files(crashes); };
  double last_plain = 0;
  std::int64_t crashes_at_signal = -1;  // fork mode counts the job a Ctrl-C stops as a crash
  auto show = [&](const CampaignStats& s, double el) {
    CampaignStats shown = s;
    if (crashes_at_signal >= 0) shown.crashes = crashes_at_signal;
    if (tty)
      std::fprintf(stderr, "\r\033[K%s", status_text(shown, el, opt.max_time, findings_so_far()).c_str());
    else if (opt.status_line && el - last_plain >= 15) {
      last_plain = el;
      std::fprintf(stderr, "%s\n", status_text(shown, el, opt.max_time, findings_so_far()).c_str());
    }
  };

  // Executions summed from the targets' counts (fork mode's parent reports them only now and
  // then), read incrementally.
  std::streamoff exec_log_offset = 0;
  auto read_exec_log = [&](CampaignStats& s, double el) {
    std::ifstream in(exec_log);
    if (!in) return;
    in.seekg(exec_log_offset);
    std::string line;
    while (std::getline(in, line)) {
      if (in.eof()) break;  // a line still being written
      exec_log_total += std::atoll(line.c_str());
      exec_log_offset = in.tellg();
    }
    if (exec_log_total > s.executions) {
      s.executions = exec_log_total;
      if (el > 0) s.exec_per_s = static_cast<double>(exec_log_total) / el;
    }
  };

  std::string fuzzer;
  if (opt.engine == "libfuzzer") {
    std::vector<std::string> searched;
    fuzzer = locate_fuzzer(opt.target, opt.fuzzer_bin, searched);
    if (fuzzer.empty()) {
      res.exit_code = 2;
      res.error = "no libFuzzer build of " + opt.target + "_fuzz found (looked at: " + join(searched, ", ") +
                  ").\nBuild the fuzz targets with clang + libFuzzer:\n  cmake --preset fuzz && cmake --build --preset "
                  "fuzz\nthen pass --fuzzer-bin build/fuzz/fuzz (or set CHUNKPROOF_FUZZ_BIN_DIR). "
                  "--engine builtin runs an in-process random search instead (planner only, no coverage guidance).";
      return res;
    }
    res.fuzzer = fuzzer;
    std::vector<std::string> argv{fuzzer,
                                  "-fork=" + std::to_string(std::max(1, opt.jobs)),
                                  "-ignore_crashes=1",
                                  "-ignore_timeouts=1",
                                  "-ignore_ooms=1",
                                  "-max_total_time=" + std::to_string(static_cast<long long>(opt.max_time)),
                                  "-timeout=25",
                                  "-rss_limit_mb=2560",
                                  "-print_final_stats=1",
                                  "-artifact_prefix=" + fs::absolute(crashes).string() + "/"};
    for (const auto& f : options_flags(corpus_root, opt.target, fs::absolute(crashes).parent_path())) argv.push_back(f);
    if (opt.seed) argv.push_back("-seed=" + std::to_string(opt.seed));
    argv.push_back(fs::absolute(corpus).string());
    const fs::path seeds = corpus_root / (opt.target + "_fuzz");
    if (fs::is_directory(seeds, ec)) argv.push_back(seeds.string());
    log << "fuzz: " << join(argv, " ") << "\n" << std::flush;
    std::ofstream flog(findings / "fuzz.log", std::ios::app);
    flog << "== " << now_iso() << " " << join(argv, " ") << "\n";
    std::string why;
    std::optional<proc::Child> child = spawn(argv, env, &why);
    if (!child) {
      res.exit_code = 2;
      res.error = "cannot start " + fuzzer + ": " + why;
      return res;
    }
    const pid_t pgid = child->pid();
    const int fd = child->from_child();
    proc::GroupReaper reaper(pgid);  // libFuzzer and its jobs end with this runner, however it ends
    std::string pending;
    char buf[8192];
    int forwarded = 0;
    double last_corpus_count = -1;
    double hard_kill_at = opt.max_time + 120;
    for (;;) {
      pollfd p{fd, POLLIN, 0};
      const int r = poll(&p, 1, 200);
      if (r > 0) {
        const ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        pending.append(buf, static_cast<std::size_t>(n));
        std::size_t nl;
        while ((nl = pending.find('\n')) != std::string::npos) {
          const std::string line = pending.substr(0, nl);
          pending.erase(0, nl + 1);
          flog << line << "\n";
          parse_status(line, res.run);
        }
      }
      const double el = std::chrono::duration<double>(Clock::now() - t0).count();
      if (el - last_corpus_count >= 1) {
        last_corpus_count = el;
        res.run.corpus = count_files(corpus);
      }
      read_exec_log(res.run, el);
      show(res.run, el);
      maybe_checkpoint(res.run, el);
      if (proc::interrupt_count() > forwarded) {
        // Ctrl-C / kill: ask libFuzzer to stop, and kill its group a second later — fork mode
        // counts the job the signal stopped as a crash and would start new ones.
        if (forwarded == 0) crashes_at_signal = res.run.crashes;
        forwarded = proc::interrupt_count();
        res.interrupted = true;
        child->signal_group(forwarded > 1 ? SIGKILL : SIGINT);
        hard_kill_at = std::min(hard_kill_at, el + kInterruptGraceSeconds);
      }
      if (el > hard_kill_at) {
        child->signal_group(SIGKILL);
        hard_kill_at = 1e300;
      }
    }
    const int status = child->reap();
    // Stray jobs of the group, if any (the group outlives its reaped leader while they run).
    if (::kill(-pgid, SIGKILL) != 0 && errno != ESRCH) log << "fuzz: " << proc::os_error("kill") << "\n";
    child.reset();
    read_exec_log(res.run, std::chrono::duration<double>(Clock::now() - t0).count());
    if (crashes_at_signal >= 0) res.run.crashes = crashes_at_signal;
    flog << "== exit status " << status << "\n";
    if (tty) std::fprintf(stderr, "\n");
  } else if (opt.engine == "builtin") {
    if (opt.target != "planner") {
      res.exit_code = 2;
      res.error = "--engine builtin runs the planner target only";
      return res;
    }
    res.fuzzer = "built-in random search (in process)";
    TargetConfig rec = cfg;
    rec.findings_dir = raw.string();
    FindingSink sink(rec);
    std::mt19937_64 rng(opt.seed ? opt.seed : static_cast<std::uint64_t>(std::time(nullptr)));
    std::vector<std::uint8_t> bytes;
    double last_show = -1;
    for (;;) {
      const double el = std::chrono::duration<double>(Clock::now() - t0).count();
      if (el >= opt.max_time) break;
      if (proc::interrupted()) {
        res.interrupted = true;
        break;
      }
      bytes.resize(4 + rng() % 60);
      for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
      const Judgement j = judge(decode_case(bytes.data(), bytes.size(), sel), cfg, &sink);
      ++res.run.executions;
      if ((j.kind == Judgement::finding || j.kind == Judgement::crash) && !j.known)
        sink.record(j.signature, j.case_line, j.detail);
      if (el - last_show >= 0.5) {
        last_show = el;
        res.run.exec_per_s = el > 0 ? static_cast<double>(res.run.executions) / el : 0;
        show(res.run, el);
        maybe_checkpoint(res.run, el);
      }
    }
    if (tty) std::fprintf(stderr, "\n");
  } else {
    res.exit_code = 2;
    res.error = "unknown engine '" + opt.engine + "' (libfuzzer | builtin)";
    return res;
  }
  res.run.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  res.run.corpus = count_files(corpus);
  if (res.run.seconds > 0 && opt.engine == "builtin")
    res.run.exec_per_s = static_cast<double>(res.run.executions) / res.run.seconds;
  if (opt.engine == "libfuzzer" && res.run.seconds > 0 && res.run.executions > 0)
    res.run.exec_per_s = static_cast<double>(res.run.executions) / std::min(res.run.seconds, opt.max_time);

  // Findings: the target's records (versions under investigation) and libFuzzer's artifacts.
  // After Ctrl-C the report must come within seconds: findings are recorded as found, without
  // minimization (the record says so).
  const double minimize_budget = res.interrupted || proc::interrupted() ? 0.0 : opt.minimize_seconds;
  auto file_for = [&](const std::string& sig) { return minimized / (slug(sig) + ".case"); };
  auto write_record = [&](const std::string& sig, const std::string& kind, const std::string& invariant,
                          const std::string& detail, const std::string& original, const Case* c,
                          const std::string& extra) {
    const fs::path f = file_for(sig);
    if (fs::exists(f, ec)) return;
    std::string text = "# signature: " + sig + "\n# invariant: " + invariant + "\n# kind: " + kind +
                       "\n# detail: " + detail + "\n# found: " + now_iso() + " by chunkproof fuzz (" + opt.target +
                       ", " + vers + "/" + opt.platform + ")\n";
    if (!original.empty()) text += "# original: " + original + "\n";
    text += extra;
    if (c) {
      const std::string e = expect_line(*c);
      if (!e.empty()) text += e + "\n";
      text += print_case(*c) + "\n";
    }
    write_file_atomic(f.string(), text);
  };
  auto minimize_and_record = [&](const Case& c0, const Judgement& j, const std::string& kind,
                                 const std::string& extra) {
    if (fs::exists(file_for(j.signature), ec)) return;
    MinimizeResult m = minimize_case(c0, j.signature, cfg, minimize_budget, stop_requested);
    // Verify through the printed line, as a user would replay it.
    Case replay = c0;
    try {
      replay = parse_case(print_case(m.c));
    } catch (const std::exception&) {
    }
    const Judgement back = judge(replay, cfg);
    const Case& keep = back.signature == j.signature ? replay : c0;
    write_record(j.signature, kind, j.invariant, j.detail, print_case(c0), &keep,
                 extra + (minimize_budget > 0 ? "# minimize: " + std::to_string(m.evaluations) + " evaluations\n"
                                              : std::string("# minimize: skipped (interrupted)\n")));
  };
  std::vector<fs::path> raws;
  for (const auto& e : fs::directory_iterator(raw, ec))
    if (e.path().extension() == ".case") raws.push_back(e.path());
  std::sort(raws.begin(), raws.end());
  for (const auto& f : raws) {
    const CaseRecord r = parse_record(read_text(f), f.string());
    try {
      const Case c = parse_case(r.line);
      const Judgement j = judge(c, cfg);
      if (j.kind == Judgement::finding || j.kind == Judgement::crash)
        minimize_and_record(c, j, j.kind == Judgement::crash ? "crash" : "finding", "");
    } catch (const std::exception& e) {
      log << "fuzz: skipping unreadable finding " << f << ": " << e.what() << "\n";
    }
  }
  if (!fuzzer.empty()) {
    std::set<std::string> processed;
    {
      std::ifstream in(crashes / ".processed");
      for (std::string s; std::getline(in, s);) processed.insert(s);
    }
    std::vector<fs::path> arts;
    for (const auto& e : fs::directory_iterator(crashes, ec)) {
      const std::string n = e.path().filename().string();
      if (n[0] != '.' && !processed.count(n) && n.find(".tmp") == std::string::npos &&
          n.find("minimized") == std::string::npos)
        arts.push_back(e.path());
    }
    std::sort(arts.begin(), arts.end());
    for (const auto& a : arts) {
      if (res.interrupted || stop_requested()) {  // left for the next run of the same command
        ++res.pending_artifacts;
        continue;
      }
      ChildEnv e2 = env;
      e2.vars.push_back({"CHUNKPROOF_PRINT_CASE", "1"});
      std::string out;
      const int rc = run_capture({fuzzer, "-runs=1", a.string()}, e2, 120, out);
      std::string case_line, sig, why;
      std::istringstream in(out);
      for (std::string s; std::getline(in, s);) {
        if (s.rfind("case: ", 0) == 0) case_line = s.substr(6);
        if (sig.empty() && s.rfind("CHUNKPROOF-CRASH ", 0) == 0) sig = s.substr(17, s.find(" | ") - 17);
        if (why.empty() &&
            (s.find("ERROR: AddressSanitizer") != std::string::npos || s.find("runtime error:") != std::string::npos ||
             s.find("ERROR: libFuzzer") != std::string::npos || s.find("_fuzz: ") != std::string::npos))
          why = s;
      }
      const std::string extra = "# artifact: " + fs::absolute(a).string() + "\n";
      if (!sig.empty() && !case_line.empty() && opt.target == "planner") {
        try {
          const Case c = parse_case(case_line);
          Judgement j = judge(c, cfg);
          if (j.kind == Judgement::finding || j.kind == Judgement::crash) {
            minimize_and_record(c, j, "crash", extra);
            processed.insert(a.filename().string());
            continue;
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
          const Case c = parse_case(case_line);
          who = " " + std::string(name(c.version)) + "/" + std::string(name(c.platform));
        } catch (const std::exception&) {
        }
        sig = (kind == "timeout" ? "timeout:" : "slow input:") + who;
        why = "over libFuzzer's time limit (" + an + "); replays in the fuzzer without a crash";
      } else if (rc == 0) {
        why = "did not reproduce (" + an + ")";
      }
      if (sig.empty()) sig = "crash: " + (why.empty() ? an : why.substr(0, 160));
      // Byte-level minimization by libFuzzer for crashes the runner cannot judge in process.
      if (rc != 0 && !slow && minimize_budget > 0) {
        const fs::path minp = crashes / (".minimized-" + a.filename().string());
        std::string mout;
        run_capture(
            {fuzzer, "-minimize_crash=1", "-max_total_time=" + std::to_string(static_cast<int>(minimize_budget)),
             "-exact_artifact_path=" + minp.string(), a.string()},
            env, minimize_budget + 60, mout);
      }
      write_record(sig, kind, kind, why, "", nullptr, extra + (case_line.empty() ? "" : "# case: " + case_line + "\n"));
      processed.insert(a.filename().string());
    }
    std::string list;
    for (const auto& p : processed) list += p + "\n";
    write_file_atomic((crashes / ".processed").string(), list);
  }

  // Violation maps: one version and platform over two parameters each (campaign/heatmap.h),
  // drawn after every completed run; an interrupted run links the ones already drawn.
  std::vector<std::pair<std::string, fs::path>> maps;  // label, SVG
  if (opt.target == "planner") {
    const fs::path dir = findings / "maps";
    fs::create_directories(dir, ec);
    for (Version v : sel.versions)
      for (Platform p : sel.platforms)
        for (const MapSpec& spec : default_maps(v, p)) {
          const fs::path svg =
              dir / (std::string(name(v)) + "-" + std::string(name(p)) + "-" + spec.y + "-x-" + spec.x + ".svg");
          const std::string label = std::string(name(v)) + "/" + std::string(name(p)) + ": " + spec.y + " x " + spec.x;
          if (!res.interrupted && !stop_requested()) {
            try {
              std::string note;
              write_map_files(compute_map(spec), svg.string(), note);
            } catch (const std::exception& e) {
              log << "fuzz: map " << label << ": " << e.what() << "\n";
            }
          }
          if (fs::exists(svg, ec)) {
            maps.emplace_back(label, svg);
            res.maps.push_back(svg.string());
          }
        }
  }

  // The morning report: every finding this campaign directory holds.
  std::vector<fs::path> recs;
  for (const auto& e : fs::directory_iterator(minimized, ec))
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
    cf.is_new = !known_before.count(f.filename().string());
    if (!r.line.empty()) {
      cf.replay = "chunkproof plan --case " + shell_quote(r.line);
      try {
        const Judgement j = judge(parse_case(r.line), cfg);
        cf.reproduced = j.signature == cf.signature;
      } catch (const std::exception&) {
      }
    } else if (!r.header_value("artifact").empty()) {
      cf.replay = (fuzzer.empty() ? opt.target + "_fuzz" : fuzzer) + " " + shell_quote(r.header_value("artifact"));
    }
    res.findings.push_back(std::move(cf));
  }

  checkpoint(res.run, res.run.seconds);
  fs::remove(exec_log, ec);  // counted in the state now
  exec_log_total = 0;
  state.execs_log_counted = 0;
  save_state(state_file, state);
  res.runs = state.runs;
  res.cumulative = {
      state.executions, state.seconds,  state.seconds > 0 ? static_cast<double>(state.executions) / state.seconds : 0,
      state.coverage,   state.features, res.run.corpus,
      res.run.crashes};

  // report.md
  std::ostringstream md;
  md << "# chunkproof fuzz report\n\n"
     << "- command: `" << opt.command_line << "`\n"
     << "- finished: " << now_iso() << (res.interrupted ? " (interrupted: the report covers what ran)" : "") << "\n"
     << "- target: `" << opt.target << "_fuzz`, versions: " << vers << ", platforms: " << opt.platform
     << ", expected correct (a violation is a crash): " << (opt.expect_correct.empty() ? "none" : opt.expect_correct)
     << "\n- engine: " << opt.engine << " (" << res.fuzzer << "), jobs " << opt.jobs << ", budget " << opt.max_time
     << " s\n- corpus: `" << fs::absolute(corpus).string() << "`, findings: `" << fs::absolute(findings).string()
     << "`\n\n## Totals\n\n| | this run | all " << state.runs << " run(s) |\n|---|---|---|\n"
     << std::fixed << std::setprecision(0) << "| executions | " << res.run.executions << " | " << state.executions
     << " |\n| fuzzing time (s) | " << res.run.seconds << " | " << state.seconds << " |\n| exec/s | "
     << res.run.exec_per_s << " | " << res.cumulative.exec_per_s << " |\n| coverage (edges / features) | "
     << res.run.coverage << " / " << res.run.features << " | " << state.coverage << " / " << state.features
     << " |\n| corpus files | " << res.run.corpus << " | |\n| crash artifacts | " << count_files(crashes) << " | |\n\n";
  int fresh = 0;
  for (const auto& f : res.findings) fresh += f.is_new;
  md << "## Findings: " << res.findings.size() << " distinct (" << fresh << " new in this run)\n\n";
  if (res.findings.empty())
    md << "No findings" << (opt.engine == "libfuzzer" ? " in the executions above" : "")
       << ". Fuzzing shows no counterexample was found within the budget; it is not a proof (`chunkproof prove`).\n";
  int i = 0;
  for (const auto& f : res.findings) {
    md << "### " << ++i << ". `" << f.signature << "`" << (f.is_new ? " (new)" : "") << "\n\n"
       << "- invariant: " << f.invariant << ", kind: " << f.kind
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
    md << "- record: `" << f.file << "` (regression-file format: copy it to corpus/regressions/)\n\n";
  }
  if (res.pending_artifacts)
    md << "**" << res.pending_artifacts << " crash artifact(s) not yet examined** (interrupted): the next run of the "
       << "same command replays and records them.\n\n";
  md << "## Violation maps\n\n";
  if (maps.empty())
    md << "None (maps are drawn for the planner target).\n\n";
  else
    md << "Each map evaluates one version and platform on a grid of two parameters, every cell coloured by its "
          "outcome (ok, the assert that fires, the invariants violated); hover a cell in a browser for its case line. "
          "`chunkproof map --version V --platform P --x KEY --y KEY [--fix KEY=VAL]` draws others.\n\n";
  for (const auto& [label, svg] : maps) {
    const fs::path rel = fs::relative(svg, findings, ec);
    fs::path png = svg;
    png.replace_extension(".png");
    md << "- [" << label << "](" << rel.string() << ")";
    if (fs::exists(png, ec)) md << " ([PNG](" << fs::relative(png, findings, ec).string() << "))";
    md << "\n";
  }
  md << "\n## Resume\n\nRun the same command again: the corpus and the findings above are kept, and known findings are "
        "not minimized twice.\n";
  res.report_md = (findings / "report.md").string();
  write_file_atomic(res.report_md, md.str());

  // report.json (schema chunkproof.fuzz-report/1, docs/json.md)
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
         {"versions", vers},
         {"platforms", opt.platform},
         {"expect_correct", opt.expect_correct},
         {"engine", opt.engine},
         {"fuzzer", res.fuzzer},
         {"jobs", opt.jobs},
         {"max_time", opt.max_time},
         {"corpus_dir", fs::absolute(corpus).string()},
         {"findings_dir", fs::absolute(findings).string()},
         {"runs", state.runs},
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
  std::ostringstream js;
  js << j.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
  res.report_json = (findings / "report.json").string();
  write_file_atomic(res.report_json, js.str());

  if (!res.findings.empty())
    res.exit_code = 1;
  else if (res.run.executions == 0 && !res.interrupted)
    res.exit_code = 3;
  return res;
}

}  // namespace cp::fuzz

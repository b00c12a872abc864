// The run-engine stage (campaign_run.h): libFuzzer in fork mode under supervision — started in
// its own process group, its output parsed for the status line, checkpointed, stopped on
// Ctrl-C/SIGTERM and killed with its jobs however the runner ends — or the built-in in-process
// random search. Also the one poll loop over a child's output (pump_output) that every
// subprocess of the campaign goes through.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <optional>
#include <random>
#include <sstream>

#include "campaign/campaign_run.h"
#include "fuzz/common/judge.h"
#include "reference/proc/group_reaper.h"
#include "reference/proc/interrupt.h"

namespace cp::fuzz {
namespace {

// After Ctrl-C/SIGTERM libFuzzer gets this long to stop before its process group is killed.
constexpr double kInterruptGraceSeconds = 1.0;

// Starts argv[0] with stdout+stderr on a pipe (proc::Child: its own process group, killed by
// the kernel when this process dies). Its own children (libFuzzer's fork-mode jobs) stay in
// the group, which a proc::GroupReaper kills.
std::optional<proc::Child> spawn(const std::vector<std::string>& argv, const proc::Env& env,
                                 std::string* why = nullptr) {
  try {
    return proc::Child::exec(argv, {.from_child = true}, env);
  } catch (const proc::ProcError& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
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

// The live status line: redrawn on a terminal, every 15 s otherwise.
void show(CampaignRun& run, const CampaignStats& s, double el) {
  CampaignStats shown = s;
  if (run.crashes_at_signal >= 0) shown.crashes = run.crashes_at_signal;
  auto found = [&] { return count_files(run.raw) + count_files(run.crashes); };  // only when shown
  if (run.tty)
    std::fprintf(stderr, "\r\033[K%s", status_text(shown, el, run.opt.max_time, found()).c_str());
  else if (run.opt.status_line && el - run.last_plain >= 15) {
    run.last_plain = el;
    std::fprintf(stderr, "%s\n", status_text(shown, el, run.opt.max_time, found()).c_str());
  }
}

void maybe_checkpoint(CampaignRun& run, const CampaignStats& s, double el) {
  if (el - run.last_checkpoint < run.checkpoint_every) return;
  run.last_checkpoint = el;
  checkpoint(run, s, el);
}

// Executions summed from the targets' counts (fork mode's parent reports them only now and
// then), read incrementally.
void read_exec_log(CampaignRun& run, CampaignStats& s, double el) {
  std::ifstream in(run.exec_log);
  if (!in) return;
  in.seekg(run.exec_log_offset);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a line still being written
    run.exec_log_total += std::atoll(line.c_str());
    run.exec_log_offset = in.tellg();
  }
  if (run.exec_log_total > s.executions) {
    s.executions = run.exec_log_total;
    if (el > 0) s.exec_per_s = static_cast<double>(run.exec_log_total) / el;
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

// libFuzzer's command line: fork mode, crashes and timeouts recorded and skipped, the target's
// .options, this campaign's corpus first (new inputs go there), the seed corpus after it.
std::vector<std::string> libfuzzer_argv(const CampaignRun& run) {
  const CampaignOptions& opt = run.opt;
  // live_planner_fuzz decodes inputs as planner_fuzz does: its options, dictionary and seeds.
  const std::string inputs_of = opt.target == "live_planner" ? "planner" : opt.target;
  // Through a planner child an input may wait for a restart (its imports: the client's start
  // timeout, 120 s) on top of the reply's own timeout.
  const long long timeout = opt.planner_cmd.empty() ? 25 : 130 + static_cast<long long>(opt.planner_timeout);
  std::vector<std::string> argv{run.fuzzer,
                                "-fork=" + std::to_string(std::max(1, opt.jobs)),
                                "-ignore_crashes=1",
                                "-ignore_timeouts=1",
                                "-ignore_ooms=1",
                                "-max_total_time=" + std::to_string(static_cast<long long>(opt.max_time)),
                                "-timeout=" + std::to_string(timeout),
                                "-rss_limit_mb=2560",
                                "-print_final_stats=1",
                                "-artifact_prefix=" + fs::absolute(run.crashes).string() + "/"};
  for (const auto& f : options_flags(run.corpus_root, inputs_of, fs::absolute(run.crashes).parent_path()))
    argv.push_back(f);
  if (opt.seed) argv.push_back("-seed=" + std::to_string(opt.seed));
  argv.push_back(fs::absolute(run.corpus).string());
  const fs::path seeds = run.corpus_root / (inputs_of + "_fuzz");
  std::error_code ec;
  if (fs::is_directory(seeds, ec)) argv.push_back(seeds.string());
  return argv;
}

bool run_libfuzzer(CampaignRun& run) {
  const CampaignOptions& opt = run.opt;
  CampaignResult& res = run.res;
  std::vector<std::string> searched;
  run.fuzzer = locate_fuzzer(opt.target, opt.fuzzer_bin, searched);
  std::string build_why;
  if (run.fuzzer.empty() && opt.fuzzer_bin.empty() && !std::getenv("CHUNKPROOF_FUZZ_BIN_DIR")) {
    const std::string built = build_fuzzer_on_demand(opt.target, build_why);
    if (!built.empty() && is_libfuzzer_binary(built)) run.fuzzer = fs::weakly_canonical(built).string();
    run.t0 = Clock::now();  // --max-time is fuzzing time: the build does not spend it
  }
  if (run.fuzzer.empty()) {
    res.exit_code = 2;
    res.error = "no libFuzzer build of " + opt.target + "_fuzz found (looked at: " + join(searched, ", ") + ")" +
                (build_why.empty() ? "" : "; building it here failed: " + build_why) +
                ".\nBuild the fuzz targets with clang + libFuzzer:\n  cmake --preset fuzz && cmake --build --preset "
                "fuzz\nthen pass --fuzzer-bin build/fuzz/fuzz (or set CHUNKPROOF_FUZZ_BIN_DIR). "
                "--engine builtin runs an in-process random search instead (planner only, no coverage guidance).";
    return false;
  }
  res.fuzzer = run.fuzzer;
  const std::vector<std::string> argv = libfuzzer_argv(run);
  run.log << "fuzz: " << join(argv, " ") << "\n" << std::flush;
  std::ofstream flog(run.findings / "fuzz.log", std::ios::app);
  flog << "== " << now_iso() << " " << join(argv, " ") << "\n";
  std::string why;
  std::optional<proc::Child> child = spawn(argv, run.env, &why);
  if (!child) {
    res.exit_code = 2;
    res.error = "cannot start " + run.fuzzer + ": " + why;
    return false;
  }
  const pid_t pgid = child->pid();
  proc::GroupReaper reaper(pgid);  // libFuzzer and its jobs end with this runner, however it ends
  std::string pending;
  int forwarded = 0;
  double last_corpus_count = -1;
  double hard_kill_at = opt.max_time + 120;
  auto on_output = [&](const char* data, std::size_t n) {
    pending.append(data, n);
    std::size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      const std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      flog << line << "\n";
      parse_status(line, res.run);
    }
  };
  auto on_tick = [&] {
    const double el = run.elapsed();
    if (el - last_corpus_count >= 1) {
      last_corpus_count = el;
      res.run.corpus = count_files(run.corpus);
    }
    read_exec_log(run, res.run, el);
    show(run, res.run, el);
    maybe_checkpoint(run, res.run, el);
    if (proc::interrupt_count() > forwarded) {
      // Ctrl-C / kill: ask libFuzzer to stop, and kill its group a second later — fork mode
      // counts the job the signal stopped as a crash and would start new ones.
      if (forwarded == 0) run.crashes_at_signal = res.run.crashes;
      forwarded = proc::interrupt_count();
      res.interrupted = true;
      child->signal_group(forwarded > 1 ? SIGKILL : SIGINT);
      hard_kill_at = std::min(hard_kill_at, el + kInterruptGraceSeconds);
    }
    if (el > hard_kill_at) {
      child->signal_group(SIGKILL);
      hard_kill_at = 1e300;
    }
  };
  pump_output(*child, on_output, on_tick);
  const int status = child->reap();
  // Stray jobs of the group, if any (the group outlives its reaped leader while they run).
  if (::kill(-pgid, SIGKILL) != 0 && errno != ESRCH) run.log << "fuzz: " << proc::os_error("kill") << "\n";
  child.reset();
  read_exec_log(run, res.run, run.elapsed());
  if (run.crashes_at_signal >= 0) res.run.crashes = run.crashes_at_signal;
  flog << "== exit status " << status << "\n";
  if (run.tty) std::fprintf(stderr, "\n");
  return true;
}

bool run_builtin(CampaignRun& run) {
  const CampaignOptions& opt = run.opt;
  CampaignResult& res = run.res;
  if (opt.target != "planner") {
    res.exit_code = 2;
    res.error = "--engine builtin runs the planner target only";
    return false;
  }
  res.fuzzer = "built-in random search (in process)";
  TargetConfig rec = run.cfg;
  rec.findings_dir = run.raw.string();
  FindingSink sink(rec);
  std::mt19937_64 rng(opt.seed ? opt.seed : static_cast<std::uint64_t>(std::time(nullptr)));
  std::vector<std::uint8_t> bytes;
  double last_show = -1;
  for (;;) {
    const double el = run.elapsed();
    if (el >= opt.max_time) break;
    if (proc::interrupted()) {
      res.interrupted = true;
      break;
    }
    bytes.resize(4 + rng() % 60);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    const Judgement j = run.judge_case(decode_case(bytes.data(), bytes.size(), run.sel), &sink);
    ++res.run.executions;
    const bool hit = j.kind == Judgement::finding || j.kind == Judgement::crash;
    if (hit && !j.known) sink.record(j.signature, j.case_line, j.detail);
    if (hit && stop_on_matches(run.cfg.stop_on, j.tags)) break;  // --stop-on, as the libFuzzer targets do
    if (el - last_show >= 0.5) {
      last_show = el;
      res.run.exec_per_s = el > 0 ? static_cast<double>(res.run.executions) / el : 0;
      show(run, res.run, el);
      maybe_checkpoint(run, res.run, el);
    }
  }
  if (run.tty) std::fprintf(stderr, "\n");
  if (run.planner)  // executions count every decoded input; those the model rejects never reach the planner
    run.log << "fuzz: " << run.planner->requests() << " case(s) through --planner-cmd, " << run.planner->starts()
            << " start(s)\n";
  return true;
}

}  // namespace

void pump_output(proc::Child& child, const std::function<void(const char*, std::size_t)>& on_output,
                 const std::function<void()>& on_tick) {
  const int fd = child.from_child();
  char buf[8192];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, 200);
    if (r > 0) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      on_output(buf, static_cast<std::size_t>(n));
    }
    on_tick();
  }
}

int run_capture(const std::vector<std::string>& argv, const proc::Env& env, double timeout_s, std::string& out) {
  std::optional<proc::Child> child = spawn(argv, env);
  if (!child) return -1;
  proc::GroupReaper reaper(child->pid());
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<std::int64_t>(timeout_s * 1000));
  bool killed = false;
  pump_output(
      *child,
      [&](const char* data, std::size_t n) {
        if (out.size() < (1u << 20)) out.append(data, n);
      },
      [&] {
        if (!killed && (Clock::now() > deadline || proc::interrupted())) {  // Ctrl-C: do not wait for it
          child->signal_group(SIGKILL);
          killed = true;
        }
      });
  const int status = child->reap();
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

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

bool run_engine(CampaignRun& run) {
  const CampaignOptions& opt = run.opt;
  CampaignResult& res = run.res;
  if (opt.engine == "libfuzzer") {
    if (!run_libfuzzer(run)) return false;
  } else if (opt.engine == "builtin") {
    if (!run_builtin(run)) return false;
  } else {
    res.exit_code = 2;
    res.error = "unknown engine '" + opt.engine + "' (libfuzzer | builtin)";
    return false;
  }
  res.run.seconds = run.elapsed();
  res.run.corpus = count_files(run.corpus);
  if (res.run.seconds > 0 && opt.engine == "builtin")
    res.run.exec_per_s = static_cast<double>(res.run.executions) / res.run.seconds;
  if (opt.engine == "libfuzzer" && res.run.seconds > 0 && res.run.executions > 0)
    res.run.exec_per_s = static_cast<double>(res.run.executions) / std::min(res.run.seconds, opt.max_time);
  return true;
}

}  // namespace cp::fuzz

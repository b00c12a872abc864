// `chunkproof prove` stopped by a signal (issue 22 item 6): SIGINT or SIGTERM to its process
// group (SIGINT inherited as ignored too) ends it with exit 3, the rows so far printed and an
// "interrupted" line, every worker killed and reaped by chunkproof itself; SIGKILL of chunkproof
// leaves no worker alive (parent-death signal). This process is a child subreaper, so a worker
// chunkproof failed to reap (dead or alive) would be ours afterwards and is caught.
// Deadlines are generous (a loaded 2-core CI machine); the measured times are printed.
#include <dirent.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "reference/proc/subprocess.h"

namespace cp {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// v6-current/cuda without the cache: its first rows prove in a second or two, the whole table
// takes tens of seconds (docs/proving.md), so a run is still going when the signal comes.
std::vector<std::string> prove_argv(bool ignore_sigint, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv;
  if (ignore_sigint)  // a script that ignores SIGINT; exec keeps the ignored disposition
    argv = {"/bin/sh", "-c", "trap '' INT; exec \"$0\" \"$@\""};
  for (const char* a :
       {CHUNKPROOF_BIN, "prove", "--version", "v6-current", "--platform", "cuda", "--no-cache", "--jobs", "2"})
    argv.emplace_back(a);
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// The processes whose parent is `pid` (/proc/N/stat: "N (comm) S PPID ...").
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f("/proc/" + name + "/stat");
    std::string stat((std::istreambuf_iterator<char>(f)), {});
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == pid) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  ::closedir(d);
  return out;
}

// A running `chunkproof prove`, its output so far (stdout and stderr, one pipe).
struct ProveRun {
  proc::Child child;
  std::string out;
  bool eof = false;
  // Reads for up to `seconds` or until `until` appears in the output (or end of file).
  bool pump(double seconds, const std::string& until = "") {
    const auto t0 = Clock::now();
    char buf[4096];
    while (!eof && since(t0) < seconds) {
      if (!until.empty() && out.find(until) != std::string::npos) return true;
      pollfd p{child.from_child(), POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const ssize_t n = ::read(child.from_child(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        eof = true;
      else
        out.append(buf, static_cast<std::size_t>(n));
    }
    return until.empty() ? eof : out.find(until) != std::string::npos;
  }
};

// Started, with a first case proved and its workers running.
ProveRun start(const std::vector<std::string>& argv, std::vector<pid_t>& workers) {
  ProveRun r{proc::Child::exec(argv, {.from_child = true})};
  const auto t0 = Clock::now();
  EXPECT_TRUE(r.pump(180, "] PROVED ")) << "no case proved within 180 s:\n" << r.out;
  workers = children_of(r.child.pid());
  EXPECT_FALSE(workers.empty()) << "no worker processes\n" << r.out;
  std::printf("first case proved after %.2f s, %zu worker(s)\n", since(t0), workers.size());
  return r;
}

// Every worker and the run's own group gone, nothing left to this subreaper.
void expect_nothing_left(pid_t pgid, const std::vector<pid_t>& workers) {
  EXPECT_EQ(::kill(-pgid, 0), -1) << "a process of chunkproof's group survives";
  EXPECT_EQ(errno, ESRCH);
  for (pid_t w : workers) {
    EXPECT_EQ(::kill(w, 0), -1) << "worker " << w << " survives";
    EXPECT_EQ(::kill(-w, 0), -1) << "a process of worker " << w << "'s group survives";
  }
  int st = 0;
  const pid_t orphan = ::waitpid(-1, &st, WNOHANG);
  EXPECT_EQ(orphan, -1) << "process " << orphan << " was left behind (" << proc::describe_status(st) << ")";
  EXPECT_EQ(errno, ECHILD);
}

// What a signalled run gave.
struct Stopped {
  int status = 0;
  std::string out;
  int proved_before_signal = 0;  // progress lines "] PROVED " printed before the signal
};

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// Signals the run's group once a case is proved: exit 3 within 30 s, nothing left behind.
Stopped interrupt_run(int sig, bool ignore_sigint, std::vector<std::string> extra = {}) {
  std::vector<pid_t> workers;
  ProveRun r = start(prove_argv(ignore_sigint, std::move(extra)), workers);
  const pid_t pgid = r.child.pid();
  Stopped s;
  s.proved_before_signal = count(r.out, "] PROVED ");
  const auto t0 = Clock::now();
  EXPECT_EQ(::kill(-pgid, sig), 0);
  if (!r.pump(30)) {  // still running: fail, and do not wait for it
    ADD_FAILURE() << "no end of output within 30 s of the signal";
    r.child.signal_group(SIGKILL);
  }
  s.status = r.child.reap();
  const double secs = since(t0);
  std::printf("signal %d -> exit in %.3f s (%s)\n", sig, secs, proc::describe_status(s.status).c_str());
  ::testing::Test::RecordProperty("signal_to_exit_ms", static_cast<int>(secs * 1000));
  EXPECT_TRUE(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 3) << proc::describe_status(s.status) << "\n" << r.out;
  expect_nothing_left(pgid, workers);
  s.out = std::move(r.out);
  return s;
}

// The table: the summary line, unfinished rows marked, the proved cases kept.
void expect_table(const Stopped& s, const std::string& sig_name) {
  EXPECT_NE(s.out.find("interrupted (" + sig_name + ") after"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("version        plat  inv   verdict"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("UNKNOWN         "), std::string::npos) << s.out;
  EXPECT_NE(s.out.find(" case(s) not run"), std::string::npos) << s.out;
}

class ProveInterrupt : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0); }
};

TEST_F(ProveInterrupt, SigintPrintsTheRowsSoFar) { expect_table(interrupt_run(SIGINT, false), "SIGINT"); }

TEST_F(ProveInterrupt, SigtermPrintsTheRowsSoFarAsJson) {
  const Stopped s = interrupt_run(SIGTERM, false, {"--json"});
  const auto at = s.out.find("{\"schema\":\"chunkproof.prove/1\"");
  ASSERT_NE(at, std::string::npos) << s.out;
  const auto j = nlohmann::json::parse(s.out.substr(at, s.out.find('\n', at) - at));
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_EQ(j["interrupted"], true);
  int proved = 0, unfinished = 0;
  for (const auto& r : j["results"]) {
    proved += r["cases_proved"].get<int>();
    if (r["cases_not_run"].get<int>() > 0) {
      ++unfinished;
      EXPECT_EQ(r["status"], "UNKNOWN") << r.dump();
    }
  }
  EXPECT_GE(proved, s.proved_before_signal);  // every case reported proved is in the results
  EXPECT_GT(unfinished, 0);
}

TEST_F(ProveInterrupt, SigtermStopsARunThatInheritedAnIgnoredSigint) {
  expect_table(interrupt_run(SIGTERM, true), "SIGTERM");
}

TEST_F(ProveInterrupt, SigintStopsARunThatInheritedAnIgnoredSigint) {
  // The guard installs its handler whatever was inherited (reference/proc/interrupt.h).
  expect_table(interrupt_run(SIGINT, true), "SIGINT");
}

// Regression (CI, stop 32): the worker list is taken just after a "PROVED" line, and the worker
// that proved that case may be finishing (exit 0, or already reaped by chunkproof) as chunkproof
// is killed — a worker that ended its case by itself is not a survivor. Every worker must end within 10 s; those still
// working must end by the parent-death SIGKILL, and at least one must have been working (the test's point).
TEST_F(ProveInterrupt, SigkillOfChunkproofLeavesNoWorker) {
  std::vector<pid_t> workers;
  ProveRun r = start(prove_argv(false), workers);
  ASSERT_EQ(::kill(r.child.pid(), SIGKILL), 0);  // chunkproof only: nothing can run in it now
  r.child.reap();
  const auto t0 = Clock::now();
  int killed = 0;
  for (pid_t w : workers) {  // orphans come to this subreaper
    int st = 0;
    pid_t got = 0;
    while (since(t0) < 10 && (got = ::waitpid(w, &st, WNOHANG)) == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (got == 0) ::kill(w, SIGKILL);            // the failure below: leave nothing running
    if (got == -1 && errno == ECHILD) continue;  // ended and reaped by chunkproof before the kill
    EXPECT_EQ(got, w) << "worker " << w << " outlived chunkproof by 10 s";
    const bool by_parent_death = WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
    const bool finished_its_case = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    EXPECT_TRUE(by_parent_death || finished_its_case) << proc::describe_status(st);
    killed += by_parent_death ? 1 : 0;
  }
  EXPECT_GT(killed, 0) << "no worker was still working when chunkproof was killed";
  std::printf("workers gone %.3f s after chunkproof's SIGKILL, %d of %zu by SIGKILL\n", since(t0), killed,
              workers.size());
}

}  // namespace
}  // namespace cp

// The workers (invariants/smt/prover_internal.h): `--jobs` forked processes fed task indices
// over pipes (dynamic scheduling), one line back per task; a worker that dies (the watchdog, out
// of memory) has its task reported UNKNOWN and is replaced, so a command always ends; an
// interrupt kills them all. Each is a proc::Child: its own process group, killed with this
// process. Also the on-disk cache of proved queries, keyed by the FNV-1a hash of their SMT-LIB2
// text.
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "invariants/smt/prover_internal.h"
#include "reference/proc/interrupt.h"
#include "reference/proc/subprocess.h"

namespace cp::smt::detail {

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}
std::string hex(std::uint64_t v) {
  std::ostringstream o;
  o << std::hex << v;
  return o.str();
}

bool cache_has(const std::string& dir, const std::string& hash) {
  return !dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / (hash + ".proved"));
}

void cache_store(const std::string& dir, const std::string& hash, const std::string& step_name) {
  if (dir.empty()) return;
  std::filesystem::create_directories(dir);
  std::ofstream(std::filesystem::path(dir) / (hash + ".proved")) << step_name << "\n";
}

namespace {

// Worker processes arm a wall-clock watchdog per step: Z3 4.8.12 does not always honour its own
// timeout inside the nonlinear solver. SIGALRM's default action ends the worker; the parent
// reports the task UNKNOWN ("watchdog") and starts a replacement worker.
bool g_in_worker = false;

std::string clean(std::string s) {
  for (char& ch : s)
    if (ch == '\t' || ch == '\n') ch = ' ';
  return s;
}
std::string serialize(const TaskOutcome& o) {
  std::ostringstream w;
  w << static_cast<int>(o.status) << '\t' << o.seconds << '\t' << o.queries << '\t' << o.cache_hits << '\t'
    << (o.disagrees ? 1 : 0) << '\t' << clean(o.case_line) << '\t' << clean(o.replay) << '\t' << clean(o.detail) << '\t'
    << clean(o.saved_to) << '\t' << (o.unbounded ? 1 : 0) << '\t' << clean(o.method) << '\n';
  return w.str();
}
TaskOutcome deserialize(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  for (char ch : line) {
    if (ch == '\t')
      f.push_back(cur), cur.clear();
    else if (ch != '\n')
      cur += ch;
  }
  f.push_back(cur);
  TaskOutcome o;
  if (f.size() < 11) {
    o.detail = "worker protocol error";
    return o;
  }
  o.status = static_cast<Status>(std::stoi(f[0]));
  o.seconds = std::stod(f[1]);
  o.queries = std::stoi(f[2]);
  o.cache_hits = std::stoi(f[3]);
  o.disagrees = f[4] == "1";
  o.case_line = f[5];
  o.replay = f[6];
  o.detail = f[7];
  o.saved_to = f[8];
  o.unbounded = f[9] == "1";
  o.method = f[10];
  return o;
}

bool write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

struct Worker {
  proc::Child child;  // its own process group, killed when this process dies (subprocess.h)
  int task = -1;      // running task, -1 idle
  std::string buf;
};

[[noreturn]] void worker_main(int in, int out, const std::vector<TaskKey>& tasks, const ProveOptions& opts) {
  g_in_worker = true;
  std::string buf;
  char tmp[256];
  for (;;) {
    const ssize_t n = ::read(in, tmp, sizeof tmp);
    if (n <= 0) _exit(0);
    buf.append(tmp, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      const int idx = std::stoi(buf.substr(0, nl));
      buf.erase(0, nl + 1);
      TaskOutcome o;
      try {
        o = run_task(tasks[static_cast<std::size_t>(idx)], opts);
      } catch (const std::exception& e) {
        disarm_watchdog();
        o.status = Status::unknown;
        o.detail = std::string("error: ") + e.what();
      }
      if (!write_all(out, std::to_string(idx) + '\t' + serialize(o))) _exit(1);
    }
  }
}

// The parent's side: a pool of workers, each running at most one task. A SIGINT/SIGTERM under
// an InterruptGuard (reference/proc/interrupt.h) stops it: no task is handed out any more and
// every worker is killed and reaped; run() then returns false.
class Pool {
 public:
  Pool(const std::vector<TaskKey>& tasks, const ProveOptions& opts, int jobs, const std::function<int()>& next_task,
       const std::function<void(int, const TaskOutcome&)>& absorb, const std::function<bool(int)>& obsolete)
      : tasks_(tasks),
        opts_(opts),
        next_task_(next_task),
        absorb_(absorb),
        obsolete_(obsolete),
        ws_(static_cast<std::size_t>(jobs)) {}

  bool run() {
    if (stopping()) return false;
    for (auto& w : ws_) spawn(w);
    for (auto& w : ws_) dispatch(w);
    while (!stopping()) {
      std::vector<pollfd> fds;
      std::vector<Worker*> who;
      for (auto& w : ws_)
        if (w.task >= 0) fds.push_back({w.child.from_child(), POLLIN, 0}), who.push_back(&w);
      if (fds.empty()) break;
      if (proc::interrupt_fd() >= 0) fds.push_back({proc::interrupt_fd(), POLLIN, 0});
      if (::poll(fds.data(), fds.size(), poll_timeout_ms()) < 0) {
        if (errno == EINTR) continue;  // a signal: the loop condition decides
        throw std::runtime_error(proc::os_error("poll (prover workers)"));
      }
      restarted_ = false;
      for (std::size_t i = 0; i < who.size() && !restarted_; ++i)  // a restart invalidates fds: poll again
        if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_from(*who[i]);
    }
    if (stopping()) {
      for (auto& w : ws_) stop(w);
      return false;
    }
    for (auto& w : ws_) {  // every worker is idle: end of file on its task pipe ends it
      w.child.close_to_child();
      w.child.reap();
      w.child.close_pipes();
    }
    return true;
  }

 private:
  // An interrupt, or the run's deadline passed (ProveOptions::deadline).
  bool stopping() const {
    return proc::interrupted() || (opts_.deadline && std::chrono::steady_clock::now() >= *opts_.deadline);
  }
  // Until the deadline (poll wakes up for it), else no timeout.
  int poll_timeout_ms() const {
    if (!opts_.deadline) return -1;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(*opts_.deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::clamp<std::int64_t>(left.count() + 1, 0, 1 << 30));
  }
  void spawn(Worker& w) {
    w.buf.clear();
    w.child = proc::Child::fork_call({.to_child = true, .from_child = true}, [&](proc::ChildEnds e) -> int {
      for (auto& o : ws_)  // the other workers' pipe ends: else they never see end of file
        if (&o != &w) o.child.close_pipes();
      worker_main(e.in, e.out, tasks_, opts_);
    });
  }
  // Kills a worker's group and reaps it; its task (if any) is dropped.
  void stop(Worker& w) {
    if (w.child.running()) w.child.kill_and_reap();
    w.child.close_pipes();
    w.task = -1;
  }
  void dispatch(Worker& w) {
    const int ti = stopping() ? -1 : next_task_();
    w.task = ti;
    // A worker that cannot take its task is killed: the next poll sees it die (task UNKNOWN).
    if (ti >= 0 && !write_all(w.child.to_child(), std::to_string(ti) + "\n")) w.child.signal_group(SIGKILL);
  }
  void read_from(Worker& w) {
    char tmp[4096];
    const ssize_t n = ::read(w.child.from_child(), tmp, sizeof tmp);
    if (n < 0 && errno == EINTR) return;  // poll again (the loop looks at the interrupt flag)
    // End of file: the worker died (watchdog, out of memory, signal); its task is unknown.
    if (n <= 0) {
      const int st = w.child.reap();
      w.child.close_pipes();
      TaskOutcome o;
      o.detail = WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM
                     ? "a query ran past the watchdog (3 x timeout + 10 s): Z3 did not stop"
                     : "worker process died (" + proc::describe_status(st) + ")";
      absorb_(w.task, o);
      w.task = -1;
      if (stopping()) return;  // no replacement: the pool is stopping
      spawn(w);
      dispatch(w);
      return;
    }
    w.buf.append(tmp, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = w.buf.find('\n')) != std::string::npos) {
      const std::string line = w.buf.substr(0, nl);
      w.buf.erase(0, nl + 1);
      const auto tab = line.find('\t');
      absorb_(std::stoi(line.substr(0, tab)), deserialize(line.substr(tab + 1)));
      dispatch(w);
    }
    stop_obsolete();
  }
  // A row that has its counterexample needs none of its other cases: stop the workers still
  // running one (a later case can take tens of seconds) and give them new tasks.
  void stop_obsolete() {
    for (auto& o : ws_) {
      if (o.task < 0 || !obsolete_(o.task)) continue;
      stop(o);
      restarted_ = true;
      if (stopping()) continue;  // no replacement: the pool is stopping
      spawn(o);
      dispatch(o);
    }
  }

  const std::vector<TaskKey>& tasks_;
  const ProveOptions& opts_;
  const std::function<int()>& next_task_;
  const std::function<void(int, const TaskOutcome&)>& absorb_;
  const std::function<bool(int)>& obsolete_;
  std::vector<Worker> ws_;
  bool restarted_ = false;
};

}  // namespace

void arm_watchdog(double timeout_s) {
  if (g_in_worker) ::alarm(static_cast<unsigned>(3 * timeout_s + 10));
}
void disarm_watchdog() {
  if (g_in_worker) ::alarm(0);
}

bool run_tasks(const std::vector<TaskKey>& tasks, const ProveOptions& opts, int jobs,
               const std::function<int()>& next_task, const std::function<void(int, const TaskOutcome&)>& absorb,
               const std::function<bool(int)>& obsolete) {
  if (tasks.empty()) return true;
  // Always in worker processes, one job too: a query in this process could not be stopped by
  // an interrupt (nor by the watchdog).
  return Pool(tasks, opts, std::max(1, jobs), next_task, absorb, obsolete).run();
}

}  // namespace cp::smt::detail

// The workers (invariants/smt/prover_internal.h): `--jobs` forked processes fed task indices
// over pipes (dynamic scheduling), one line back per task; a worker that dies (the watchdog, out
// of memory) has its task reported UNKNOWN and is replaced, so a command always ends. Also the
// on-disk cache of proved queries, keyed by the FNV-1a hash of their SMT-LIB2 text.
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
  pid_t pid = -1;
  int to = -1, from = -1;
  int task = -1;  // running task, -1 idle
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

// The parent's side: a pool of workers, each running at most one task.
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

  void run() {
    for (auto& w : ws_) spawn(w);
    for (auto& w : ws_) dispatch(w);
    for (;;) {
      std::vector<pollfd> fds;
      std::vector<Worker*> who;
      for (auto& w : ws_)
        if (w.task >= 0) fds.push_back({w.from, POLLIN, 0}), who.push_back(&w);
      if (fds.empty()) break;
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error("poll failed");
      }
      restarted_ = false;
      for (std::size_t i = 0; i < fds.size() && !restarted_; ++i)  // a restart invalidates fds: poll again
        if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_from(*who[i]);
    }
    for (auto& w : ws_) {
      ::close(w.to);
      ::close(w.from);
      int st = 0;
      ::waitpid(w.pid, &st, 0);
    }
  }

 private:
  void spawn(Worker& w) {
    int a[2], b[2];
    if (::pipe(a) != 0 || ::pipe(b) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      ::close(a[1]);
      ::close(b[0]);
      for (const auto& o : ws_)  // the other workers' pipe ends: else they never see EOF
        if (o.pid > 0 && &o != &w) ::close(o.to), ::close(o.from);
      worker_main(a[0], b[1], tasks_, opts_);
    }
    ::close(a[0]);
    ::close(b[1]);
    w.pid = pid;
    w.to = a[1];
    w.from = b[0];
    w.buf.clear();
  }
  void dispatch(Worker& w) {
    const int ti = next_task_();
    w.task = ti;
    if (ti >= 0) write_all(w.to, std::to_string(ti) + "\n");
  }
  void read_from(Worker& w) {
    char tmp[4096];
    const ssize_t n = ::read(w.from, tmp, sizeof tmp);
    if (n <= 0) {  // the worker died (watchdog, out of memory, signal): its task is unknown
      int st = 0;
      ::close(w.to);
      ::close(w.from);
      ::waitpid(w.pid, &st, 0);
      TaskOutcome o;
      o.detail = WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM
                     ? "a query ran past the watchdog (3 x timeout + 10 s): Z3 did not stop"
                     : "worker process died";
      absorb_(w.task, o);
      w.task = -1;
      w.pid = -1;
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
      ::kill(o.pid, SIGKILL);
      int st = 0;
      ::close(o.to);
      ::close(o.from);
      ::waitpid(o.pid, &st, 0);
      o.task = -1;
      o.pid = -1;
      spawn(o);
      dispatch(o);
      restarted_ = true;
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

void run_tasks(const std::vector<TaskKey>& tasks, const ProveOptions& opts, int jobs,
               const std::function<int()>& next_task, const std::function<void(int, const TaskOutcome&)>& absorb,
               const std::function<bool(int)>& obsolete) {
  if (jobs <= 1 || tasks.size() <= 1) {
    for (int ti; (ti = next_task()) >= 0;) absorb(ti, run_task(tasks[static_cast<std::size_t>(ti)], opts));
    return;
  }
  Pool(tasks, opts, jobs, next_task, absorb, obsolete).run();
}

}  // namespace cp::smt::detail

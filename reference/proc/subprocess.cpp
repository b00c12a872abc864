// Children in their own process group (subprocess.h): the child's setup, the two ways to start
// one (a function in a forked copy, an exec'd program), and the group kill and reap.
#include "reference/proc/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

extern char** environ;

namespace cp::proc {

std::string os_error(const std::string& what) { return what + ": " + std::strerror(errno); }

namespace {

constexpr int kSetupFailed = 127;  // the child could not be set up (or exec failed): like a shell

// Both pipes' four ends; [0] reads, [1] writes.
struct PipeSet {
  int to[2] = {-1, -1}, from[2] = {-1, -1};
  explicit PipeSet(Pipes p) {
    if ((p.to_child && ::pipe2(to, O_CLOEXEC) != 0) || (p.from_child && ::pipe2(from, O_CLOEXEC) != 0)) {
      const std::string what = os_error("pipe2");
      close_all();
      throw ProcError(what);
    }
  }
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  void close_all() {
    for (int* fd : {&to[0], &to[1], &from[0], &from[1]}) close_fd(*fd);
  }
  void close_parent_ends() { close_fd(to[1]), close_fd(from[0]); }
  void close_child_ends() { close_fd(to[0]), close_fd(from[1]); }
};

// The child's first steps, async-signal-safe calls only. False: it must not go on.
bool setup_child(pid_t parent, int parent_death_signal = SIGKILL) {
  if (::setpgid(0, 0) != 0) return false;
  if (::prctl(PR_SET_PDEATHSIG, parent_death_signal) != 0) return false;
  if (::getppid() != parent) return false;  // the parent died before prctl: nothing would kill us
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  if (::sigaction(SIGINT, &dfl, nullptr) != 0 || ::sigaction(SIGTERM, &dfl, nullptr) != 0) return false;
  sigset_t none;
  sigemptyset(&none);
  return ::sigprocmask(SIG_SETMASK, &none, nullptr) == 0;
}

// "cannot execute PATH (errno N)" on fd 2, async-signal-safe.
void say_exec_failed(const char* path, int err) {
  char num[16];
  int n = 0;
  do num[n++] = static_cast<char>('0' + err % 10), err /= 10;
  while (err > 0 && n < 15);
  char msg[512];
  std::size_t len = 0;
  auto put = [&](const char* s, std::size_t k) {
    for (std::size_t i = 0; i < k && len < sizeof msg; ++i) msg[len++] = s[i];
  };
  put("cannot execute ", 15);
  put(path, std::strlen(path));
  put(" (errno ", 8);
  while (n > 0) put(&num[--n], 1);
  put(")\n", 2);
  [[maybe_unused]] const ssize_t w = ::write(2, msg, len);
}

// The environment with `env` set on top, built before fork (the child may not allocate).
std::vector<std::string> merged_environment(const Env& env) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv(*e);
    bool replaced = false;
    for (const auto& [k, v] : env) replaced = replaced || kv.compare(0, k.size() + 1, k + "=") == 0;
    if (!replaced) out.push_back(kv);
  }
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& v) {
  std::vector<char*> p;
  for (auto& s : v) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

pid_t checked_fork(PipeSet& ps) {
  std::fflush(nullptr);  // else the child would inherit, and might write, the parent's buffers
  const pid_t pid = ::fork();
  if (pid < 0) {
    const std::string what = os_error("fork");
    ps.close_all();
    throw ProcError(what);
  }
  return pid;
}

}  // namespace

Child Child::fork_call(Pipes pipes, const std::function<int(ChildEnds)>& body, int parent_death_signal) {
  PipeSet ps(pipes);
  const pid_t parent = ::getpid();
  const pid_t pid = checked_fork(ps);
  if (pid == 0) {
    if (!setup_child(parent, parent_death_signal)) ::_exit(kSetupFailed);
    ps.close_parent_ends();
    int rc = kSetupFailed;
    try {
      rc = body({ps.to[0], ps.from[1]});
    } catch (...) {
    }
    ::_exit(rc);  // never return into the parent's code (its destructors would kill siblings)
  }
  ps.close_child_ends();
  Child c(pid, ps.to[1], ps.from[0]);
  c.join_group();
  return c;
}

Child Child::exec(const std::vector<std::string>& argv, Pipes pipes, const Env& env) {
  if (argv.empty()) throw ProcError("exec: empty argv");
  std::vector<std::string> args(argv), envs = merged_environment(env);
  const std::vector<char*> argp = pointers(args), envp = pointers(envs);
  PipeSet ps(pipes);
  const pid_t parent = ::getpid();
  const pid_t pid = checked_fork(ps);
  if (pid == 0) {
    if (!setup_child(parent)) ::_exit(kSetupFailed);
    if (ps.to[0] >= 0 && ::dup2(ps.to[0], 0) < 0) ::_exit(kSetupFailed);
    if (ps.from[1] >= 0 && (::dup2(ps.from[1], 1) < 0 || ::dup2(ps.from[1], 2) < 0)) ::_exit(kSetupFailed);
    ::execve(argp[0], argp.data(), envp.data());  // the pipes' originals close on exec
    say_exec_failed(argp[0], errno);
    ::_exit(kSetupFailed);
  }
  ps.close_child_ends();
  Child c(pid, ps.to[1], ps.from[0]);
  c.join_group();
  return c;
}

// The parent's half of the group setup: whichever of the two setpgid calls runs first makes the
// group, so a signal to it cannot miss the child. EACCES: the child has exec'd (after its own
// setpgid); ESRCH: it has exited already.
void Child::join_group() {
  if (::setpgid(pid_, pid_) == 0 || errno == EACCES || errno == ESRCH) return;
  const std::string what = os_error("setpgid");
  release();
  throw ProcError(what);
}

Child::Child(Child&& o) noexcept
    : pid_(std::exchange(o.pid_, -1)), to_(std::exchange(o.to_, -1)), from_(std::exchange(o.from_, -1)) {}

Child& Child::operator=(Child&& o) noexcept {
  if (this != &o) {
    release();
    pid_ = std::exchange(o.pid_, -1);
    to_ = std::exchange(o.to_, -1);
    from_ = std::exchange(o.from_, -1);
  }
  return *this;
}

Child::~Child() { release(); }

void Child::release() {
  close_pipes();
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);  // best effort: a destructor cannot report, and the reap below waits
  int st = 0;
  while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void Child::close_to_child() { PipeSet::close_fd(to_); }

void Child::close_pipes() {
  PipeSet::close_fd(to_);
  PipeSet::close_fd(from_);
}

bool Child::signal_group(int sig) const {
  if (pid_ <= 0) return false;
  if (::kill(-pid_, sig) == 0) return true;
  if (errno == ESRCH) return false;
  throw ProcError(os_error("kill(-" + std::to_string(pid_) + ")"));
}

int Child::reap() {
  if (pid_ <= 0) throw ProcError("reap: no running child");
  int st = 0;
  while (::waitpid(pid_, &st, 0) < 0)
    if (errno != EINTR) throw ProcError(os_error("waitpid(" + std::to_string(pid_) + ")"));
  pid_ = -1;
  return st;
}

std::optional<int> Child::try_reap() {
  if (pid_ <= 0) throw ProcError("reap: no running child");
  int st = 0;
  pid_t r;
  while ((r = ::waitpid(pid_, &st, WNOHANG)) < 0)
    if (errno != EINTR) throw ProcError(os_error("waitpid(" + std::to_string(pid_) + ")"));
  if (r == 0) return std::nullopt;
  pid_ = -1;
  return st;
}

int Child::kill_and_reap() {
  signal_group(SIGKILL);
  return reap();
}

std::string describe_status(int st) {
  if (WIFEXITED(st)) return "exit " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st))
    return "killed by signal " + std::to_string(WTERMSIG(st)) + " (" + ::strsignal(WTERMSIG(st)) + ")";
  return "wait status " + std::to_string(st);
}

}  // namespace cp::proc

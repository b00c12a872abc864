// One process-supervision utility for every room (STYLE round 3; LLVM's Support/Program.cpp):
// a child in its own process group, with pipes, a parent-death signal, a kill of its whole
// group and a reap, so no child outlives the process that started it, however that ends
// (exit, exception, SIGINT/SIGTERM through interrupt.h, SIGKILL through PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <csignal>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cp::proc {

// A runtime call failed; the message names the call and errno's text.
struct ProcError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// "<what>: <strerror(errno)>".
std::string os_error(const std::string& what);

// The pipes a child gets. For exec(), to_child is its stdin and from_child its stdout and
// stderr; for fork_call() the child's ends are handed to its function.
struct Pipes {
  bool to_child = false;    // the parent writes, the child reads
  bool from_child = false;  // the child writes, the parent reads
};
// The child's ends of its pipes (-1: none).
struct ChildEnds {
  int in = -1, out = -1;
};
using Env = std::vector<std::pair<std::string, std::string>>;

// A started child. In the child, before anything else: its own process group (setpgid in the
// child and in the parent, so no signal to the group can miss it), PR_SET_PDEATHSIG = SIGKILL
// or the signal the caller names (then getppid() closes the race with a parent that died
// first), SIGINT/SIGTERM back to their defaults and no blocked signals. The kernel sends the
// parent-death signal when the thread that forked ends: start children from a thread that
// outlives them (the main thread).
// Destroying a running Child kills its group and reaps it.
class Child {
 public:
  Child() = default;
  // Forks; the child runs body(ends) and _exits with its value (127 if it throws). The parent
  // must be single-threaded: the child runs ordinary (not async-signal-safe) code.
  // parent_death_signal: what the child gets when this process dies; a child that must clean up
  // first (abort a communicator, say) asks for SIGTERM and installs its handler in `body`.
  static Child fork_call(Pipes pipes, const std::function<int(ChildEnds)>& body, int parent_death_signal = SIGKILL);
  // Forks and executes argv (argv[0] a path) with `env` set on top of this environment.
  // Between fork and exec only async-signal-safe calls run (multi-threaded parents are fine).
  static Child exec(const std::vector<std::string>& argv, Pipes pipes, const Env& env = {});

  Child(Child&& o) noexcept;
  Child& operator=(Child&& o) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  pid_t pid() const { return pid_; }  // also its process group's id; -1 once reaped
  bool running() const { return pid_ > 0; }
  int to_child() const { return to_; }
  int from_child() const { return from_; }
  void close_to_child();
  // Closes the parent's pipe ends without touching the process: for a sibling forked after it,
  // whose copies would otherwise keep this child's pipes open.
  void close_pipes();

  // kill(-pgid, sig): the child and everything it started in its group. False if the group is
  // gone already (ESRCH); throws ProcError on any other failure.
  bool signal_group(int sig) const;
  // Blocks until the child has exited (EINTR retried); its wait status. The pipes stay open
  // (what the child wrote can still be read); close_pipes() or the destructor closes them.
  int reap();
  // Reaps the child if it has exited: its wait status, else nullopt.
  std::optional<int> try_reap();
  // SIGKILL to the group, then reap: the wait status.
  int kill_and_reap();

 private:
  Child(pid_t pid, int to, int from) : pid_(pid), to_(to), from_(from) {}
  void join_group();
  void release();  // kill + reap, the destructor's and move-assignment's part
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
};

// "exit N" or "killed by signal N (name)".
std::string describe_status(int wait_status);

}  // namespace cp::proc

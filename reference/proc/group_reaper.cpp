// The group watcher (group_reaper.h).
#include "reference/proc/group_reaper.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <string>

#include "reference/proc/subprocess.h"

namespace cp::proc {

GroupReaper::GroupReaper(pid_t pgid) {
  if (pgid <= 0) throw ProcError("GroupReaper: no process group " + std::to_string(pgid));
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw ProcError(os_error("pipe2 (group reaper)"));
  pid_ = ::fork();
  if (pid_ < 0) {
    const std::string what = os_error("fork (group reaper)");
    ::close(fds[0]);
    ::close(fds[1]);
    throw ProcError(what);
  }
  if (pid_ == 0) {
    // Async-signal-safe calls only. Keep the read end as fd 3 and close everything else (the
    // write end, and e.g. a folder lock: the watcher must hold nothing of its parent's).
    // Out of the owner's group first: a group kill of the owner (kill -9 -PGID, a supervisor
    // killing what it started) must not take the watcher with it. If that fails, the watcher
    // still covers every other way the owner can end.
    [[maybe_unused]] const int own = ::setpgid(0, 0);
    if (::dup2(fds[0], 3) < 0) ::_exit(127);
    for (int fd = 4; fd < 1024; ++fd) ::close(fd);
    char b;
    for (;;) {  // EINTR: a signal to this (the parent's) group, e.g. Ctrl-C; keep watching
      const ssize_t n = ::read(3, &b, 1);
      if (n == 0 || (n < 0 && errno != EINTR)) break;
    }
    ::kill(-pgid, SIGKILL);
    ::_exit(0);
  }
  // The parent moves the watcher out of the group too (both sides call setpgid, the usual
  // idiom): otherwise a group kill of the owner right after this constructor returns can reach
  // the watcher before its own setpgid ran, and nothing would kill the group
  // (GroupReaperTest.KillsTheGroupWhenItsOwnerIsKilled failed so under load).
  [[maybe_unused]] const int moved = ::setpgid(pid_, pid_);
  ::close(fds[0]);
  wfd_ = fds[1];
}

GroupReaper::~GroupReaper() {
  ::close(wfd_);  // end of file: the watcher kills the group and exits
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace cp::proc

// Kills a process group when this process ends in any way, SIGKILL included. PR_SET_PDEATHSIG
// (subprocess.h) ends only the direct child; what that child started itself (libFuzzer's
// fork-mode jobs) stays in its group, and this watcher kills the group: a forked process that
// blocks on a pipe only this process holds open, so end of file means this process is gone
// (the watcher leaves this process's group: a kill of that group spares it). Destroying the
// reaper kills the group too.
#pragma once

#include <sys/types.h>

namespace cp::proc {

class GroupReaper {
 public:
  // Throws ProcError (subprocess.h) when the pipe or the watcher cannot be made.
  explicit GroupReaper(pid_t pgid);
  GroupReaper(const GroupReaper&) = delete;
  GroupReaper& operator=(const GroupReaper&) = delete;
  ~GroupReaper();  // the group killed, the watcher reaped

 private:
  pid_t pid_ = -1;
  int wfd_ = -1;
};

}  // namespace cp::proc

// SIGINT and SIGTERM as a request to stop, for the lifetime of an InterruptGuard: a flag that
// loops read and a descriptor that poll() sees become readable, so a supervisor stops handing
// out work, kills and reaps its children and reports what it has (exit 3) instead of dying
// with its children still running.
//
// Both handlers are installed whatever disposition was inherited. A SIG_IGN inherited from a
// script (`cmd &` in a non-interactive shell ignores SIGINT) would otherwise make Ctrl-C do
// nothing for as long as the run lasts; and SIGTERM must stop a run cleanly whatever the
// script did with SIGINT. No SA_RESTART: a blocked poll/read/waitpid returns EINTR.
#pragma once

namespace cp::proc {

class InterruptGuard {
 public:
  // Installs the handlers and clears the flag (the outermost guard; an inner guard shares the
  // outer one's state). Throws ProcError (subprocess.h) when a runtime call fails.
  InterruptGuard();
  ~InterruptGuard();  // the previous dispositions back (the flag keeps its value)
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// A SIGINT or SIGTERM arrived while a guard was up (safe from any thread and from a handler).
bool interrupted();
// The first such signal's number, 0 when none.
int interrupt_signal();
// How many arrived (a supervisor may escalate on the second: ask politely, then kill).
int interrupt_count();
// Readable once interrupted (for poll()); -1 while no guard is up.
int interrupt_fd();

}  // namespace cp::proc

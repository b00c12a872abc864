// The interrupt guard (interrupt.h): one handler for SIGINT and SIGTERM that sets a flag and
// writes a byte to a self-pipe, so a poll() that started just before the signal still wakes.
#include "reference/proc/interrupt.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>

#include "reference/proc/subprocess.h"

namespace cp::proc {
namespace {

// The first signal's number. Lock-free atomics are async-signal-safe, and other threads (a
// worker pool's) read it too.
std::atomic<int> g_signal{0};
std::atomic<int> g_count{0};  // signals so far
static_assert(std::atomic<int>::is_always_lock_free);
int g_wake[2] = {-1, -1};  // the self-pipe: [0] polled, [1] written by the handler
int g_depth = 0;           // guards up (only the outermost installs)
struct sigaction g_old_int {};
struct sigaction g_old_term {};

extern "C" void on_interrupt(int sig) {
  const int saved = errno;  // the interrupted code may be about to read errno
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  g_count.fetch_add(1);
  if (g_wake[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(g_wake[1], &byte, 1);  // full pipe: already awake
  }
  errno = saved;
}

void close_wake_pipe() {
  for (int& fd : g_wake) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
}

}  // namespace

InterruptGuard::InterruptGuard() {
  if (g_depth++ > 0) return;
  g_signal.store(0);
  g_count.store(0);
  if (::pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    g_depth = 0;
    g_wake[0] = g_wake[1] = -1;
    throw ProcError(os_error("pipe2 (interrupt guard)"));
  }
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sa.sa_flags = 0;  // no SA_RESTART: blocked calls return EINTR and their loops look at the flag
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  if (::sigaction(SIGINT, &sa, &g_old_int) != 0 || ::sigaction(SIGTERM, &sa, &g_old_term) != 0) {
    const std::string what = os_error("sigaction (interrupt guard)");
    ::sigaction(SIGINT, &g_old_int, nullptr);
    g_depth = 0;
    close_wake_pipe();
    throw ProcError(what);
  }
}

InterruptGuard::~InterruptGuard() {
  if (--g_depth > 0) return;
  // Restoring cannot fail for dispositions sigaction itself returned.
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
  close_wake_pipe();
}

bool interrupted() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }
int interrupt_count() { return g_count.load(); }
int interrupt_fd() { return g_wake[0]; }

}  // namespace cp::proc

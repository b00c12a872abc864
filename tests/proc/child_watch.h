// Test helpers for tests/proc: reading a child's pipe and waiting for a process with generous
// deadlines (a loaded 2-core CI machine), and a fixture that makes this process a child
// subreaper, so orphans come to it and the test can see how they ended.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>

namespace cp::proc::test {

using Clock = std::chrono::steady_clock;
inline constexpr auto kDeadline = std::chrono::seconds(10);

// Everything the fd gives until end of file (or the deadline).
inline std::string read_all(int fd) {
  std::string out;
  const auto end = Clock::now() + kDeadline;
  char buf[512];
  while (Clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

// A line the child wrote: a number (a pid); -1 if none came.
inline pid_t read_pid(int fd) {
  std::string s;
  const auto end = Clock::now() + kDeadline;
  char ch;
  while (Clock::now() < end && s.find('\n') == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0 && ::read(fd, &ch, 1) == 1) s += ch;
  }
  return s.empty() ? -1 : static_cast<pid_t>(std::stol(s));
}

// The wait status of a child of this process within the deadline (and how long it took), else
// -1 (and a process still running is killed: a failing test leaves nothing behind). An orphan
// may not be this process's child yet (its parent is still dying): ECHILD is waited out too.
inline int wait_for(pid_t pid, double* seconds = nullptr) {
  const auto t0 = Clock::now();
  int st = 0;
  while (Clock::now() - t0 < kDeadline) {
    const pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) {
      if (seconds) *seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      return st;
    }
    if (r < 0 && errno != ECHILD) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  return -1;
}

// Orphans come to this process.
class Subreaper : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0); }
};

}  // namespace cp::proc::test

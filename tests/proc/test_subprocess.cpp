// The process utility (reference/proc/subprocess.h): a child runs in its own process group, is
// reaped (no zombie), a group kill reaches what it started, and a child whose parent is
// SIGKILLed dies by the parent-death signal. Deadlines are generous (a loaded 2-core CI
// machine); the times are printed, not asserted.
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

#include "reference/proc/subprocess.h"
#include "tests/proc/child_watch.h"

namespace cp::proc {
namespace {

using namespace cp::proc::test;

class Subprocess : public Subreaper {};

TEST_F(Subprocess, ForkCallOwnGroupAndReaped) {
  Child c = Child::fork_call({.from_child = true}, [](ChildEnds e) {
    const std::string s = std::to_string(::getpid()) + " " + std::to_string(::getpgid(0)) + "\n";
    return ::write(e.out, s.data(), s.size()) == static_cast<ssize_t>(s.size()) ? 7 : 1;
  });
  const pid_t pid = c.pid();
  const std::string out = read_all(c.from_child());
  EXPECT_EQ(out, std::to_string(pid) + " " + std::to_string(pid) + "\n");  // its own group, led by it
  const int st = c.reap();
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 7) << describe_status(st);
  EXPECT_FALSE(c.running());
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);  // reaped: no zombie left
  EXPECT_EQ(errno, ECHILD);
}

TEST_F(Subprocess, ExecMergesOutputSetsEnvAndDefaultsSignals) {
  // The child starts with SIGINT back at its default even though this process ignores it.
  struct sigaction ign {
  }, old{};
  ign.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGINT, &ign, &old), 0);
  Child c = Child::exec({"/bin/sh", "-c", "echo \"$CP_X\"; echo err >&2; grep SigIgn /proc/self/status"},
                        {.from_child = true}, {{"CP_X", "forty two"}});
  ASSERT_EQ(::sigaction(SIGINT, &old, nullptr), 0);
  const std::string out = read_all(c.from_child());
  const int st = c.reap();
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << describe_status(st);
  EXPECT_NE(out.find("forty two\nerr\n"), std::string::npos) << out;
  // SIGINT is bit 1 of the mask; sh itself ignores nothing it was not given.
  const auto at = out.find("SigIgn:");
  ASSERT_NE(at, std::string::npos) << out;
  const unsigned long mask = std::stoul(out.substr(at + 7), nullptr, 16);
  EXPECT_EQ(mask & (1ul << (SIGINT - 1)), 0ul) << out;
}

TEST_F(Subprocess, ExecFailureIsExit127WithAMessage) {
  Child c = Child::exec({"/nonexistent/program"}, {.from_child = true});
  const std::string out = read_all(c.from_child());
  const int st = c.reap();
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 127) << describe_status(st);
  EXPECT_NE(out.find("cannot execute /nonexistent/program"), std::string::npos) << out;
}

TEST_F(Subprocess, GroupKillReachesWhatTheChildStarted) {
  // sh starts a sleep in the background (same group) and waits for it.
  Child c = Child::exec({"/bin/sh", "-c", "sleep 100 & echo $!; wait"}, {.from_child = true});
  const pid_t grandchild = read_pid(c.from_child());
  ASSERT_GT(grandchild, 0);
  EXPECT_EQ(::getpgid(grandchild), c.pid());
  const int st = c.kill_and_reap();
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << describe_status(st);
  double s = 0;
  const int gst = wait_for(grandchild, &s);  // the orphan came to this (subreaper) process
  EXPECT_TRUE(gst != -1 && WIFSIGNALED(gst) && WTERMSIG(gst) == SIGKILL) << describe_status(gst);
  std::printf("grandchild gone %.3f s after the group kill\n", s);
}

TEST_F(Subprocess, DestructorKillsAndReaps) {
  pid_t pid = -1;
  {
    Child c = Child::exec({"/bin/sleep", "100"}, {});
    pid = c.pid();
    ASSERT_EQ(::kill(pid, 0), 0);
  }
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_EQ(::kill(-pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST_F(Subprocess, ParentDeathSignalKillsTheChildOfAKilledParent) {
  // middle starts a sleeper (its own group, not middle's) and reports its pid; then middle is
  // SIGKILLed: only PR_SET_PDEATHSIG can end the sleeper.
  // The sleeper reports only once its setup is done: killed before that, it would see its
  // parent gone and exit 127 itself (the race the getppid() check closes), which is not what
  // this test is about.
  Child middle = Child::fork_call({.from_child = true}, [](ChildEnds e) {
    Child sleeper = Child::exec({"/bin/sh", "-c", "echo ready; exec sleep 100"}, {.from_child = true});
    char ready = 0;
    if (::read(sleeper.from_child(), &ready, 1) != 1) return 1;
    const std::string s = std::to_string(sleeper.pid()) + "\n";
    if (::write(e.out, s.data(), s.size()) != static_cast<ssize_t>(s.size())) return 1;
    ::pause();
    return 0;
  });
  const pid_t sleeper = read_pid(middle.from_child());
  ASSERT_GT(sleeper, 0);
  EXPECT_EQ(::getpgid(sleeper), sleeper);  // its own group: the group kill below misses it
  const int st = middle.kill_and_reap();
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << describe_status(st);
  double s = 0;
  const int sst = wait_for(sleeper, &s);
  EXPECT_TRUE(sst != -1 && WIFSIGNALED(sst) && WTERMSIG(sst) == SIGKILL) << describe_status(sst);
  std::printf("orphaned child gone %.3f s after its parent's SIGKILL\n", s);
}

TEST_F(Subprocess, ParentDeathSignalCanBeChosen) {
  // As above, with the sleeper asking for SIGTERM on its parent's death (a multi-GPU rank does,
  // to abort its communicator first): its handler runs and reports, then it exits 3.
  Child middle = Child::fork_call({.from_child = true}, [](ChildEnds e) {
    Child sleeper = Child::fork_call(
        {.from_child = true},
        [](ChildEnds se) {
          static volatile std::sig_atomic_t term = 0;
          std::signal(SIGTERM, [](int) { term = 1; });
          if (::write(se.out, "r", 1) != 1) return 1;
          while (term == 0) ::usleep(1000);  // no pause(): the signal may come before it
          return 3;
        },
        SIGTERM);
    char ready = 0;
    if (::read(sleeper.from_child(), &ready, 1) != 1) return 1;
    const std::string s = std::to_string(sleeper.pid()) + "\n";
    if (::write(e.out, s.data(), s.size()) != static_cast<ssize_t>(s.size())) return 1;
    ::pause();
    return 0;
  });
  const pid_t sleeper = read_pid(middle.from_child());
  ASSERT_GT(sleeper, 0);
  const int st = middle.kill_and_reap();
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << describe_status(st);
  double s = 0;
  const int sst = wait_for(sleeper, &s);
  EXPECT_TRUE(sst != -1 && WIFEXITED(sst) && WEXITSTATUS(sst) == 3) << describe_status(sst);
  std::printf("orphaned child ended by its SIGTERM handler %.3f s after its parent's SIGKILL\n", s);
}

TEST_F(Subprocess, ExceptionInTheChildIsExit127) {
  Child c = Child::fork_call({}, [](ChildEnds) -> int { throw std::runtime_error("no"); });
  const int st = c.reap();
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 127) << describe_status(st);
}

}  // namespace
}  // namespace cp::proc

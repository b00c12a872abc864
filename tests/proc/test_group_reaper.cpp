// proc::GroupReaper (reference/proc/group_reaper.h): what a child started in its group (no
// parent-death signal of its own) dies when the child's owner is SIGKILLed, and when the reaper
// is destroyed.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include "reference/proc/group_reaper.h"
#include "reference/proc/subprocess.h"

namespace cp::proc {
namespace {

using Clock = std::chrono::steady_clock;

pid_t read_pid(int fd) {
  std::string s;
  const auto end = Clock::now() + std::chrono::seconds(10);
  char ch;
  while (Clock::now() < end && s.find('\n') == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0 && ::read(fd, &ch, 1) == 1) s += ch;
  }
  return s.empty() ? -1 : static_cast<pid_t>(std::stol(s));
}

// The status of a child of this (subreaper) process within 10 s, else -1 (and it is killed).
int wait_for(pid_t pid) {
  const auto end = Clock::now() + std::chrono::seconds(10);
  int st = 0;
  while (Clock::now() < end) {
    if (::waitpid(pid, &st, WNOHANG) == pid) return st;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  return -1;
}

void reap_orphans() {  // the owner's watcher and shell, reparented here
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

class GroupReaperTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0); }
};

TEST_F(GroupReaperTest, KillsTheGroupWhenItsOwnerIsKilled) {
  // owner starts sh, whose background sleep has no parent-death signal; only the reaper can
  // end the sleep once owner is SIGKILLed.
  Child owner = Child::fork_call({.from_child = true}, [](ChildEnds e) {
    Child sh = Child::exec({"/bin/sh", "-c", "sleep 100 & echo $!; wait"}, {.from_child = true});
    GroupReaper reaper(sh.pid());
    const std::string line = std::to_string(read_pid(sh.from_child())) + "\n";
    if (::write(e.out, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return 1;
    ::pause();
    return 0;
  });
  const pid_t sleeper = read_pid(owner.from_child());
  ASSERT_GT(sleeper, 0);
  owner.kill_and_reap();
  const int st = wait_for(sleeper);
  EXPECT_TRUE(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << describe_status(st);
  reap_orphans();
}

TEST_F(GroupReaperTest, KillsTheGroupWhenDestroyed) {
  Child sh = Child::exec({"/bin/sh", "-c", "sleep 100 & echo $!; wait"}, {.from_child = true});
  const pid_t sleeper = read_pid(sh.from_child());
  ASSERT_GT(sleeper, 0);
  { GroupReaper reaper(sh.pid()); }
  const int st = sh.reap();
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << describe_status(st);
  const int sst = wait_for(sleeper);  // orphaned to this subreaper once sh died
  EXPECT_TRUE(sst != -1 && WIFSIGNALED(sst) && WTERMSIG(sst) == SIGKILL) << describe_status(sst);
}

}  // namespace
}  // namespace cp::proc

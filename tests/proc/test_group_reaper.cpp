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
#include "tests/proc/child_watch.h"

namespace cp::proc {
namespace {

using namespace cp::proc::test;

void reap_orphans() {  // the owner's watcher and shell, reparented here
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

class GroupReaperTest : public Subreaper {};

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

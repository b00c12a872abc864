// The interrupt guard (reference/proc/interrupt.h): SIGINT and SIGTERM set the flag whatever was
// inherited (SIG_IGN included), wake a poll on interrupt_fd(), interrupt a blocked read (no
// SA_RESTART), nest, and leave the previous dispositions behind.
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "reference/proc/interrupt.h"
#include "reference/proc/subprocess.h"

namespace cp::proc {
namespace {

// A child that sends `sig` to this process after `ms` milliseconds.
Child signal_me_later(int sig, int ms) {
  const pid_t me = ::getpid();
  return Child::fork_call({}, [=](ChildEnds) {
    ::usleep(static_cast<useconds_t>(ms) * 1000);
    return ::kill(me, sig) == 0 ? 0 : 1;
  });
}

void* disposition(int sig) {
  struct sigaction now {};
  ::sigaction(sig, nullptr, &now);
  return reinterpret_cast<void*>(now.sa_handler);
}

TEST(InterruptGuard, OverridesAnInheritedIgnoreAndRestoresIt) {
  ASSERT_NE(std::signal(SIGINT, SIG_IGN), SIG_ERR);
  {
    InterruptGuard g;
    EXPECT_FALSE(interrupted());
    EXPECT_NE(disposition(SIGINT), reinterpret_cast<void*>(SIG_IGN));
    ASSERT_EQ(::raise(SIGINT), 0);
    EXPECT_TRUE(interrupted());
    EXPECT_EQ(interrupt_signal(), SIGINT);
    pollfd p{interrupt_fd(), POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 0), 1);
  }
  EXPECT_EQ(disposition(SIGINT), reinterpret_cast<void*>(SIG_IGN));
  EXPECT_EQ(interrupt_fd(), -1);
  ASSERT_NE(std::signal(SIGINT, SIG_DFL), SIG_ERR);
}

TEST(InterruptGuard, SigtermWakesABlockedPoll) {
  InterruptGuard g;
  Child sender = signal_me_later(SIGTERM, 100);
  pollfd p{interrupt_fd(), POLLIN, 0};
  int r = -1;
  for (int i = 0; i < 100 && !(r > 0); ++i) r = ::poll(&p, 1, 100);  // up to 10 s
  EXPECT_TRUE(interrupted());
  EXPECT_EQ(interrupt_signal(), SIGTERM);
  sender.reap();
}

TEST(InterruptGuard, ABlockedReadReturnsEintr) {
  InterruptGuard g;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  Child sender = signal_me_later(SIGINT, 100);
  Child watchdog = signal_me_later(SIGKILL, 20000);  // a read that never returns ends the test binary
  char b;
  const ssize_t n = ::read(fds[0], &b, 1);  // nobody writes: only the signal ends this
  const int err = errno;
  EXPECT_EQ(n, -1);
  EXPECT_EQ(err, EINTR);
  EXPECT_TRUE(interrupted());
  ::close(fds[0]);
  ::close(fds[1]);
  sender.reap();
}

TEST(InterruptGuard, NestsAndClearsOnlyInTheOutermost) {
  InterruptGuard outer;
  ASSERT_EQ(::raise(SIGTERM), 0);
  {
    InterruptGuard inner;
    EXPECT_TRUE(interrupted());  // not cleared by the inner guard
  }
  EXPECT_NE(interrupt_fd(), -1);   // the outer guard is still up
  ASSERT_EQ(::raise(SIGTERM), 0);  // still handled (the test binary lives on)
  EXPECT_EQ(interrupt_signal(), SIGTERM);
}

TEST(InterruptGuard, ChildrenStartWithDefaultDispositions) {
  InterruptGuard g;
  Child c = Child::fork_call({}, [](ChildEnds) {
    return disposition(SIGINT) == reinterpret_cast<void*>(SIG_DFL) &&
                   disposition(SIGTERM) == reinterpret_cast<void*>(SIG_DFL)
               ? 0
               : 1;
  });
  const int st = c.reap();
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << describe_status(st);
}

}  // namespace
}  // namespace cp::proc

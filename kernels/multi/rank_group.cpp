// The rank processes and the coordinator's view of them (rank_group.h).
#include "kernels/multi/rank_group.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <ostream>

#include "kernels/runtime.h"

namespace cp::gpu::multi {

namespace {

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) { g_stop = 1; }

// A rank: its GPU, the unique id (rank 0 makes it, the others get it through the coordinator),
// the communicator, then the job. Returns the exit code (the parent-death signal is SIGTERM:
// on_stop_signal, so a collective wait aborts the communicator).
int rank_process(int rank, int ranks, int to_parent, int from_parent, double timeout_s, const RankJob& job) {
  std::signal(SIGTERM, on_stop_signal);  // the coordinator's stop, or its death
  std::signal(SIGPIPE, SIG_IGN);
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);  // NVLink multicast off (no cuMulticastCreate)
  const Emit emit = [&](Msg m, std::uint32_t i, const std::string& p) {
    if (!send(to_parent, m, i, p)) ::_exit(5);  // the coordinator is gone
  };
  int code = 0;
  try {
    set_device(rank);
    Writer hello;
    hello.i64(::getpid());
    emit(Msg::hello, 0, hello.b);
    std::vector<unsigned char> id;
    if (rank == 0) {
      id = collective_unique_id();
      emit(Msg::unique_id, 0, std::string(id.begin(), id.end()));
    } else {
      pollfd p{from_parent, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(timeout_s * 1000));
      Header h{};
      if (ready <= 0 || !read_all(from_parent, &h, sizeof h) || h.type != static_cast<std::uint32_t>(Msg::unique_id))
        throw CollectiveError("no unique id from the coordinator within the timeout");
      id.resize(h.len);
      if (!read_all(from_parent, id.data(), id.size())) throw CollectiveError("unique id: pipe closed");
    }
    Communicator comm(id, rank, ranks, timeout_s, &g_stop);
    try {
      job(comm, emit);
    } catch (const std::exception& e) {
      comm.abort();  // the peers must not wait for this rank's next collective
      emit(Msg::error, 0, e.what());
      ::_exit(3);
    }
    emit(Msg::done, 0, {});
  } catch (const std::exception& e) {
    emit(Msg::error, 0, e.what());
    code = 3;
  }
  ::close(to_parent);
  return code;
}

}  // namespace

Group::Group(int ranks, double timeout_s, const RankJob& job)
    : ranks_(ranks),
      timeout_s_(timeout_s),
      box_(static_cast<std::size_t>(ranks)),
      reaped_(static_cast<std::size_t>(ranks), 0),
      status_(static_cast<std::size_t>(ranks)) {
  for (int r = 0; r < ranks; ++r) {
    children_.push_back(proc::Child::fork_call(
        {.to_child = true, .from_child = true},
        [&, r](proc::ChildEnds e) {
          for (auto& c : children_) c.close_pipes();  // this copy must not hold the earlier ranks' pipes open
          return rank_process(r, ranks, e.out, e.in, timeout_s, job);
        },
        SIGTERM));
    pids_.push_back(children_.back().pid());
    box_[static_cast<std::size_t>(r)].pid = pids_.back();
    box_[static_cast<std::size_t>(r)].last = Clock::now();
  }
  for (int r = 0; r < ranks; ++r) readers_.emplace_back([this, r] { read_loop(r); });
}

Group::~Group() {
  try {
    stop_all(nullptr);
  } catch (const std::exception&) {  // a failed kill: the Child destructors still kill and reap
  }
  for (auto& t : readers_) t.join();
}

std::optional<std::string> Group::wait(const std::function<bool(const std::vector<Inbox>&)>& ready,
                                       const std::function<bool(const Inbox&)>& reported, const std::string& what) {
  std::unique_lock<std::mutex> lk(mu_);
  const auto start = Clock::now();
  for (;;) {
    if (ready(box_)) return std::nullopt;
    bool failed = false;
    for (const Inbox& b : box_) failed = failed || b.error || (b.closed && !b.done);
    if (failed) {
      // Let the other ranks' news land (a peer's death often reaches NCCL on the survivors
      // at the same moment), then report every rank: the dead first, then errors, then silence.
      lk.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      lk.lock();
      std::vector<std::string> died, errors, silent;
      const auto now = Clock::now();
      for (int r = 0; r < ranks_; ++r) {
        Inbox& b = box_[static_cast<std::size_t>(r)];
        const std::string who =
            "rank " + std::to_string(r) + " (pid " + std::to_string(b.pid) + ", GPU " + std::to_string(r) + ")";
        if (b.closed && !b.done && !b.error) {
          lk.unlock();
          const std::string st = reap(r);
          lk.lock();
          died.push_back(who + " died " + what + " (" + st + ")");
        } else if (b.error) {
          errors.push_back(who + " reports: " + *b.error);
        } else if (!reported(b) && now - b.last > std::chrono::duration<double>(timeout_s_ / 2)) {
          silent.push_back(who + " silent for " +
                           std::to_string(static_cast<int>(std::chrono::duration<double>(now - b.last).count())) +
                           " s (hung?)");
        }
      }
      std::string text;
      for (const auto* v : {&died, &errors, &silent})
        for (const auto& x : *v) text += (text.empty() ? "" : "\n  ") + x;
      return text;
    }
    // Hang detection.
    Clock::time_point first{};
    bool any = false;
    for (const Inbox& b : box_)
      if (reported(b)) {
        if (!any || b.last < first) first = b.last;
        any = true;
      }
    const auto now = Clock::now();
    const auto limit = std::chrono::duration<double>(timeout_s_);
    std::string names;
    for (int r = 0; r < ranks_; ++r)
      if (!reported(box_[static_cast<std::size_t>(r)]))
        names += (names.empty() ? "" : ", ") + std::string("rank ") + std::to_string(r) + " (pid " +
                 std::to_string(pids_[static_cast<std::size_t>(r)]) + ", GPU " + std::to_string(r) + ")";
    if (names.empty()) names = "the ranks";  // all reported; what is missing is the emulation
    if ((any && names != "the ranks" && now - first > limit) || now - start > 10 * limit)
      return names + " did not respond " + what + " within " +
             std::to_string(static_cast<int>(std::chrono::duration<double>(now - (any ? first : start)).count())) +
             " s (hung)";
    cv_.wait_for(lk, std::chrono::milliseconds(50));
  }
}

void Group::stop_all(std::ostream* log) {
  for (int r = 0; r < ranks_; ++r)
    if (!reaped_[static_cast<std::size_t>(r)]) {
      children_[static_cast<std::size_t>(r)].signal_group(SIGTERM);
      children_[static_cast<std::size_t>(r)].signal_group(SIGCONT);  // a stopped rank must see it too
    }
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  for (int r = 0; r < ranks_; ++r) {
    const auto k = static_cast<std::size_t>(r);
    while (!reaped_[k] && Clock::now() < deadline) {
      if (const auto st = children_[k].try_reap()) {
        reaped_[k] = 1;
        status_[k] = proc::describe_status(*st);
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    if (!reaped_[k]) {
      const int st = children_[k].kill_and_reap();
      reaped_[k] = 1;
      status_[k] = proc::describe_status(st) + " after not stopping within 10 s of SIGTERM";
    }
    if (log) {
      std::lock_guard<std::mutex> lk(mu_);
      const Inbox& b = box_[k];
      *log << "  rank " << r << " (pid " << b.pid << "): " << status_[k];
      if (b.error) *log << "; its last message: " << *b.error;
      *log << "\n";
    }
  }
}

std::string Group::reap(int r) {
  const auto k = static_cast<std::size_t>(r);
  if (reaped_[k]) return status_[k];
  for (int n = 0; n < 200; ++n) {  // up to 2 s for the exit to be reported after the pipe closed
    if (const auto st = children_[k].try_reap()) {
      reaped_[k] = 1;
      status_[k] = proc::describe_status(*st);
      return status_[k];
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "its pipe closed; the process has not exited yet";
}

bool Group::finish() {
  bool ok = true;
  for (int r = 0; r < ranks_; ++r) {
    const auto k = static_cast<std::size_t>(r);
    if (reaped_[k]) continue;
    const int st = children_[k].reap();
    reaped_[k] = 1;
    status_[k] = proc::describe_status(st);
    ok = ok && WIFEXITED(st) && WEXITSTATUS(st) == 0;
  }
  return ok;
}

void Group::read_loop(int r) {
  const int fd = children_[static_cast<std::size_t>(r)].from_child();
  for (;;) {
    Header h{};
    std::string payload;
    bool ok = read_all(fd, &h, sizeof h);
    if (ok) {
      payload.resize(h.len);
      ok = read_all(fd, payload.data(), payload.size());
    }
    std::lock_guard<std::mutex> lk(mu_);
    Inbox& b = box_[static_cast<std::size_t>(r)];
    b.last = Clock::now();
    if (!ok) {
      b.closed = true;
      cv_.notify_all();
      return;
    }
    switch (static_cast<Msg>(h.type)) {
      case Msg::hello: b.hello = true; break;
      case Msg::unique_id: b.unique_id.assign(payload.begin(), payload.end()); break;
      case Msg::result: b.result[h.index] = std::move(payload); break;
      case Msg::emulation: b.emulation[h.index] = std::move(payload); break;
      case Msg::bench: b.bench[h.index] = std::move(payload); break;
      case Msg::error: b.error = payload; break;
      case Msg::done: b.done = true; break;
    }
    cv_.notify_all();
  }
}

int count_devices(std::string& why) {
  proc::Child probe = proc::Child::fork_call({.from_child = true}, [](proc::ChildEnds e) {
    std::string w;
    int n = 0;
    try {
      n = device_count(w);
    } catch (const std::exception& ex) {
      w = ex.what();
    }
    Writer out;
    out.i64(n);
    out.str(w);
    write_all(e.out, out.b.data(), out.b.size());
    return 0;
  });
  std::string buf;
  char tmp[512];
  for (ssize_t k; (k = ::read(probe.from_child(), tmp, sizeof tmp)) != 0;) {
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) break;
    buf.append(tmp, static_cast<std::size_t>(k));
  }
  const int st = probe.reap();
  if (buf.size() < sizeof(std::int64_t)) {
    why = "the device probe process " + proc::describe_status(st);
    return 0;
  }
  Reader rd{buf};
  const auto n = static_cast<int>(rd.i64());
  why = rd.str();
  return n;
}

}  // namespace cp::gpu::multi

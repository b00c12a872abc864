// The rank processes of multi-GPU DCP and the coordinator's view of them (multi_rank.h for the
// model; internal to kernels/multi/). Every rank is a reference/proc Child: its own process
// group, pipes both ways, SIGTERM when the coordinator dies (it aborts its communicator), a
// group kill and a reap; one reader thread per rank pipe fills that rank's Inbox.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kernels/collective.h"
#include "kernels/multi/wire.h"
#include "reference/proc/subprocess.h"

namespace cp::gpu::multi {

using Clock = std::chrono::steady_clock;

// What a rank does once its communicator is up. `emit` sends a message to the coordinator.
using Emit = std::function<void(Msg, std::uint32_t, const std::string&)>;
using RankJob = std::function<void(Communicator&, const Emit&)>;

// What one rank has sent so far.
struct Inbox {
  std::map<std::uint32_t, std::string> result, emulation, bench;
  std::optional<std::string> error;
  std::vector<unsigned char> unique_id;
  long pid = -1;
  bool hello = false, done = false, closed = false;
  Clock::time_point last{};
};

class Group {
 public:
  // Starts `ranks` rank processes (rank r on GPU r) running `job`; from the main thread, before
  // any other thread exists (proc::Child::fork_call).
  Group(int ranks, double timeout_s, const RankJob& job);
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  ~Group();  // every rank stopped (stop_all) and reaped

  int ranks() const { return ranks_; }
  long pid(int r) const { return pids_[static_cast<std::size_t>(r)]; }

  // Waits until `ready` holds, or a rank failed: then the failure text (naming the rank).
  // `reported`: whether a rank has sent what is awaited; a rank is declared hung when another
  // rank reported `timeout_s` ago and it has not (or nobody reported for 10 timeouts).
  std::optional<std::string> wait(const std::function<bool(const std::vector<Inbox>&)>& ready,
                                  const std::function<bool(const Inbox&)>& reported, const std::string& what);

  template <class F>
  auto with(F&& f) {
    std::lock_guard<std::mutex> lk(mu_);
    return f(box_);
  }

  bool send_to(int r, Msg m, const std::string& payload) {
    return send(children_[static_cast<std::size_t>(r)].to_child(), m, 0, payload);
  }

  // Stops every rank still running: SIGTERM to its group (a rank in a collective wait aborts its
  // communicator and exits; SIGCONT too, for a stopped rank), then SIGKILL after a grace period.
  // Writes each rank's end to `log`.
  void stop_all(std::ostream* log);
  // Waits (up to 2 s) for a rank that closed its pipe; its end.
  std::string reap(int r);
  // Every rank finished (Msg::done) and exited 0.
  bool finish();

 private:
  void read_loop(int r);

  int ranks_;
  double timeout_s_;
  std::vector<proc::Child> children_;
  std::vector<long> pids_;
  std::vector<Inbox> box_;
  std::vector<std::thread> readers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<char> reaped_;  // main thread only, like status_
  std::vector<std::string> status_;
};

// Device count without touching the GPU runtime in this process (the ranks are forked from it,
// and a runtime initialised before fork() is unusable in the child): a short-lived child asks.
int count_devices(std::string& why);

}  // namespace cp::gpu::multi

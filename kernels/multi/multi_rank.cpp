// Multi-GPU DCP: the coordinator and the rank processes (see multi_rank.h for the model).
#include "kernels/multi/multi_rank.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "kernels/collective.h"
#include "kernels/harness/bit_diff.h"
#include "kernels/harness/pipeline.h"
#include "kernels/runtime.h"
#include "reference/mla/check.h"
#include "reference/mla/inputs.h"
#include "reference/mla/math/all.h"

namespace cp::gpu::multi {

namespace {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Wire format: [u32 type][u32 case][u64 length][payload] over pipes, in host byte order (both
// ends are the same binary on the same host).

enum class Msg : std::uint32_t { hello = 1, unique_id, result, emulation, bench, error, done };

struct Writer {
  std::string b;
  void raw(const void* p, std::size_t n) { b.append(static_cast<const char*>(p), n); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void i64(std::int64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void floats(const std::vector<float>& v) {
    u64(v.size());
    raw(v.data(), v.size() * sizeof(float));
  }
};

struct Reader {
  const std::string& b;
  std::size_t at = 0;
  void raw(void* p, std::size_t n) {
    if (at + n > b.size()) throw std::runtime_error("multi-rank: truncated message from a rank");
    std::memcpy(p, b.data() + at, n);
    at += n;
  }
  std::uint64_t u64() {
    std::uint64_t v;
    raw(&v, sizeof v);
    return v;
  }
  std::int64_t i64() {
    std::int64_t v;
    raw(&v, sizeof v);
    return v;
  }
  double f64() {
    double v;
    raw(&v, sizeof v);
    return v;
  }
  std::string str() {
    std::string s(u64(), '\0');
    raw(s.data(), s.size());
    return s;
  }
  std::vector<float> floats() {
    std::vector<float> v(u64());
    raw(v.data(), v.size() * sizeof(float));
    return v;
  }
};

bool write_all(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* p, std::size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t r = ::read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

struct Header {
  std::uint32_t type, index;
  std::uint64_t len;
};

bool send(int fd, Msg type, std::uint32_t index, const std::string& payload) {
  const Header h{static_cast<std::uint32_t>(type), index, payload.size()};
  return write_all(fd, &h, sizeof h) && write_all(fd, payload.data(), payload.size());
}

void encode(Writer& w, const PipelineResult& r) {
  w.floats(r.exact);
  w.u64(r.overflow ? 1 : 0);
  for (int f = 0; f < 2; ++f) {
    w.floats(r.vllm[f]);
    w.floats(r.vllm_lse[f]);
  }
  w.u64(r.digests.size());
  for (const auto& d : r.digests) {
    w.i64(d.pass);
    w.i64(d.chunk);
    w.i64(static_cast<std::int64_t>(d.step));
    w.i64(d.rank);
    w.u64(d.hash);
  }
  w.u64(r.stage_ms.size());
  for (const auto& [k, v] : r.stage_ms) {
    w.str(k);
    w.f64(v);
  }
  w.u64(r.all_gathers.size());
  for (const auto& a : r.all_gathers) {
    w.i64(a.pass);
    w.i64(a.chunk);
    w.i64(a.bytes_per_rank);
    w.f64(a.ms);
  }
  w.f64(r.total_ms);
}

PipelineResult decode(Reader& rd) {
  PipelineResult r;
  r.exact = rd.floats();
  r.overflow = rd.u64() != 0;
  for (int f = 0; f < 2; ++f) {
    r.vllm[f] = rd.floats();
    r.vllm_lse[f] = rd.floats();
  }
  r.digests.resize(rd.u64());
  for (auto& d : r.digests) {
    d.pass = static_cast<int>(rd.i64());
    d.chunk = static_cast<int>(rd.i64());
    d.step = static_cast<Step>(rd.i64());
    d.rank = static_cast<int>(rd.i64());
    d.hash = rd.u64();
  }
  for (auto n = rd.u64(); n > 0; --n) {
    std::string k = rd.str();
    r.stage_ms[k] = rd.f64();
  }
  r.all_gathers.resize(rd.u64());
  for (auto& a : r.all_gathers) {
    a.pass = static_cast<int>(rd.i64());
    a.chunk = static_cast<int>(rd.i64());
    a.bytes_per_rank = rd.i64();
    a.ms = rd.f64();
  }
  r.total_ms = rd.f64();
  return r;
}

// ---------------------------------------------------------------------------------------------
// Which cases run, decided identically by the coordinator and every rank.

bool plan_runs(const Case& c, Plan& plan) {
  plan = make_plan(c);  // the plan run_check's evaluate() builds
  return !((c.asserts && !plan.asserts.empty()) || !plan.built);
}

// ---------------------------------------------------------------------------------------------
// The rank processes.

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) { g_stop = 1; }

// What a rank does once its communicator is up. `emit` sends a message to the coordinator.
using Emit = std::function<void(Msg, std::uint32_t, const std::string&)>;
using RankJob = std::function<void(Communicator&, const Emit&)>;

[[noreturn]] void rank_process(int rank, int ranks, int to_parent, int from_parent, double timeout_s,
                               const RankJob& job) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the coordinator died: stop (and abort) too
  std::signal(SIGTERM, on_stop_signal);
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
  ::_exit(code);
}

// ---------------------------------------------------------------------------------------------
// The coordinator's view of the rank processes: one reader thread per rank pipe.

struct Inbox {
  std::map<std::uint32_t, std::string> result, emulation, bench;
  std::optional<std::string> error;
  std::vector<unsigned char> unique_id;
  long pid = -1;
  bool hello = false, done = false, closed = false;
  Clock::time_point last{};
};

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  return "ended (status " + std::to_string(status) + ")";
}

class Group {
 public:
  Group(int ranks, double timeout_s, const RankJob& job) : ranks_(ranks), timeout_s_(timeout_s), box_(ranks) {
    std::fflush(nullptr);
    for (int r = 0; r < ranks; ++r) {
      int up[2], down[2];
      if (::pipe(up) != 0 || ::pipe(down) != 0) throw std::runtime_error("multi-rank: pipe() failed");
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error("multi-rank: fork() failed");
      if (pid == 0) {
        ::close(up[0]);
        ::close(down[1]);
        for (int fd : from_child_) ::close(fd);
        for (int fd : to_child_) ::close(fd);
        rank_process(r, ranks, up[1], down[0], timeout_s, job);
      }
      ::close(up[1]);
      ::close(down[0]);
      ::fcntl(up[0], F_SETFD, FD_CLOEXEC);
      ::fcntl(down[1], F_SETFD, FD_CLOEXEC);
      pids_.push_back(pid);
      from_child_.push_back(up[0]);
      to_child_.push_back(down[1]);
      box_[static_cast<std::size_t>(r)].pid = pid;
      box_[static_cast<std::size_t>(r)].last = Clock::now();
    }
    for (int r = 0; r < ranks; ++r) readers_.emplace_back([this, r] { read_loop(r); });
  }
  ~Group() {
    stop_all(nullptr);
    for (auto& t : readers_) t.join();
    for (int fd : from_child_) ::close(fd);
    for (int fd : to_child_) ::close(fd);
  }

  int ranks() const { return ranks_; }
  long pid(int r) const { return pids_[static_cast<std::size_t>(r)]; }

  // Waits until `ready` holds, or a rank failed: then the failure text (naming the rank).
  // `stalled`: the ranks that must still report; a rank is declared hung when another rank
  // reported `timeout_s` ago and it has not (or nobody reported for 10 timeouts).
  std::optional<std::string> wait(const std::function<bool(const std::vector<Inbox>&)>& ready,
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

  template <class F>
  auto with(F&& f) {
    std::lock_guard<std::mutex> lk(mu_);
    return f(box_);
  }

  bool send_to(int r, Msg m, const std::string& payload) {
    return send(to_child_[static_cast<std::size_t>(r)], m, 0, payload);
  }

  // Stops every rank still running: SIGTERM (a rank in a collective wait aborts its
  // communicator and exits), then SIGKILL after a grace period. Writes each rank's end to `log`.
  void stop_all(std::ostream* log) {
    for (int r = 0; r < ranks_; ++r)
      if (!reaped_[r]) {
        ::kill(pids_[static_cast<std::size_t>(r)], SIGTERM);
        ::kill(pids_[static_cast<std::size_t>(r)], SIGCONT);  // a stopped rank must see it too
      }
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    for (int r = 0; r < ranks_; ++r) {
      while (!reaped_[r] && Clock::now() < deadline) {
        int st = 0;
        if (::waitpid(pids_[static_cast<std::size_t>(r)], &st, WNOHANG) > 0) {
          reaped_[r] = true;
          status_[r] = describe_status(st);
        } else {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      }
      if (!reaped_[r]) {
        ::kill(pids_[static_cast<std::size_t>(r)], SIGKILL);
        int st = 0;
        ::waitpid(pids_[static_cast<std::size_t>(r)], &st, 0);
        reaped_[r] = true;
        status_[r] = describe_status(st) + " after not stopping within 10 s of SIGTERM";
      }
      if (log) {
        std::lock_guard<std::mutex> lk(mu_);
        const Inbox& b = box_[static_cast<std::size_t>(r)];
        *log << "  rank " << r << " (pid " << b.pid << "): " << status_[r];
        if (b.error) *log << "; its last message: " << *b.error;
        *log << "\n";
      }
    }
  }

  // Waits for a rank that closed its pipe; its exit status.
  std::string reap(int r) {
    if (reaped_[r]) return status_[r];
    int st = 0;
    for (int k = 0; k < 200; ++k) {  // up to 2 s for the exit to be reported after the pipe closed
      if (::waitpid(pids_[static_cast<std::size_t>(r)], &st, WNOHANG) > 0) {
        reaped_[r] = true;
        status_[r] = describe_status(st);
        return status_[r];
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return "its pipe closed; the process has not exited yet";
  }

  // Every rank finished (Msg::done) and exited 0.
  bool finish() {
    bool ok = true;
    for (int r = 0; r < ranks_; ++r) {
      int st = 0;
      if (!reaped_[r]) {
        ::waitpid(pids_[static_cast<std::size_t>(r)], &st, 0);
        reaped_[r] = true;
        status_[r] = describe_status(st);
        ok = ok && WIFEXITED(st) && WEXITSTATUS(st) == 0;
      }
    }
    return ok;
  }

 private:
  void read_loop(int r) {
    const int fd = from_child_[static_cast<std::size_t>(r)];
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

  int ranks_;
  double timeout_s_;
  std::vector<pid_t> pids_;
  std::vector<int> from_child_, to_child_;
  std::vector<Inbox> box_;
  std::vector<std::thread> readers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int, bool> reaped_;
  std::map<int, std::string> status_;
};

// Device count without touching the GPU runtime in this process (the ranks are forked from it,
// and a runtime initialised before fork() is unusable in the child): a short-lived child asks.
int count_devices(std::string& why) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("multi-rank: pipe() failed");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string w;
    int n = 0;
    try {
      n = device_count(w);
    } catch (const std::exception& e) {
      w = e.what();
    }
    Writer out;
    out.i64(n);
    out.str(w);
    write_all(fds[1], out.b.data(), out.b.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string buf;
  char tmp[512];
  for (ssize_t k; (k = ::read(fds[0], tmp, sizeof tmp)) != 0;) {
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) break;
    buf.append(tmp, static_cast<std::size_t>(k));
  }
  ::close(fds[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  if (buf.size() < sizeof(std::int64_t)) {
    why = "the device probe process " + describe_status(st);
    return 0;
  }
  Reader rd{buf};
  const auto n = static_cast<int>(rd.i64());
  why = rd.str();
  return n;
}

// Common start: library present, enough GPUs, the group up with its unique id forwarded.
// Returns the exit code to stop with, or nullopt to go on.
std::optional<int> preflight(const RankOptions& o, const char* what, std::ostream& err) {
  if (o.ranks < 1) {
    err << "chunkproof " << what << " --ranks: need at least 1 rank\n";
    return kExitBadInput;
  }
  if (const auto m = collective_missing()) {
    err << "chunkproof " << what << " --device gpu --ranks " << o.ranks << ": cannot run here: " << *m << "\n";
    return kExitCannotRunHere;
  }
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);  // before any rank initialises NCCL (inherited)
  std::string why;
  const int n = count_devices(why);
  if (n < o.ranks) {
    err << "chunkproof " << what << " --device gpu --ranks " << o.ranks << ": cannot run here: " << o.ranks
        << " ranks need " << o.ranks << " GPUs (one rank per GPU), this machine has " << n
        << (why.empty() ? "" : " (" + why + ")") << "\n";
    return kExitCannotRunHere;
  }
  return std::nullopt;
}

std::optional<std::string> start_group(Group& g, std::ostream& out) {
  if (auto f = g.wait([](const std::vector<Inbox>& b) { return !b[0].unique_id.empty(); },
                      [](const Inbox& b) { return b.hello; }, "while starting"))
    return f;
  const std::string id =
      g.with([](std::vector<Inbox>& b) { return std::string(b[0].unique_id.begin(), b[0].unique_id.end()); });
  for (int r = 1; r < g.ranks(); ++r) g.send_to(r, Msg::unique_id, id);
  out << "ranks: " << g.ranks() << " processes, one per GPU (";
  for (int r = 0; r < g.ranks(); ++r) out << (r ? ", " : "") << "rank " << r << ": pid " << g.pid(r) << " GPU " << r;
  out << "); " << collective_library() << ", NCCL_NVLS_ENABLE=0" << std::endl;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Comparison (coordinator).


// The first step whose digest differs between rank r and the emulation (steps after the
// all-gather are recorded once by the emulation, rank -1; gathers per rank).
std::string localize(const std::vector<StageDigest>& emu, const std::vector<StageDigest>& mine, int r) {
  std::vector<StageDigest> want;
  for (const auto& d : emu)
    if (d.rank == -1 || d.rank == r) want.push_back(d);
  const std::size_t n = std::min(want.size(), mine.size());
  for (std::size_t i = 0; i < n; ++i) {
    const StageDigest &a = want[i], &b = mine[i];
    if (a.pass != b.pass || a.chunk != b.chunk || a.step != b.step) return "step sequences differ (structure)";
    if (a.hash == b.hash) continue;
    std::ostringstream os;
    os << "first differing step: " << step_name(a.step) << " of ";
    if (a.chunk >= 0)
      os << "chunk " << a.chunk;
    else if (a.chunk == -1)
      os << "the causal suffix";
    else
      os << "request work " << (-2 - a.chunk);
    os << ", pass " << a.pass << ", rank " << r;
    return os.str();
  }
  if (want.size() != mine.size()) return "step counts differ";
  return "every step digest equal: the difference is in the final copy-out";
}

struct Verdict {
  bool agree = true;
  std::string line;
};

Verdict compare_case(const Case& c, const mla::CheckResult& cpu, const PipelineResult& emu,
                     const PipelineResult& unchunked, const std::vector<PipelineResult>& rank) {
  Verdict v;
  std::ostringstream os;
  const mla::Shape s = mla::shape_of(c);
  const std::int64_t N = s.N, Vd = s.Vd;
  struct Out {
    const char* name;
    const std::vector<float>* (*get)(const PipelineResult&);
    std::int64_t vd;
  };
  const Out outs[] = {
      {"exact", [](const PipelineResult& p) { return &p.exact; }, Vd},
      {"vllm triton out", [](const PipelineResult& p) { return &p.vllm[0]; }, Vd},
      {"vllm cuda out", [](const PipelineResult& p) { return &p.vllm[1]; }, Vd},
      {"vllm triton lse", [](const PipelineResult& p) { return &p.vllm_lse[0]; }, 1},
      {"vllm cuda lse", [](const PipelineResult& p) { return &p.vllm_lse[1]; }, 1},
  };
  // (1) every rank vs the single-GPU emulation.
  std::int64_t per_rank = 0;
  for (std::size_t r = 0; r < rank.size(); ++r) {
    bool same = rank[r].overflow == emu.overflow;
    std::string detail;
    for (const Out& o : outs) {
      const BitDiff d = bit_diff(*o.get(rank[r]), *o.get(emu));
      if (r == 0) per_rank += d.elements;
      if (d.differing == 0 && !d.size_mismatch) continue;
      same = false;
      detail += "; " + describe(o.name, d, N, o.vd);
    }
    if (!same) {
      v.agree = false;
      os << "rank " << r << " DIFFERS from the single-GPU emulation ("
         << localize(emu.digests, rank[r].digests, static_cast<int>(r)) << ")" << detail << "; ";
    }
  }
  if (v.agree)
    os << "every rank == single-GPU emulation (" << rank.size() << " x " << per_rank << " elements, "
       << emu.digests.size() << " step digests); ";
  // (2) the emulation vs the CPU, as `check --device gpu` compares them.
  const std::int64_t diff = count_nonequal(unchunked.exact, emu.exact);
  const auto& ex = cpu.exact;
  bool cpu_ok = ex.differing == diff && ex.overflow == (emu.overflow || unchunked.overflow);
  os << "chunked vs unchunked: " << diff << " differ (CPU: " << ex.differing << (ex.overflow ? ", overflow" : "")
     << ")";
  struct Pair {
    const char* name;
    const std::vector<float>* gpu;
    const std::vector<float>* cpu;
    std::int64_t vd;
  };
  const Pair pairs[] = {
      {"reference", &unchunked.exact, &cpu.reference_out, Vd},
      {"chunked", &emu.exact, &cpu.chunked_out, Vd},
      {"vllm triton out", &emu.vllm[0], &cpu.vllm_out[0], Vd},
      {"vllm cuda out", &emu.vllm[1], &cpu.vllm_out[1], Vd},
      {"vllm triton lse", &emu.vllm_lse[0], &cpu.vllm_lse[0], 1},
      {"vllm cuda lse", &emu.vllm_lse[1], &cpu.vllm_lse[1], 1},
  };
  std::int64_t compared = 0;
  for (const Pair& p : pairs) {
    const BitDiff d = bit_diff(*p.gpu, *p.cpu);
    compared += d.elements;
    if (d.differing == 0 && !d.size_mismatch) continue;
    cpu_ok = false;
    os << "; emulation vs CPU " << describe(p.name, d, N, p.vd);
  }
  if (cpu_ok) os << "; emulation == CPU (" << compared << " elements)";
  v.agree = v.agree && cpu_ok;
  v.line = os.str();
  return v;
}

std::string failure_footer(const char* what, Clock::time_point t0) {
  char b[160];
  std::snprintf(b, sizeof b, "chunkproof %s --ranks: run stopped %.1f s after the start; exit 3 (inconclusive)\n", what,
                std::chrono::duration<double>(Clock::now() - t0).count());
  return b;
}

}  // namespace

Case random_case_for_ranks(std::uint64_t seed, std::uint64_t index, int ranks) {
  for (std::uint64_t j = 0;; ++j) {
    Case c =
        mla::random_case(Version::v6_current, index % 2 ? Platform::rocm : Platform::cuda, seed, (index << 12) + j);
    if (c.dcp == ranks) return c;
    if (ranks > 8 && c.dcp == 8) {  // random_case draws dcp 1..8: scale the DCP group up
      c.dcp = ranks;
      const std::int64_t align = std::lcm(c.block, c.interleave * c.dcp);
      if (c.workspace)
        c.workspace = align * std::max<std::int64_t>(1, *c.workspace / std::lcm(c.block, c.interleave * 8));
      validate_case(c);
      return c;
    }
  }
}

int check_ranks(const std::vector<Case>& cases, const RankOptions& o, std::ostream& out, std::ostream& err) {
  if (auto code = preflight(o, "check", err)) return *code;
  const auto t0 = Clock::now();
  const int W = o.ranks;
  // Every rank walks the same case list; one rank in turn also runs the single-GPU emulation.
  const RankJob job = [&cases, W](Communicator& comm, const Emit& emit) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      Plan plan;
      if (c.dcp != W || !plan_runs(c, plan)) continue;
      const mla::Inputs in = mla::make_inputs(c);
      PipelineOptions po;
      po.digests = true;
      po.comm = &comm;
      Writer w;
      encode(w, run_pipeline(c, plan, in, po));
      emit(Msg::result, static_cast<std::uint32_t>(i), w.b);
      if (static_cast<int>(i % static_cast<std::size_t>(W)) == comm.rank()) {
        po.comm = nullptr;
        Writer e;
        encode(e, run_pipeline(c, plan, in, po));
        PipelineOptions pu;
        pu.chunked = false;
        pu.vllm = false;
        encode(e, run_pipeline(c, plan, in, pu));
        emit(Msg::emulation, static_cast<std::uint32_t>(i), e.b);
      }
    }
  };
  Group g(W, o.timeout_s, job);
  if (auto f = start_group(g, out)) {
    err << "chunkproof check --ranks: " << *f << "\n";
    g.stop_all(&err);
    err << failure_footer("check", t0);
    return kExitRankFailed;
  }
  int bad = 0, ran = 0, identical = 0, differing = 0, asserts = 0, skipped = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::string line = print_case(c);
    if (c.dcp != W) {
      ++skipped;
      if (!o.quiet) out << "n/a  dcp=" << c.dcp << " (this run has " << W << " ranks)\n     case: " << line << "\n";
      continue;
    }
    mla::CheckOptions co;
    co.keep_outputs = true;
    const mla::CheckResult cpu = mla::run_check(c, co);
    if (cpu.assert_fired) {
      ++asserts;
      if (!o.quiet)
        out << "ok   assert fired on the CPU plan (nothing to run): " << cpu.assert_text << "\n     case: " << line
            << "\n";
      continue;
    }
    const auto k = static_cast<std::uint32_t>(i);
    const int emu_rank = static_cast<int>(i % static_cast<std::size_t>(W));
    auto failure = g.wait(
        [k, emu_rank](const std::vector<Inbox>& b) {
          for (const Inbox& x : b)
            if (!x.result.count(k)) return false;
          return b[static_cast<std::size_t>(emu_rank)].emulation.count(k) > 0;
        },
        [k](const Inbox& b) { return b.result.count(k) > 0; }, "during case " + std::to_string(i));
    if (failure) {
      err << "chunkproof check --ranks: " << *failure << "\n     case " << i << ": " << line
          << "\n  stopping the other ranks (SIGTERM: each aborts its communicator with ncclCommAbort)\n";
      g.stop_all(&err);
      err << "  " << ran << " cases compared before the failure, " << bad << " disagreements\n";
      err << failure_footer("check", t0);
      return kExitRankFailed;
    }
    std::vector<PipelineResult> rank;
    PipelineResult emu, unchunked;
    g.with([&](std::vector<Inbox>& b) {
      for (auto& x : b) {
        Reader rd{x.result.at(k)};
        rank.push_back(decode(rd));
        x.result.erase(k);
      }
      Reader rd{b[static_cast<std::size_t>(emu_rank)].emulation.at(k)};
      emu = decode(rd);
      unchunked = decode(rd);
      b[static_cast<std::size_t>(emu_rank)].emulation.erase(k);
      return 0;
    });
    const Verdict v = compare_case(c, cpu, emu, unchunked, rank);
    ++ran;
    if (!v.agree) ++bad;
    if (cpu.exact.differing == 0)
      ++identical;
    else
      ++differing;
    if (!v.agree || !o.quiet || cases.size() == 1)
      out << (v.agree ? "ok   " : "FAIL ") << v.line << "\n     case: " << line << "\n";
  }
  const bool clean = g.finish();
  out << "multi-GPU check (" << W << " ranks): " << cases.size() << " cases, " << ran << " ran on " << W << " GPUs ("
      << identical << " chunked == unchunked, " << differing << " differ as on the CPU), " << asserts << " assert, "
      << skipped << " not applicable (dcp != " << W << "), " << bad << " disagreements\n";
  if (!clean) {
    err << "chunkproof check --ranks: a rank did not exit cleanly after the last case\n";
    return kExitRankFailed;
  }
  return bad ? kExitDisagree : kExitAgree;
}

int bench_ranks(const Case& c, int reps, int warmup, const RankOptions& o, std::ostream& out, std::ostream& err) {
  if (c.dcp != o.ranks) {
    err << "chunkproof bench --ranks " << o.ranks << ": the case has dcp=" << c.dcp << " (they must be equal)\n";
    return kExitBadInput;
  }
  Plan plan;
  if (!plan_runs(c, plan)) {
    err << "chunkproof bench --ranks: the case does not plan (assert fired)\n";
    return kExitBadInput;
  }
  if (auto code = preflight(o, "bench", err)) return *code;
  const auto t0 = Clock::now();
  const int W = o.ranks;
  constexpr std::size_t kBwBytes = std::size_t{256} << 20;  // per rank
  const RankJob job = [&c, &plan, reps, warmup, W](Communicator& comm, const Emit& emit) {
    Writer w;
    const AllGatherBandwidth bw = measure_all_gather(comm, kBwBytes);
    w.f64(bw.ms);
    w.f64(bw.algbw);
    w.f64(bw.busbw);
    std::string why;
    const double peer = W > 1 ? measure_peer_copy(comm.rank(), (comm.rank() + 1) % W, kBwBytes, why) : 0.0;
    w.f64(peer);
    w.str(why);
    const mla::Inputs in = mla::make_inputs(c);
    for (int p = 0; p < 2; ++p) {
      PipelineOptions po;
      po.exact = p == 0;
      po.vllm = p == 1;
      po.poison = false;
      po.time_stages = true;
      po.comm = &comm;
      w.u64(static_cast<std::uint64_t>(reps));
      for (int k = 0; k < warmup + reps; ++k) {
        PipelineResult r = run_pipeline(c, plan, in, po);
        r.exact.clear();  // the timings are what the coordinator needs
        for (int f = 0; f < 2; ++f) {
          r.vllm[f].clear();
          r.vllm_lse[f].clear();
        }
        if (k >= warmup) encode(w, r);
      }
    }
    emit(Msg::bench, 0, w.b);
  };
  Group g(W, o.timeout_s, job);
  if (auto f = start_group(g, out)) {
    err << "chunkproof bench --ranks: " << *f << "\n";
    g.stop_all(&err);
    err << failure_footer("bench", t0);
    return kExitRankFailed;
  }
  auto failure = g.wait(
      [](const std::vector<Inbox>& b) {
        for (const Inbox& x : b)
          if (!x.bench.count(0)) return false;
        return true;
      },
      [](const Inbox& b) { return b.bench.count(0) > 0; }, "during the benchmark");
  if (failure) {
    err << "chunkproof bench --ranks: " << *failure << "\n  stopping the other ranks\n";
    g.stop_all(&err);
    err << failure_footer("bench", t0);
    return kExitRankFailed;
  }
  g.finish();
  out << "case: " << print_case(c) << "\nchunks: " << plan.chunks.size() << "; warm-up runs: " << warmup
      << ", timed runs: " << reps << " per path, on every rank\n";
  const char* stages[] = {"gather",       "rank skew (barrier)", "all-gather",       "reorg",        "up-project K",
                          "up-project V", "scores + max",        "exact accumulate", "vllm partial", "merge",
                          "normalize"};
  char buf[512];
  for (int r = 0; r < W; ++r) {
    const std::string payload =
        g.with([r](std::vector<Inbox>& b) { return b[static_cast<std::size_t>(r)].bench.at(0); });
    Reader rd{payload};
    const double bw_ms = rd.f64(), algbw = rd.f64(), busbw = rd.f64(), peer = rd.f64();
    const std::string why = rd.str();
    std::snprintf(buf, sizeof buf,
                  "\nrank %d: all-gather of %zu MiB per rank through the library: %.3f ms, algbw %.1f GB/s, busbw "
                  "%.1f GB/s; peer copy GPU %d -> GPU %d: %s\n",
                  r, kBwBytes >> 20, bw_ms, algbw * 1e-9, busbw * 1e-9, r, (r + 1) % W,
                  peer > 0 ? (std::to_string(static_cast<int>(peer * 1e-9)) + " GB/s").c_str() : why.c_str());
    out << buf;
    std::vector<PipelineResult> runs[2];
    for (int p = 0; p < 2; ++p)
      for (auto n = rd.u64(); n > 0; --n) runs[p].push_back(decode(rd));
    auto median = [](std::vector<double> v) {
      if (v.empty()) return 0.0;
      std::sort(v.begin(), v.end());
      return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    };
    out << "| stage | exact ms (median [min..max]) | vLLM-style ms |\n|---|---:|---:|\n";
    auto cell = [&](int p, const std::string& stage) {
      std::vector<double> v;
      for (const auto& x : runs[p])
        if (x.stage_ms.count(stage)) v.push_back(x.stage_ms.at(stage));
      if (stage == "total")
        for (const auto& x : runs[p]) v.push_back(x.total_ms);
      if (v.empty()) return std::string("–");
      std::snprintf(buf, sizeof buf, "%.2f [%.2f..%.2f]", median(v), *std::min_element(v.begin(), v.end()),
                    *std::max_element(v.begin(), v.end()));
      return std::string(buf);
    };
    for (const char* st : stages) {
      const std::string e = cell(0, st), v = cell(1, st);
      if (e == "–" && v == "–") continue;
      out << "| " << st << " | " << e << " | " << v << " |\n";
    }
    out << "| **total** | " << cell(0, "total") << " | " << cell(1, "total") << " |\n";
    // Every all-gather of the last timed run of the exact path (both passes), against busbw.
    if (!runs[0].empty()) {
      const auto& ag = runs[0].back().all_gathers;
      double bytes = 0, ms = 0;
      out << "all-gathers (last timed exact run): pass, chunk, bytes per rank, received by each rank, ms, busbw, "
             "fraction of the measured busbw\n";
      for (const auto& a : ag) {
        const double recv = static_cast<double>(a.bytes_per_rank) * (W - 1);
        const double t = std::abs(a.ms);
        const double bw = t > 0 ? recv / (t * 1e-3) : 0;
        bytes += recv;
        ms += t;
        std::snprintf(buf, sizeof buf, "  pass %d chunk %d: %lld B, %.0f B, %.3f ms%s, %.1f GB/s, %.3f\n", a.pass,
                      a.chunk, static_cast<long long>(a.bytes_per_rank), recv, t,
                      a.ms < 0 ? " (includes a host gap)" : "", bw * 1e-9, bw / busbw);
        out << buf;
      }
      if (ms > 0) {
        std::snprintf(buf, sizeof buf,
                      "  all chunks: %.0f B received in %.3f ms: %.1f GB/s = %.3f of the measured busbw\n", bytes, ms,
                      bytes / (ms * 1e-3) * 1e-9, bytes / (ms * 1e-3) / busbw);
        out << buf;
      }
    }
  }
  return 0;
}

}  // namespace cp::gpu::multi

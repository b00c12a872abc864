#include "live/client.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "reference/proc/subprocess.h"

namespace cp::live {

using Clock = std::chrono::steady_clock;

std::string_view name(Exchange::Kind k) {
  switch (k) {
    case Exchange::plan: return "plan";
    case Exchange::error: return "error";
    case Exchange::schema: return "schema";
    case Exchange::garbage: return "garbage";
    case Exchange::timeout: return "timeout";
    case Exchange::exited: return "exited";
  }
  return "?";
}

struct ExternalPlanner::State {
  PlannerOptions opt;
  std::optional<proc::Child> child;
  std::string buffer;       // bytes read past the last complete line
  std::string stderr_path;  // the child's stderr
  bool fresh = false;       // no reply read since the last start
  int starts = 0;
  std::int64_t requests = 0;

  void start() {
    ::truncate(stderr_path.c_str(), 0);
    child = proc::Child::exec({"/bin/sh", "-c", "exec 2>>\"$CHUNKPROOF_LIVE_STDERR\"; " + opt.command},
                              proc::Pipes{.to_child = true, .from_child = true},
                              {{"CHUNKPROOF_LIVE_STDERR", stderr_path}, {"PYTHONUNBUFFERED", "1"}});
    buffer.clear();
    fresh = true;
    ++starts;
  }
  // Kills the child's group and reaps it; "exit N" / "killed by signal N (...)".
  std::string stop() {
    if (!child) return "not running";
    const int st = child->running() ? child->kill_and_reap() : 0;
    child.reset();
    return proc::describe_status(st);
  }
  int last_status = -1;  // the wait status of the last child reaped by reap_status
  std::string reap_status() {
    last_status = -1;
    if (!child) return "not running";
    // It closed its stdout: give it a moment to exit by itself, so the status is its own.
    for (int i = 0; i < 50; ++i) {
      if (auto st = child->try_reap()) {
        child.reset();
        last_status = *st;
        return proc::describe_status(*st);
      }
      ::usleep(2000);
    }
    return stop();
  }
  std::string tail() const {
    std::ifstream in(stderr_path, std::ios::binary);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (s.size() > 2000) s = "..." + s.substr(s.size() - 2000);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }
  bool write_all(const std::string& line) {
    std::size_t off = 0;
    while (off < line.size()) {
      const ssize_t n = ::write(child->to_child(), line.data() + off, line.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;  // EPIPE: the child is gone
      off += static_cast<std::size_t>(n);
    }
    return true;
  }
  // One line into `out`; false with `kind` set (timeout, exited, garbage) when none came.
  bool read_line(std::string& out, Exchange::Kind& kind, std::string& why) {
    const double limit = fresh ? std::max(opt.start_timeout_s, opt.timeout_s) : opt.timeout_s;
    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit));
    for (;;) {
      if (const auto nl = buffer.find('\n'); nl != std::string::npos) {
        out.assign(buffer, 0, nl);
        buffer.erase(0, nl + 1);
        return true;
      }
      if (buffer.size() > opt.max_line) {
        kind = Exchange::garbage;
        why = "a reply line over " + std::to_string(opt.max_line) + " bytes";
        return false;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        kind = Exchange::timeout;
        why = "no reply within " + std::to_string(limit) + " s";
        return false;
      }
      pollfd p{child->from_child(), POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
      if (r < 0 && errno != EINTR) throw proc::ProcError(proc::os_error("poll"));
      if (r <= 0) continue;
      char buf[65536];
      const ssize_t n = ::read(child->from_child(), buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        kind = Exchange::exited;
        why = "the planner closed its output";
        return false;
      }
      buffer.append(buf, static_cast<std::size_t>(n));
    }
  }
};

ExternalPlanner::ExternalPlanner(PlannerOptions opt) : s_(std::make_unique<State>()) {
  if (opt.command.empty()) throw std::invalid_argument("--planner-cmd: empty command");
  std::signal(SIGPIPE, SIG_IGN);  // a dead child's pipe is an EPIPE to report, not a signal
  s_->opt = std::move(opt);
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/chunkproof-live-XXXXXX";
  const int fd = ::mkstemp(templ.data());
  if (fd < 0) throw proc::ProcError(proc::os_error("mkstemp " + templ));
  ::close(fd);
  s_->stderr_path = templ;
}

ExternalPlanner::~ExternalPlanner() {
  s_->stop();
  ::unlink(s_->stderr_path.c_str());
}

const std::string& ExternalPlanner::command() const { return s_->opt.command; }
int ExternalPlanner::starts() const { return s_->starts; }
std::int64_t ExternalPlanner::requests() const { return s_->requests; }

Exchange ExternalPlanner::ask(const Case& c) {
  State& s = *s_;
  const auto t0 = Clock::now();
  Exchange ex;
  auto finish = [&](Exchange::Kind k, std::string why) {
    ex.kind = k;
    ex.message = std::move(why);
    if (k == Exchange::timeout || k == Exchange::garbage) ex.message += "; " + s.stop();
    if (k == Exchange::exited) ex.message += " (" + s.reap_status() + ")";
    if (k != Exchange::schema) ex.stderr_tail = s.tail();
    ex.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return ex;
  };
  // A fresh planner that exits 4 says it cannot run here (the write may fail first: EPIPE).
  auto failed = [&](Exchange::Kind k, std::string why) {
    const bool fresh = s.fresh;
    finish(k, std::move(why));
    if (k == Exchange::exited && fresh && s.last_status >= 0 && WIFEXITED(s.last_status) &&
        WEXITSTATUS(s.last_status) == 4)
      throw PlannerCannotRun("the planner cannot run here (it exited 4 before its first reply)" +
                             (ex.stderr_tail.empty() ? std::string() : ": " + ex.stderr_tail));
    return ex;
  };
  if (!s.child || !s.child->running()) s.start();
  ++s.requests;
  if (!s.write_all(request_line(c, s.requests) + "\n"))
    return failed(Exchange::exited, "the planner does not read its input");
  std::string line, why;
  Exchange::Kind kind{};
  if (!s.read_line(line, kind, why)) return failed(kind, why);
  s.fresh = false;
  try {
    ex.reply = decode_reply(line);
  } catch (const SchemaError& e) {
    // Not JSON: the stream may be out of step (a stray print), so the child starts afresh.
    return finish(
        e.path.empty() && std::string_view(e.what()).rfind("not JSON", 0) == 0 ? Exchange::garbage : Exchange::schema,
        e.what());
  }
  ex.kind = ex.reply.error ? Exchange::error : Exchange::plan;
  ex.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return ex;
}

}  // namespace cp::live

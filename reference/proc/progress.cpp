// The progress line (progress.h): a ticker thread that redraws from two atomic counters, so the
// counting code pays one relaxed add and never waits for the terminal.
#include "reference/proc/progress.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace cp::proc {
namespace {

std::string secs_text(double s) {
  std::ostringstream o;
  if (s < 60)
    o << std::fixed << std::setprecision(s < 10 ? 1 : 0) << s << " s";
  else if (s < 3600)
    o << static_cast<long long>(s) / 60 << " min " << static_cast<long long>(s) % 60 << " s";
  else
    o << static_cast<long long>(s) / 3600 << " h " << (static_cast<long long>(s) % 3600) / 60 << " min";
  return o.str();
}

}  // namespace

std::string progress_text(std::int64_t done, std::int64_t total, const std::string& unit, double elapsed,
                          double budget) {
  std::ostringstream o;
  o << done;
  if (total > 0) o << "/" << total;
  o << " " << unit;
  if (total > 0) o << " (" << (100 * done / total) << "%)";
  o << ", " << secs_text(elapsed);
  // The rate so far applied to what is left; a budget caps it (the work stops there).
  const bool counted = total > 0 && done > 0 && done < total;
  const double by_rate = counted ? elapsed * static_cast<double>(total - done) / static_cast<double>(done) : 0;
  const double by_budget = std::max(0.0, budget - elapsed);
  if (total > 0 && done >= total) return o.str();  // finished: nothing is left to estimate
  if (counted && (budget <= 0 || by_rate < by_budget))
    o << ", about " << secs_text(by_rate) << " left";
  else if (budget > 0)
    o << ", at most " << secs_text(by_budget) << " left";
  return o.str();
}

Progress::Progress(std::string label, std::int64_t total, std::string unit, bool shown, double budget)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      shown_(shown),
      tty_(::isatty(STDERR_FILENO) != 0),
      budget_(budget),
      total_(total),
      t0_(std::chrono::steady_clock::now()) {
  if (shown_) ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() { finish(); }

void Progress::note(const std::string& text) {
  std::lock_guard<std::mutex> lk(mu_);
  note_ = text;
}

std::string Progress::line() const {
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  std::string s = label_ + ": " + progress_text(done_.load(), total_.load(), unit_, el, budget_);
  std::lock_guard<std::mutex> lk(mu_);
  if (!note_.empty()) s += "; " + note_;
  return s;
}

// A terminal: redrawn twice a second. A pipe (--progress): a line every 5 s, and the first at
// once so a short run shows one too.
void Progress::tick() {
  const auto period = std::chrono::milliseconds(tty_ ? 500 : 5000);
  auto draw = [&] {
    const std::string s = line();
    std::fprintf(stderr, tty_ ? "\r\033[K%s" : "%s\n", s.c_str());
    std::fflush(stderr);
  };
  std::unique_lock<std::mutex> lk(mu_);
  for (bool first = true;; first = false) {
    if (!first && wake_.wait_for(lk, period, [&] { return finished_; })) break;
    lk.unlock();
    draw();
    lk.lock();
  }
  lk.unlock();
  draw();  // the final count, however fast the run was
  if (tty_) std::fputc('\n', stderr);
}

void Progress::finish() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (finished_) return;
    finished_ = true;
  }
  wake_.notify_one();
  if (ticker_.joinable()) ticker_.join();
}

}  // namespace cp::proc

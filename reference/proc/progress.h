// One live progress line for long work (issue 24): "<label>: 12/40 cells (30%), 3.1 s, about 7 s
// left". Redrawn in place on a terminal; with --progress on a pipe, one line every few seconds.
// The estimate is the rate so far (done per second) applied to what is left, or a known time
// budget when the work is budgeted rather than counted. Every long command (check, map, export,
// audit) draws through this one class; callers only count.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace cp::proc {

// The line's text: "12/40 cells (30%), 3.1 s, about 7 s left"; total 0 (not known): "12 cells,
// 3.1 s"; budget > 0 (seconds the work may take in all): "..., at most 7 s left" unless the rate
// says sooner.
std::string progress_text(std::int64_t done, std::int64_t total, const std::string& unit, double elapsed,
                          double budget = 0);

class Progress {
 public:
  // `shown` false: counts, draws nothing (a pipe without --progress, or --json). The ticker
  // thread starts only when shown.
  Progress(std::string label, std::int64_t total, std::string unit, bool shown, double budget = 0);
  ~Progress();  // finish()
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void add(std::int64_t n = 1) { done_.fetch_add(n); }
  void set(std::int64_t done) { done_.store(done); }
  void set_total(std::int64_t total) { total_.store(total); }
  std::int64_t done() const { return done_.load(); }
  // A phrase after the numbers (the stage, a hint such as "--sample-heads K is faster").
  void note(const std::string& text);
  // Draws the final line (once) and stops the ticker; later calls do nothing.
  void finish();

 private:
  std::string line() const;
  void tick();

  const std::string label_, unit_;
  const bool shown_, tty_;
  const double budget_;
  std::atomic<std::int64_t> done_{0}, total_{0};
  const std::chrono::steady_clock::time_point t0_;
  mutable std::mutex mu_;
  std::string note_;  // guarded by mu_
  bool finished_ = false;
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace cp::proc

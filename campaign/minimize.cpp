#include "campaign/minimize.h"

#include <chrono>
#include <functional>

#include "fuzz/common/judge.h"

namespace cp::fuzz {

MinimizeResult minimize_case(const Case& start, const std::string& sig, const TargetConfig& cfg, double seconds,
                             bool (*stop)(), const Pins& pins) {
  return minimize_case(
      start, sig, [&cfg](const Case& c) { return judge(c, cfg); }, seconds, stop, pins);
}

MinimizeResult minimize_case(const Case& start, const std::string& sig,
                             const std::function<Judgement(const Case&)>& judge_fn, double seconds, bool (*stop)(),
                             const Pins& pins) {
  using SteadyClock = std::chrono::steady_clock;
  const auto deadline =
      SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
  MinimizeResult r{start, 0, false};
  auto keeps = [&](const Case& c) {
    ++r.evaluations;
    const Judgement j = judge_fn(c);
    return j.kind != Judgement::rejected && j.kind != Judgement::ok && j.signature == sig;
  };
  auto out_of_time = [&] { return SteadyClock::now() > deadline || (stop && stop()); };
  // Tries smaller values of one field, smallest first; keeps the first that preserves the finding.
  auto shrink = [&](std::int64_t lo, const std::function<std::int64_t&(Case&)>& field) {
    bool any = false;
    for (bool progress = true; progress && !out_of_time();) {
      progress = false;
      const std::int64_t v = field(r.c);
      if (v <= lo) break;
      const std::int64_t cands[] = {lo, lo + 1, v / 8, v / 4, v / 2, v - v / 4, v - v / 8};
      std::int64_t failed_below = lo - 1;  // the largest candidate that lost the finding
      for (std::int64_t cand : cands) {
        if (cand < lo || cand >= v) continue;
        Case t = r.c;
        field(t) = cand;
        if (keeps(t)) {
          r.c = std::move(t);
          progress = any = true;
          break;
        }
        failed_below = std::max(failed_below, cand);
      }
      if (progress || out_of_time()) continue;
      // Bisect between the largest losing candidate and v (exact when the finding is monotone).
      std::int64_t bad = failed_below, good = v;
      while (good - bad > 1 && !out_of_time()) {
        const std::int64_t mid = bad + (good - bad) / 2;
        Case t = r.c;
        field(t) = mid;
        if (keeps(t))
          good = mid;
        else
          bad = mid;
      }
      if (good < v) {
        field(r.c) = good;
        any = true;  // a fixed point for this field: the outer loop revisits the others
      }
    }
    return any;
  };
  for (bool progress = true; progress && !out_of_time();) {
    progress = false;
    // Drop requests (back to front keeps the decode prefix stable).
    for (std::size_t i = r.c.ctx.size(); i-- > 0 && r.c.ctx.size() > 1 && !out_of_time();) {
      Case t = r.c;
      t.ctx.erase(t.ctx.begin() + static_cast<std::ptrdiff_t>(i));
      t.q.erase(t.q.begin() + static_cast<std::ptrdiff_t>(i));
      if (keeps(t)) {
        r.c = std::move(t);
        progress = true;
      }
    }
    for (std::size_t i = 0; i < r.c.ctx.size(); ++i) {
      progress |= shrink(0, [i](Case& c) -> std::int64_t& { return c.ctx[i]; });
      progress |= shrink(1, [i](Case& c) -> std::int64_t& { return c.q[i]; });
    }
    // Pinned values are the deployment's: never shrunk (a workspace pin is also the sizing's).
    const bool sized_pinned = pins.mml || pins.mns;
    if (r.c.workspace && !pins.workspace) progress |= shrink(1, [](Case& c) -> std::int64_t& { return *c.workspace; });
    if (r.c.max_model_len && !sized_pinned)
      progress |= shrink(1, [](Case& c) -> std::int64_t& { return *c.max_model_len; });
    if (r.c.max_num_seqs && !sized_pinned)
      progress |= shrink(1, [](Case& c) -> std::int64_t& { return *c.max_num_seqs; });
    if (!pins.dcp) progress |= shrink(1, [](Case& c) -> std::int64_t& { return c.dcp; });
    if (!pins.interleave) progress |= shrink(1, [](Case& c) -> std::int64_t& { return c.interleave; });
    if (!pins.block) progress |= shrink(1, [](Case& c) -> std::int64_t& { return c.block; });
  }
  r.changed = !(r.c == start);
  return r;
}

}  // namespace cp::fuzz

// Token level or interval level (catalogue.h: Level) for the checks that walk tokens.
#include <algorithm>

#include "invariants/checks.h"

namespace cp::detail {
namespace {

// Past this many simulated rows the token-walking checks are decided at interval level (the
// same verdicts and counts; fuzz_interval_diff checks the two agree): the full domain reaches
// 2^34 context tokens.
constexpr std::int64_t kTokenLevelRows = std::int64_t{1} << 22;

bool token_level_fits(const Batch& b, const Plan& p) {
  std::int64_t rows = 0;
  for (const auto& ch : p.chunks) rows += std::max(ch.total_tokens(), ch.local_tokens() * p.dcp);
  std::int64_t ctx = 0;
  for (auto x : b.ctx) ctx += x;
  return rows <= kTokenLevelRows && ctx <= kTokenLevelRows;
}

}  // namespace

Strategy choose(Level level, const Batch& b, const Plan& p, bool movement) {
  // A family without closed-form interval formulas (FamilyInfo::interval_level) walks tokens.
  if (movement && !p.version_info().family->interval_level) return {.token = true};
  switch (level) {
    case Level::token: return {.token = true};
    case Level::interval: return {.token = false};
    case Level::automatic: break;
  }
  if (token_level_fits(b, p)) return {.token = true};
  return {.token = false, .fell_back = true};
}

InvariantResult noted(const Strategy& s, InvariantResult r) {
  if (s.fell_back && !verdict_only())
    r.note += std::string(r.note.empty() ? "" : "; ") + "decided at interval level (over 2^22 rows to simulate)";
  return r;
}

}  // namespace cp::detail

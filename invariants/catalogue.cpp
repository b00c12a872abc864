#include "invariants/catalogue.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "invariants/interval/interval.h"
#include "invariants/violation_sink.h"

namespace cp {
namespace {

constexpr std::array<InvariantInfo, kNumInvariants> kCatalogue{{
    {InvariantId::I1_workspace_div_dcp, "I-1", "I1_workspace_div_dcp", "under DCP the workspace S is a multiple of W"},
    {InvariantId::I2_nonempty_chunk_width, "I-2", "I2_nonempty_chunk_width", "the chunk width (M or Mmax) is positive"},
    {InvariantId::I3_coverage, "I-3", "I3_coverage", "each context is covered exactly once, in order, by the chunk spans"},
    {InvariantId::I4_global_row_budget, "I-4", "I4_global_row_budget", "per chunk, the sum of span lengths is <= S"},
    {InvariantId::I5_page_aligned_starts, "I-5", "I5_page_aligned_starts", "with the page-rounding gather kernel, every start is a multiple of B"},
    {InvariantId::I6_virtual_block_alignment, "I-6", "I6_virtual_block_alignment", "under DCP every non-zero chunk start is a multiple of V = I*W and local start = start/W"},
    {InvariantId::I7_local_row_budget, "I-7", "I7_local_row_budget", "under DCP, per chunk, the padded local rows fit S/W"},
    {InvariantId::I8_local_length_bookkeeping, "I-8", "I8_local_length_bookkeeping", "local context lengths come from ctx and padded local lengths cover each rank's share"},
    {InvariantId::I9_reorg_exact, "I-9", "I9_reorg_exact", "token by token, each request receives exactly its own positions once (gather, all-gather, reorg)"},
    {InvariantId::I10_gather_start_semantics, "I-10", "I10_gather_start_semantics", "under DCP each rank's gather begins at its first local slot of the span"},
    {InvariantId::I11_config_validity, "I-11", "I11_config_validity", "I <= B, B mod I == 0: slot mapping agrees with ownership"},
    {InvariantId::I12_merge_preconditions, "I-12", "I12_merge_preconditions", "no two empty partials meet in a Triton merge (NaN)"},
    {InvariantId::I13_context_prefix, "I-13", "I13_context_prefix", "context-free prefill tokens are identified correctly for the final merge"},
}};

}  // namespace

std::span<const InvariantInfo> all_invariants() { return kCatalogue; }
const InvariantInfo& info(InvariantId id) { return kCatalogue[static_cast<std::size_t>(id)]; }

bool parse_invariant(std::string_view s, InvariantId& out) {
  for (const auto& i : kCatalogue)
    if (s == i.tag || s == i.name) { out = i.id; return true; }
  if (!s.empty() && (s[0] == 'I' || s[0] == 'i')) s.remove_prefix(1);
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  int n = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || ptr != s.data() + s.size() || n < 1 || n > kNumInvariants) return false;
  out = static_cast<InvariantId>(n - 1);
  return true;
}

std::string_view name(Verdict v) {
  switch (v) {
    case Verdict::ok: return "ok";
    case Verdict::violated: return "VIOLATED";
    case Verdict::not_applicable: return "n/a";
    case Verdict::not_evaluated: return "not evaluated";
  }
  return "?";
}

std::string_view name(Outcome o) {
  switch (o) {
    case Outcome::ok: return "ok";
    case Outcome::assert_fired: return "assert";
    case Outcome::crashed: return "crash";
    case Outcome::violation: return "violation";
  }
  return "?";
}

namespace {
thread_local bool t_verdict_only = false;
}  // namespace

bool verdict_only() { return t_verdict_only; }
VerdictOnlyScope::VerdictOnlyScope() : saved_(t_verdict_only) { t_verdict_only = true; }
VerdictOnlyScope::~VerdictOnlyScope() { t_verdict_only = saved_; }

namespace {
// Past this many simulated rows the two token-walking checks (I-9, I-11) are decided at interval
// level (invariants/interval, the same verdicts and counts; fuzz_interval_diff checks the two
// agree): the full domain reaches 2^34 context tokens.
constexpr std::int64_t kTokenLevelRows = std::int64_t{1} << 22;
bool token_level_fits(const Case& c, const Plan& p) {
  std::int64_t rows = 0;
  for (const auto& ch : p.chunks) rows += std::max(ch.total_tokens(), ch.local_tokens() * p.dcp);
  std::int64_t ctx = 0;
  for (auto x : c.ctx) ctx += x;
  return rows <= kTokenLevelRows && ctx <= kTokenLevelRows;
}
}  // namespace

InvariantResult check(InvariantId id, const Case& c, const Plan& p) {
  using namespace detail;
  if ((id == InvariantId::I9_reorg_exact || id == InvariantId::I11_config_validity) && !token_level_fits(c, p)) {
    InvariantResult r = interval::check(id, c, p);
    if (!verdict_only())
      r.note += std::string(r.note.empty() ? "" : "; ") + "decided at interval level (over 2^22 rows to simulate)";
    return r;
  }
  switch (id) {
    case InvariantId::I1_workspace_div_dcp: return check_I1(c, p);
    case InvariantId::I2_nonempty_chunk_width: return check_I2(c, p);
    case InvariantId::I3_coverage: return check_I3(c, p);
    case InvariantId::I4_global_row_budget: return check_I4(c, p);
    case InvariantId::I5_page_aligned_starts: return check_I5(c, p);
    case InvariantId::I6_virtual_block_alignment: return check_I6(c, p);
    case InvariantId::I7_local_row_budget: return check_I7(c, p);
    case InvariantId::I8_local_length_bookkeeping: return check_I8(c, p);
    case InvariantId::I9_reorg_exact: return check_I9(c, p);
    case InvariantId::I10_gather_start_semantics: return check_I10(c, p);
    case InvariantId::I11_config_validity: return check_I11(c, p);
    case InvariantId::I12_merge_preconditions: return check_I12(c, p);
    case InvariantId::I13_context_prefix: return check_I13(c, p);
  }
  return {};
}

Outcome outcome_of(const Case& c, const Plan& plan, bool any_violation) {
  if (plan.crashed()) return Outcome::crashed;  // a crash is no assert: python -O does not strip it
  if (c.asserts && !plan.asserts.empty()) return Outcome::assert_fired;
  return any_violation ? Outcome::violation : Outcome::ok;
}

Evaluation evaluate(const Case& c) {
  Evaluation ev{c, make_plan(c), {}, Outcome::ok};
  bool any = false;
  for (const auto& inv : kCatalogue) {
    ev.results.push_back(check(inv.id, c, ev.plan));
    any = any || ev.results.back().verdict == Verdict::violated;
  }
  ev.outcome = outcome_of(c, ev.plan, any);
  return ev;
}

}  // namespace cp

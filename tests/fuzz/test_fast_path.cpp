// The fuzzers' hot path (issue 11, speed) changes no result:
//  - make_plan_into on a plan that held another case's plan gives exactly make_plan's plan, and
//    under PlanTextOffScope the same plan without the asserts' details and the notes;
//  - a verdict-only evaluation (VerdictOnlyScope) gives the full evaluation's verdicts,
//    violation counts and outcome, and records no text;
//  - dcp_local_len on plain integers equals the checked one;
//  - the planner target's judge gives the same judgement with and without a warm state.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <sstream>

#include "generators.h"
#include "invariants/catalogue.h"
#include "invariants/interval/local_len.h"

namespace cp {
namespace {

// Every field of a plan, as text (text = false: without the asserts' details and the notes).
std::string fingerprint(const Plan& p, bool text = true) {
  std::ostringstream os;
  os << name(p.version) << ' ' << name(p.platform) << ' ' << static_cast<int>(p.builder) << " B" << p.block << " W"
     << p.dcp << " I" << p.interleave << " V" << p.virtual_block << " m" << static_cast<int>(p.merge) << " S"
     << p.workspace << " R" << p.workspace_rows << " e" << p.sized_from_engine << " d" << p.num_decodes << " n"
     << p.num_with_context << " pk" << p.packed << " M" << p.chunk_width << " a" << p.align << " PL" << p.local_chunk
     << " rb" << p.row_budget << " g" << static_cast<int>(p.gather) << " built" << p.built << "\nprefills";
  for (int r : p.prefills) os << ' ' << r;
  os << "\nlocal_ctx";
  for (const auto& v : p.local_ctx) {
    os << " [";
    for (auto x : v) os << x << ',';
    os << ']';
  }
  for (const auto& ch : p.chunks) {
    os << "\nchunk " << ch.request_start << '-' << ch.request_end << " tok " << ch.token_start << '-' << ch.token_end
       << " cont" << ch.is_continuation << " cu";
    for (auto x : ch.cu_seq_lens) os << ' ' << x;
    os << " lcu";
    for (auto x : ch.padded_local_cu) os << ' ' << x;
    for (const auto& e : ch.entries) {
      os << " (" << e.request << ' ' << e.start << ' ' << e.len << ' ' << e.local_start << ' ' << e.padded_local_len
         << " kept";
      for (auto k : e.kept) os << ' ' << k;
      os << ')';
    }
  }
  for (const auto& a : p.asserts)
    os << "\nassert " << a.stage << '|' << a.which << '|' << (text ? a.detail : "") << '|' << a.chunk << '|'
       << static_cast<int>(a.kind);
  os << "\nptwc " << (p.prefill_tokens_with_context ? *p.prefill_tokens_with_context : -1) << " empty";
  for (const auto& [a, b] : p.empty_token_ranges) os << ' ' << a << '-' << b;
  if (text)
    for (const auto& n : p.notes) os << "\nnote " << n;
  return os.str();
}

Case any_version_case() {
  const auto versions = all_versions();
  const Version v =
      versions[static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(versions.size())))].version;
  return *testgen::any_case(v, *rc::gen::element(Platform::cuda, Platform::rocm), false);
}

// make_plan, or the error text when the case cannot be planned.
std::string planned(const Case& c, Plan* into) {
  try {
    if (into) {
      make_plan_into(c, *into);
      return fingerprint(*into);
    }
    return fingerprint(make_plan(c));
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what();
  }
}

RC_GTEST_PROP(PlanReuse, MakePlanIntoARecycledPlanEqualsMakePlan, ()) {
  const Case a = any_version_case(), b = any_version_case();
  Plan p;
  planned(a, &p);  // p now holds a's plan (or what an exception left)
  RC_ASSERT(planned(b, &p) == planned(b, nullptr));
  planned(b, &p);  // and once more over the same plan
  RC_ASSERT(planned(a, &p) == planned(a, nullptr));
}

// Without text (the planner target's hot path): the same plan, asserts included, with empty
// details and no notes; and the scope ends with the text back on.
RC_GTEST_PROP(PlanReuse, PlanTextOffGivesTheSamePlanWithoutText, ()) {
  const Case a = any_version_case(), b = any_version_case();
  Plan p;
  planned(a, &p);  // a recycled plan with text
  std::string fast;
  {
    const PlanTextOffScope scope;
    RC_ASSERT(!plan_text());
    fast = planned(b, &p);
    if (fast.rfind("error: ", 0) != 0) {
      for (const auto& x : p.asserts) RC_ASSERT(x.detail.empty());
      RC_ASSERT(p.notes.empty());
      RC_TAG(p.asserts.empty() ? "no assert" : "asserts");
    }
  }
  RC_ASSERT(plan_text());
  const std::string full = planned(b, nullptr);
  if (full.rfind("error: ", 0) == 0) {
    RC_ASSERT(fast == full);  // the same error
  } else {
    RC_ASSERT(fast == fingerprint(make_plan(b), false));
  }
}

// dcp_local_len on plain int64 (interval/local_len.h) == on checked integers, inside the plain
// path's bounds and across them (where it falls back to cp::Int).
RC_GTEST_PROP(PlainLocalLen, EqualsCheckedDcpLocalLen, ()) {
  const auto scale = *rc::gen::inRange<int>(0, 40);
  const std::int64_t seq = *rc::gen::inRange<std::int64_t>(0, (std::int64_t{1} << scale) + 2);
  const std::int64_t W = *rc::gen::weightedOneOf<std::int64_t>(
      {{1, rc::gen::just<std::int64_t>(1)},
       {4, rc::gen::inRange<std::int64_t>(1, 65)},
       {1, rc::gen::inRange<std::int64_t>((std::int64_t{1} << 31) - 2, (std::int64_t{1} << 31) + 2)}});
  const std::int64_t r = *rc::gen::inRange<std::int64_t>(0, std::min<std::int64_t>(W, 1 << 20));
  const std::int64_t I = std::int64_t{1} << *rc::gen::inRange<int>(0, 15);
  RC_ASSERT(interval_detail::local_len(seq, W, r, I) == dcp_local_len(Int(seq), Int(W), Int(r), Int(I)).get());
}

RC_GTEST_PROP(VerdictOnly, SameVerdictsCountsAndOutcomeWithoutText, ()) {
  const Case c = any_version_case();
  Plan p;
  try {
    make_plan_into(c, p);
  } catch (const std::exception&) {
    RC_DISCARD("cannot be planned");
  }
  std::vector<InvariantResult> full, fast;
  Outcome full_outcome{}, fast_outcome{};
  evaluate_plan(c, p, full, full_outcome, Level::interval);
  {
    const VerdictOnlyScope scope;
    RC_ASSERT(verdict_only());
    evaluate_plan(c, p, fast, fast_outcome, Level::interval);
  }
  RC_ASSERT(!verdict_only());
  RC_ASSERT(fast_outcome == full_outcome);
  RC_TAG(name(full_outcome));
  for (std::size_t i = 0; i < full.size(); ++i) {
    RC_ASSERT(fast[i].verdict == full[i].verdict);
    RC_ASSERT(fast[i].total_violations == full[i].total_violations);
    RC_ASSERT(fast[i].violations.empty());
    RC_ASSERT(fast[i].note.empty());
  }
}

}  // namespace
}  // namespace cp

// RapidCheck generators for cases: named, biased building blocks (block sizes that are and
// are not powers of two, dcp 1..64, interleave dividing block, contexts 0..2^20). A
// generated case shows itself as its case line, so a shrunk counterexample can be pasted
// into `chunkproof plan --case`.
#pragma once

#include <rapidcheck.h>

#include <numeric>
#include <vector>

#include "reference/caseio/case.h"
#include "reference/planner/plan.h"

namespace cp::testgen {

inline rc::Gen<std::int64_t> block_size() {
  return rc::gen::weightedOneOf<std::int64_t>({
      {6, rc::gen::map(rc::gen::inRange(0, 15), [](int e) { return std::int64_t{1} << e; })},  // 1 .. 2^14
      {3, rc::gen::inRange<std::int64_t>(1, (1 << 14) + 1)},                                    // any
      {1, rc::gen::element<std::int64_t>(11000, 48, 96, 3, 7)},                                 // spec oddities
  });
}

inline rc::Gen<std::int64_t> dcp_size() {
  return rc::gen::weightedOneOf<std::int64_t>({
      {3, rc::gen::element<std::int64_t>(1, 2, 4, 8)},
      {2, rc::gen::inRange<std::int64_t>(1, 65)},
  });
}

inline std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> d;
  for (std::int64_t i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      d.push_back(i);
      if (i != n / i) d.push_back(n / i);
    }
  return d;
}

inline rc::Gen<std::int64_t> context_len() {
  return rc::gen::weightedOneOf<std::int64_t>({
      {2, rc::gen::just<std::int64_t>(0)},
      {6, rc::gen::inRange<std::int64_t>(1, 1 << 12)},
      {3, rc::gen::inRange<std::int64_t>(1, 1 << 16)},
      {1, rc::gen::inRange<std::int64_t>(1, (1 << 20) + 1)},
  });
}

// Total context of a generated batch: the token-level simulation is linear in it, and the
// sanitizer build runs ~10x slower, so it draws smaller batches (a single context can still
// reach 2^20 in both).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr std::int64_t kMaxTotalContext = std::int64_t{1} << 21;
#else
inline constexpr std::int64_t kMaxTotalContext = std::int64_t{1} << 23;
#endif

// A batch of 1..max_reqs requests.
inline void gen_batch(Case& c, int max_reqs) {
  const int n = *rc::gen::inRange(1, max_reqs + 1);
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    std::int64_t ctx = *context_len();
    if (total + ctx > kMaxTotalContext) ctx = 0;
    total += ctx;
    c.ctx.push_back(ctx);
    c.q.push_back(*rc::gen::weightedOneOf<std::int64_t>(
        {{1, rc::gen::just<std::int64_t>(1)}, {4, rc::gen::inRange<std::int64_t>(2, 65)}}));
  }
  order_decodes_first(c);  // vLLM's batch order: decodes lead (case format rule)
}

// An engine configuration for `version`: block, dcp, interleave (dividing block) and either
// max_model_len/max_num_seqs (the version sizes S) or an explicit workspace.
inline Case gen_case(Version version, Platform platform, bool engine_sized_only) {
  Case c;
  c.version = version;
  c.platform = platform;
  const VersionInfo& vi = info(version);
  c.block = *block_size();
  c.dcp = vi.supports_dcp ? *dcp_size() : 1;
  if (vi.supports_interleave && c.dcp > 1) {
    auto d = divisors(c.block);
    c.interleave = *rc::gen::weightedOneOf<std::int64_t>(
        {{2, rc::gen::just<std::int64_t>(1)}, {2, rc::gen::just(c.block)}, {3, rc::gen::elementOf(d)}});
  }
  if (engine_sized_only || *rc::gen::inRange(0, 4) != 0) {
    c.max_model_len = *rc::gen::weightedOneOf<std::int64_t>(
        {{2, rc::gen::element<std::int64_t>(4096, 32768, 131072, 163840, 1 << 21)},
         {3, rc::gen::inRange<std::int64_t>(1, (1 << 21) + 1)}});
    c.max_num_seqs = *rc::gen::weightedOneOf<std::int64_t>(
        {{2, rc::gen::element<std::int64_t>(1, 64, 256, 1024)}, {3, rc::gen::inRange<std::int64_t>(1, 1025)}});
  } else {
    c.workspace = *rc::gen::inRange<std::int64_t>(1, 1 << 20);
  }
  gen_batch(c, 64);
  return c;
}

inline rc::Gen<Case> any_case(Version version, Platform platform, bool engine_sized_only) {
  return rc::gen::exec([=] { return gen_case(version, platform, engine_sized_only); });
}

}  // namespace cp::testgen

namespace cp {
// Shrunk counterexamples print as case lines (found by RapidCheck through ADL).
inline void showValue(const Case& c, std::ostream& os) { os << print_case(c); }
}  // namespace cp

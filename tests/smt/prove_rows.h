// What the prover's family tests (test_smt_engines.cpp, test_smt_vllm_sparse.cpp) ask of one row:
// one (version, invariant) on rocm with a deterministic rlimit, PROVED UNBOUNDED, or a
// counterexample that the planner confirms and whose replay violates the invariant itself.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "invariants/catalogue.h"
#include "invariants/smt/prover.h"
#include "reference/caseio/case.h"

namespace cp::smt::prove_test {

inline ProveOptions one(Version v, InvariantId id, std::int64_t prefills = 4) {
  ProveOptions o;
  o.versions = {v};
  o.platforms = {Platform::rocm};
  o.invariants = {id};
  o.jobs = 1;
  o.rlimit = 40'000'000;  // deterministic; the watchdog (3 x timeout + 10 s) only catches a stuck Z3
  o.timeout_s = 60;
  o.domain.prefills_max = prefills;  // the batch rules' cases n = 1..prefills (G-4: 2..)
  return o;
}

inline ProveResult row(const ProveOptions& o) {
  const auto rows = prove(o);
  EXPECT_EQ(rows.size(), 1u);
  return rows.empty() ? ProveResult{} : rows[0];
}

inline void expect_proved_unbounded(Version v, InvariantId id) {
  const ProveResult r = row(one(v, id));
  EXPECT_EQ(r.status, Status::proved) << name(v) << " " << info(id).tag << ": " << r.detail;
  EXPECT_TRUE(r.unbounded) << name(v) << " " << info(id).tag << ": " << r.method;
}

// The row is a counterexample, the planner confirms it, and its replay violates `id` itself.
inline Case expect_counterexample(Version v, InvariantId id, std::int64_t prefills = 4) {
  const ProveResult r = row(one(v, id, prefills));
  EXPECT_EQ(r.status, Status::counterexample) << name(v) << " " << info(id).tag << ": " << r.detail;
  EXPECT_FALSE(r.encoding_disagrees) << name(v) << " " << info(id).tag << ": " << r.replay;
  if (r.case_line.empty()) return {};
  const Case c = parse_case(r.case_line);
  EXPECT_EQ(c.version, v);
  EXPECT_TRUE(evaluate(c).violated(id)) << r.case_line;
  return c;
}

}  // namespace cp::smt::prove_test

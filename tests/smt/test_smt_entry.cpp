// I-8 and I-9 with block, dcp and interleave pinned (encode_entry.cpp): the packed planner on its
// split grid's one triple, the old planner's entry with numerals. The statement is shared, so a
// wrong one shows twice: v1-dcp and v2-interleave with the MI300X seed's values break both
// invariants (the counterexamples must replay as violations of the invariant itself), and
// v5-packed / v6-current prove every row on the same pins.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "invariants/catalogue.h"
#include "invariants/smt/prover.h"
#include "reference/caseio/case.h"

namespace cp::smt {
namespace {

using enum InvariantId;

// `chunkproof audit`'s pins of the seed deployment (8 x MI300X, block 64, 64K workspace).
constexpr const char* kSeedPins[] = {"block=64", "dcp=8", "interleave=1", "workspace=65536"};

ProveOptions pinned(Version v, std::vector<InvariantId> inv, std::int64_t prefills = 4) {
  ProveOptions o;
  o.versions = {v};
  o.platforms = {Platform::rocm};
  o.invariants = std::move(inv);
  o.jobs = 1;  // the split cases run in order: n = 1, 2, 3, ...
  o.rlimit = 40'000'000;
  o.timeout_s = 60;
  for (const char* p : kSeedPins) o.domain.pin(p);
  o.domain.apply("ctx=262144");
  o.domain.apply("prefills=" + std::to_string(prefills));
  return o;
}

// The row is a counterexample at n = 3 prefills (M = 65536 // 3 = 21845, not a multiple of W = 8;
// n = 1, 2 give M = 65536, 32768 and prove), inside the pins, confirmed by the planner, and its
// replay violates the invariant itself.
void expect_seed_counterexample(Version v, InvariantId id) {
  const auto rows = prove(pinned(v, {id}));
  ASSERT_EQ(rows.size(), 1u);
  const ProveResult& r = rows[0];
  const std::string what = std::string(name(v)) + " " + std::string(info(id).tag);
  ASSERT_EQ(r.status, Status::counterexample) << what << ": " << r.detail;
  EXPECT_FALSE(r.encoding_disagrees) << what << ": " << r.replay;
  EXPECT_EQ(r.cases_proved, 2) << what << ": n = 1, 2 hold (M mod W = 0)";
  EXPECT_EQ(r.detail.rfind("n=3:", 0), 0u) << what << ": " << r.detail;
  const Case c = parse_case(r.case_line);
  EXPECT_EQ(c.version, v);
  EXPECT_EQ(c.block, 64);
  EXPECT_EQ(c.dcp, 8);
  EXPECT_EQ(c.interleave, 1);
  EXPECT_EQ(c.workspace, std::optional<std::int64_t>(65536));
  EXPECT_EQ(c.ctx.size(), 3u) << r.case_line;
  EXPECT_TRUE(evaluate(c).violated(id)) << what << ": " << r.case_line;
}

TEST(SmtPinnedEntry, V1DcpSeedBreaksI8AndI9) {
  expect_seed_counterexample(Version::v1_dcp, I8_local_length_bookkeeping);  // S2's cpM = M // W rows
  expect_seed_counterexample(Version::v1_dcp, I9_reorg_exact);               // S2's reorg rule
}

TEST(SmtPinnedEntry, V2InterleaveSeedBreaksI8AndI9) {
  // The padded local rule: kept = reorg_kept_rows(...), the same rule as the packed planner's.
  expect_seed_counterexample(Version::v2_interleave, I8_local_length_bookkeeping);
  expect_seed_counterexample(Version::v2_interleave, I9_reorg_exact);
}

// Without the pins the old planner's I-8 and I-9 are not encoded (symbolic B, W, I).
TEST(SmtPinnedEntry, OldPlannerNeedsThePinnedTriple) {
  ProveOptions o = pinned(Version::v1_dcp, {I8_local_length_bookkeeping, I9_reorg_exact});
  o.domain = Domain{};
  for (const auto& r : prove(o)) EXPECT_EQ(r.status, Status::not_encoded) << info(r.invariant).tag;
}

// Every encoded row of the packed versions proves on the seed's pins, on the grid's one triple
// (not the lemma chains: the pins make the audit's proof linear), I-8 and I-9 included.
TEST(SmtPinnedEntry, PackedSeedRowsProveOnTheSplitGrid) {
  for (Version v : {Version::v5_packed, Version::v6_current}) {
    ProveOptions o = pinned(v, {I1_workspace_div_dcp, I2_nonempty_chunk_width, I3_coverage, I4_global_row_budget,
                                I6_virtual_block_alignment, I7_local_row_budget, I8_local_length_bookkeeping,
                                I9_reorg_exact, I10_gather_start_semantics});
    o.jobs = 2;
    for (const auto& r : prove(o)) {
      const std::string what = std::string(name(v)) + " " + std::string(info(r.invariant).tag);
      EXPECT_EQ(r.status, Status::proved) << what << ": " << r.detail;
      EXPECT_EQ(r.cases, 1) << what;
      EXPECT_NE(r.method.find("split grid"), std::string::npos) << what << ": " << r.method;
      EXPECT_NE(r.method.find("any ctx"), std::string::npos) << what << ": " << r.method;
      EXPECT_GE(r.queries, 2) << what;
    }
  }
}

// The split grid's pieces carry witnesses (`all-occurs`, `split-occurs`): a proof about a piece
// no case has is UNKNOWN, not PROVED. With S = 4 < W rows per rank there is no piece at all (the
// planner asserts first: I-2's counterexample).
TEST(SmtPinnedEntry, PiecesThatNeverOccurAreUnknown) {
  ProveOptions o = pinned(Version::v5_packed, {I2_nonempty_chunk_width, I8_local_length_bookkeeping, I9_reorg_exact});
  o.domain = Domain{};
  for (const char* p : {"block=64", "dcp=8", "interleave=1", "workspace=4"}) o.domain.pin(p);
  const auto rows = prove(o);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].status, Status::counterexample) << rows[0].detail;
  for (std::size_t i : {1u, 2u}) {
    EXPECT_EQ(rows[i].status, Status::unknown) << info(rows[i].invariant).tag << ": " << rows[i].detail;
    ASSERT_EQ(rows[i].unknown_cases.size(), 1u);
    EXPECT_NE(rows[i].unknown_cases[0].find("all-occurs': vacuous"), std::string::npos) << rows[i].unknown_cases[0];
  }
}

// A pinned interleave that is no power of two (I = 3, B = 48) is the grid's interleave: one case,
// proved (the grid once had no case for it, and a row without cases read PROVED).
TEST(SmtPinnedEntry, PinnedOddInterleaveIsAGridCase) {
  ProveOptions o;
  o.versions = {Version::v6_current};
  o.platforms = {Platform::cuda};
  o.invariants = {I8_local_length_bookkeeping, I9_reorg_exact};
  o.jobs = 2;
  o.rlimit = 40'000'000;
  o.timeout_s = 60;
  for (const char* p : {"block=48", "dcp=2", "interleave=3", "workspace=4096"}) o.domain.pin(p);
  for (const auto& r : prove(o)) {
    EXPECT_EQ(r.cases, 1) << info(r.invariant).tag;
    EXPECT_EQ(r.status, Status::proved) << info(r.invariant).tag << ": " << r.detail;
  }
}

// A split grid with no case in the domain proves nothing: UNKNOWN, never PROVED.
TEST(SmtPinnedEntry, EmptyGridIsUnknown) {
  ProveOptions o;
  o.versions = {Version::v6_current};
  o.platforms = {Platform::rocm};
  o.invariants = {I6_virtual_block_alignment};
  o.domain.apply("packed=split");
  o.domain.apply("blocks=64");
  o.domain.apply("block=16");  // 64 > block_max: no block of the grid
  const auto rows = prove(o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].cases, 0);
  EXPECT_EQ(rows[0].status, Status::unknown) << rows[0].detail;
}

}  // namespace
}  // namespace cp::smt

// Issue 18: hand-built plans for check branches no planner reaches (I-3 "scheduled twice",
// I-4's budget, I-6 on an unbuilt plan and its local_start branch, boundaries of I-7), and the
// invariant-name parser. Each plan starts as a real one and is bent in ONE field, so the test
// fails if the check's comparison, branch or message changes.
#include <gtest/gtest.h>

#include <string>

#include "invariants/catalogue.h"
#include "reference/dcp/simulate.h"

namespace cp {
namespace {

struct Bent {
  Case c;
  Plan p;
  explicit Bent(const std::string& line) : c(parse_case(line)), p(make_plan(c)) {}
  InvariantResult run(InvariantId id) const { return check(id, c, p); }
};

// v6, no DCP: chunk 0 = r0 [0, 900) + r1 [0, 96); chunk 1 = r1 [96, 900).
constexpr const char* kPacked = "version=v6-current platform=cuda workspace=1000 block=16 ctx=900,900 q=4,4";

TEST(CheckBranches, I3ScheduledTwiceSkippedPastAndUncovered) {
  {
    Bent b(kPacked);
    ASSERT_EQ(b.p.chunks.size(), 2u);
    ASSERT_EQ(b.p.chunks[1].entries[0].start, 96);
    EXPECT_EQ(b.run(InvariantId::I3_coverage).verdict, Verdict::ok);
    b.p.chunks[1].entries[0].start = 90;
    b.p.chunks[1].entries[0].len = 810;
    const auto r = b.run(InvariantId::I3_coverage);
    ASSERT_EQ(r.verdict, Verdict::violated);
    ASSERT_EQ(r.total_violations, 1);
    EXPECT_EQ(r.violations[0].chunk, 1);
    EXPECT_EQ(r.violations[0].request, 1);
    EXPECT_EQ(r.violations[0].reason, "positions scheduled twice");
    EXPECT_EQ(r.violations[0].expected, "span starts at 96");
    EXPECT_EQ(r.violations[0].got, "[90, 900)");
  }
  {
    Bent b(kPacked);
    b.p.chunks[1].entries[0].start = 100;
    b.p.chunks[1].entries[0].len = 800;
    const auto r = b.run(InvariantId::I3_coverage);
    ASSERT_EQ(r.total_violations, 1);
    EXPECT_EQ(r.violations[0].reason, "positions skipped");
  }
  {
    Bent b(kPacked);
    b.p.chunks[1].entries[0].len = 805;  // ends at 901
    const auto r = b.run(InvariantId::I3_coverage);
    ASSERT_EQ(r.total_violations, 2);
    EXPECT_EQ(r.violations[0].reason, "span reaches past the context");
    EXPECT_EQ(r.violations[0].got, "901");
    EXPECT_EQ(r.violations[1].reason, "context not fully covered");
    EXPECT_EQ(r.violations[1].request, 1);
    EXPECT_EQ(r.violations[1].got, "covered up to 901");
  }
  {
    Bent b(kPacked);
    b.p.chunks[1].entries[0].len = 800;  // ends at 896
    const auto r = b.run(InvariantId::I3_coverage);
    ASSERT_EQ(r.total_violations, 1);
    EXPECT_EQ(r.violations[0].request, 1);
    EXPECT_EQ(r.violations[0].chunk, -1);  // a request-level finding: no chunk, rank or row
    EXPECT_EQ(r.violations[0].rank, -1);
    EXPECT_EQ(r.violations[0].row, -1);
    EXPECT_EQ(r.violations[0].got, "covered up to 896");
  }
  {
    Bent b(kPacked);
    b.p.chunks[1].entries.push_back({.request = 0, .start = 7, .len = 0});  // empty spans are not checked
    EXPECT_EQ(b.run(InvariantId::I3_coverage).verdict, Verdict::ok);
    b.p.built = false;
    EXPECT_EQ(b.run(InvariantId::I3_coverage).verdict, Verdict::not_evaluated);
  }
}

TEST(CheckBranches, I4BudgetIsInclusive) {
  Bent b(kPacked);
  EXPECT_EQ(b.run(InvariantId::I4_global_row_budget).verdict, Verdict::ok);
  b.p.chunks[1].cu_seq_lens.back() = 1000;  // == S: fits
  EXPECT_EQ(b.run(InvariantId::I4_global_row_budget).verdict, Verdict::ok);
  b.p.chunks[1].cu_seq_lens.back() = 1001;
  const auto r = b.run(InvariantId::I4_global_row_budget);
  ASSERT_EQ(r.verdict, Verdict::violated);
  EXPECT_EQ(r.total_violations, 1);
  EXPECT_EQ(r.violations[0].chunk, 1);
  EXPECT_EQ(r.violations[0].got, "1001");
  EXPECT_EQ(r.violations[0].expected, "sum of span lengths <= S=1000");
  b.p.built = false;
  EXPECT_EQ(b.run(InvariantId::I4_global_row_budget).verdict, Verdict::not_evaluated);
}

TEST(CheckBranches, I5PageRoundingStarts) {
  const Evaluation rocm =
      evaluate(parse_case("version=v1-dcp platform=rocm workspace=1000 block=16 ctx=900,900 q=4,4"));
  const auto& r = rocm.results[static_cast<std::size_t>(InvariantId::I5_page_aligned_starts)];
  ASSERT_EQ(r.verdict, Verdict::violated);
  EXPECT_EQ(r.total_violations, 2);
  EXPECT_EQ(r.violations[0].chunk, 1);
  EXPECT_EQ(r.violations[0].request, 0);
  EXPECT_EQ(r.violations[0].got, "start=500 (mod B = 4)");
  EXPECT_EQ(r.violations[0].reason, "the batch-grid kernel copies from position 496 instead of 500");
  const Evaluation cuda =
      evaluate(parse_case("version=v1-dcp platform=cuda workspace=1000 block=16 ctx=900,900 q=4,4"));
  EXPECT_EQ(cuda.results[static_cast<std::size_t>(InvariantId::I5_page_aligned_starts)].verdict, Verdict::ok);
  EXPECT_EQ(
      evaluate(parse_case(kPacked)).results[static_cast<std::size_t>(InvariantId::I5_page_aligned_starts)].verdict,
      Verdict::not_applicable);
}

// v2 on ROCm with W=2: M=500, chunk 1 starts at 500 (V=2 divides it), local_start 250.
constexpr const char* kOld = "version=v2-interleave platform=rocm workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4";

TEST(CheckBranches, I6OnAnUnbuiltOldPlanJudgesM) {
  Bent b(kOld);
  EXPECT_EQ(b.run(InvariantId::I6_virtual_block_alignment).verdict, Verdict::ok);
  b.p.built = false;
  b.p.chunk_width = 501;
  auto r = b.run(InvariantId::I6_virtual_block_alignment);
  ASSERT_EQ(r.verdict, Verdict::violated);
  EXPECT_EQ(r.violations[0].got, "M=501 (mod V = 1)");
  b.p.chunk_width = 500;
  EXPECT_EQ(b.run(InvariantId::I6_virtual_block_alignment).verdict, Verdict::ok);
  b.p.chunk_width = 0;
  EXPECT_EQ(b.run(InvariantId::I6_virtual_block_alignment).verdict, Verdict::ok);
  b.p.chunk_width = 501;
  b.p.packed = true;
  EXPECT_EQ(b.run(InvariantId::I6_virtual_block_alignment).verdict, Verdict::ok);
}

TEST(CheckBranches, I6BuiltPlanStartsAndLocalStarts) {
  {
    Bent b(kOld);
    ASSERT_EQ(b.p.chunks[1].entries[1].start, 500);
    b.p.chunks[1].entries[1].local_start = 251;
    const auto r = b.run(InvariantId::I6_virtual_block_alignment);
    ASSERT_EQ(r.total_violations, 1);
    EXPECT_EQ(r.violations[0].chunk, 1);
    EXPECT_EQ(r.violations[0].request, 1);
    EXPECT_EQ(r.violations[0].expected, "local_start == start/W = 250");
    EXPECT_EQ(r.violations[0].got, "251");
  }
  {
    Bent b(kOld);
    b.p.chunks[1].entries[0].start = 501;
    const auto r = b.run(InvariantId::I6_virtual_block_alignment);
    ASSERT_EQ(r.total_violations, 1);
    EXPECT_EQ(r.violations[0].request, 0);
    EXPECT_EQ(r.violations[0].got, "start=501 (mod V = 1)");
  }
  {
    Bent b(kOld);
    b.p.chunks[1].entries[0].len = 0;  // empty and zero-start spans are not judged
    b.p.chunks[1].entries[0].start = 501;
    b.p.chunks[0].entries[0].local_start = 3;
    EXPECT_EQ(b.run(InvariantId::I6_virtual_block_alignment).verdict, Verdict::ok);
  }
  Bent none(kPacked);
  EXPECT_EQ(none.run(InvariantId::I6_virtual_block_alignment).verdict, Verdict::not_applicable);
}

TEST(CheckBranches, I7BudgetIsInclusiveAndNamesTheChunk) {
  Bent b(kOld);
  ASSERT_EQ(b.run(InvariantId::I7_local_row_budget).verdict, Verdict::ok);
  b.p.chunks[0].padded_local_cu.back() = 500;  // == S/W
  EXPECT_EQ(b.run(InvariantId::I7_local_row_budget).verdict, Verdict::ok);
  b.p.chunks[0].padded_local_cu.back() = 501;
  const auto r = b.run(InvariantId::I7_local_row_budget);
  ASSERT_EQ(r.total_violations, 1);
  EXPECT_EQ(r.violations[0].chunk, 0);
  EXPECT_EQ(r.violations[0].got, "501");
  b.p.built = false;
  EXPECT_EQ(b.run(InvariantId::I7_local_row_budget).verdict, Verdict::not_evaluated);
}

TEST(CheckBranches, I8LocalContextMustSumToTheContext) {
  Bent b(kOld);
  ASSERT_EQ(b.run(InvariantId::I8_local_length_bookkeeping).verdict, Verdict::ok);
  b.p.local_ctx[1][0] += 1;
  const auto r = b.run(InvariantId::I8_local_length_bookkeeping);
  ASSERT_EQ(r.verdict, Verdict::violated);
  EXPECT_EQ(r.violations[0].request, 1);
  EXPECT_EQ(r.violations[0].got, "901");
  // (b) a gather of 0 rows misses the share of BOTH ranks (and there is no rank W).
  Bent g(kOld);
  g.p.chunks[0].entries[0].padded_local_len = 0;
  const auto q = g.run(InvariantId::I8_local_length_bookkeeping);
  ASSERT_EQ(q.total_violations, 2);
  EXPECT_EQ(q.violations[0].rank, 0);
  EXPECT_EQ(q.violations[1].rank, 1);
  EXPECT_EQ(q.violations[0].expected, "padded_local_len >= 250 (rows the rank owns in the span)");
}

TEST(CheckBranches, I2ZeroWidthOnlyWithContext) {
  Bent b(kPacked);
  b.p.chunk_width = 0;
  EXPECT_EQ(b.run(InvariantId::I2_nonempty_chunk_width).verdict, Verdict::violated);
  b.p.chunk_width = 1;
  EXPECT_EQ(b.run(InvariantId::I2_nonempty_chunk_width).verdict, Verdict::ok);
  Bent free("version=v6-current platform=cuda workspace=1000 block=16 ctx=0,0 q=4,4");
  free.p.chunk_width = 0;
  EXPECT_EQ(free.run(InvariantId::I2_nonempty_chunk_width).verdict, Verdict::not_applicable);
}

TEST(CheckBranches, ParseInvariantAcceptsEverySpellingAndRejectsTheRest) {
  InvariantId id{};
  for (const char* s : {"I-6", "I6", "6", "i-6", "i6", "-6", "I6_virtual_block_alignment"}) {
    id = InvariantId::I1_workspace_div_dcp;
    EXPECT_TRUE(parse_invariant(s, id)) << s;
    EXPECT_EQ(id, InvariantId::I6_virtual_block_alignment) << s;
  }
  EXPECT_TRUE(parse_invariant("13", id));
  EXPECT_EQ(id, InvariantId::I13_context_prefix);
  EXPECT_TRUE(parse_invariant("1", id));
  EXPECT_EQ(id, InvariantId::I1_workspace_div_dcp);
  for (const char* s : {"0", "14", "6x", "", "I-", "x6", "I--6"}) EXPECT_FALSE(parse_invariant(s, id)) << s;
}

// validate_case rejects these configs, so only a hand-built plan reaches I-11's first branch
// (the check reads the plan's geometry, I and V = I*W bent together).
TEST(CheckBranches, I11InterleaveMustDivideTheBlock) {
  Bent b(kOld);
  EXPECT_EQ(b.run(InvariantId::I11_config_validity).verdict, Verdict::ok);
  const auto interleave = [&b](std::int64_t I) {
    b.p.interleave = I;
    b.p.virtual_block = I * b.p.dcp;
  };
  interleave(4);
  EXPECT_EQ(b.run(InvariantId::I11_config_validity).verdict, Verdict::ok);
  interleave(3);  // I < B but does not divide it
  auto r = b.run(InvariantId::I11_config_validity);
  ASSERT_EQ(r.verdict, Verdict::violated);
  EXPECT_EQ(r.violations[0].got, "I=3 B=16");
  interleave(32);  // I > B
  EXPECT_EQ(b.run(InvariantId::I11_config_validity).verdict, Verdict::violated);
}

TEST(CheckBranches, DecodeNoteOnlyWithDecodes) {
  const auto has_decode_note = [](const Plan& p) {
    for (const auto& n : p.notes)
      if (n.find("decode") != std::string::npos) return true;
    return false;
  };
  EXPECT_FALSE(has_decode_note(make_plan(parse_case(kPacked))));
  const Plan p = make_plan(parse_case("version=v6-current platform=cuda workspace=1000 block=16 ctx=5,900 q=1,4"));
  EXPECT_EQ(p.num_decodes, 1);
  EXPECT_TRUE(has_decode_note(p));
}

// vLLM 903ecb17 bookkeeping: no prefill_tokens_with_context; every context-free prefill is an
// empty query range, also those after the last request with context (no metadata at all when
// no prefill has context: no chunk, no merge).
TEST(CheckBranches, V6EmptyRangesListEveryContextFreePrefill) {
  const Plan none = make_plan(parse_case("version=v6-current platform=cuda workspace=1000 block=16 ctx=0,0 q=4,4"));
  EXPECT_FALSE(none.prefill_tokens_with_context.has_value());  // no chunk, no merge
  EXPECT_TRUE(none.empty_token_ranges.empty());
  const Plan mixed =
      make_plan(parse_case("version=v6-current platform=cuda workspace=1000 block=16 ctx=64,0,64,0 q=4,4,4,4"));
  EXPECT_FALSE(mixed.prefill_tokens_with_context.has_value());
  EXPECT_EQ(mixed.empty_token_ranges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 8}, {12, 16}}));
}

TEST(CheckBranches, ClassifyRowKindsAtTheirBoundaries) {
  const Case c = parse_case(kPacked);  // request 0: ctx 900, q 4
  EXPECT_EQ(classify(c, 0, -1).kind, RowKind::stale);
  EXPECT_EQ(classify(c, 0, 0).kind, RowKind::context);
  EXPECT_EQ(classify(c, 0, 899).kind, RowKind::context);
  EXPECT_EQ(classify(c, 0, 900).kind, RowKind::new_token);
  EXPECT_EQ(classify(c, 0, 903).kind, RowKind::new_token);
  EXPECT_EQ(classify(c, 0, 904).kind, RowKind::stale);
}

// I-9 without a single foreign row: the entry claims 10 positions more than the movement
// delivers. Every row it received is its own, so only "never received" can flag it (a check
// that looked at foreign rows alone would pass this plan).
TEST(CheckBranches, I9MissingRowsWithoutForeignRows) {
  Bent b("version=v6-current platform=cuda workspace=1000 block=16 dcp=2 interleave=1 ctx=900,900 q=4,4");
  ASSERT_EQ(b.run(InvariantId::I9_reorg_exact).verdict, Verdict::ok);
  ChunkEntry& e = b.p.chunks[0].entries[0];
  ASSERT_EQ(e.request, 0);
  const std::int64_t end = e.start + e.len;
  e.len += 10;
  const auto r = b.run(InvariantId::I9_reorg_exact);
  ASSERT_EQ(r.verdict, Verdict::violated);
  ASSERT_EQ(r.total_violations, 1);
  EXPECT_EQ(r.violations[0].chunk, 0);
  EXPECT_EQ(r.violations[0].request, 0);
  EXPECT_EQ(r.violations[0].reason, "rows lost or repeated");
  EXPECT_EQ(r.violations[0].got,
            "10 position(s) never received (" + std::to_string(end) + ".." + std::to_string(end + 9) + ")");
}

TEST(CheckBranches, AtMostKMaxRecordedViolationsButAllCounted) {
  const Evaluation ev =
      evaluate(parse_case("version=v2-interleave platform=cuda workspace=32768 block=64 dcp=2 interleave=64 "
                          "ctx=6000,6000,6000,6000,6000,6000 "
                          "q=4,4,4,4,4,4"));
  const auto& i9 = ev.results[static_cast<std::size_t>(InvariantId::I9_reorg_exact)];
  EXPECT_EQ(i9.total_violations, 11);
  EXPECT_EQ(i9.violations.size(), kMaxRecorded);
}

}  // namespace
}  // namespace cp

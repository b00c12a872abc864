// Issue 18: expectations that fail when a version's numbers change. Each case is chosen where
// versions, platforms or builders DIFFER (W not dividing B, ROCm vs CUDA, dense vs sparse), so
// a swapped platform rule or a dropped rounding changes a pinned value; every invariant named
// here is violated for the right reason, with its chunk/request/rank in the message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "invariants/catalogue.h"
#include "reference/planner/arith.h"

namespace cp {
namespace {

Evaluation ev_of(const std::string& line) { return evaluate(parse_case(line)); }

struct Pin {
  const char* line;
  Outcome outcome;
  std::int64_t M, align, PL;
  std::vector<std::int64_t> starts_of_request0;  // chunk starts of request 0, in chunk order
};

class VersionPin : public ::testing::TestWithParam<Pin> {};

TEST_P(VersionPin, ChunkWidthAlignmentSplitsAndOutcome) {
  const Pin& pin = GetParam();
  const Evaluation ev = ev_of(pin.line);
  EXPECT_EQ(ev.outcome, pin.outcome) << pin.line;
  EXPECT_EQ(ev.plan.chunk_width, pin.M) << pin.line;
  EXPECT_EQ(ev.plan.align, pin.align) << pin.line;
  EXPECT_EQ(ev.plan.local_chunk, pin.PL) << pin.line;
  std::vector<std::int64_t> starts;
  for (const auto& ch : ev.plan.chunks)
    for (const auto& e : ch.entries)
      if (e.request == 0) starts.push_back(e.start);
  EXPECT_EQ(starts, pin.starts_of_request0) << pin.line;
}

INSTANTIATE_TEST_SUITE_P(
    Versions, VersionPin,
    ::testing::Values(
        // v0-early rounds to page_size on CUDA (FA3) ...
        Pin{"version=v0-early platform=cuda workspace=1000 block=16 ctx=900,900 q=4,4",
            Outcome::ok,
            496,
            16,
            0,
            {0, 496}},
        // ... and crashes off CUDA before planning (no page_size).
        Pin{"version=v0-early platform=rocm workspace=1000 block=16 ctx=900,900 q=4,4", Outcome::crashed, 0, 1, 0, {}},
        // v0-early sizing: min(max(8*mml, 4*mns*B), 128K) = 32768.
        Pin{"version=v0-early platform=cuda max_model_len=4096 max_num_seqs=4 block=16 ctx=900,900 q=4,4",
            Outcome::ok,
            16384,
            16,
            0,
            {0}},
        // v1: rounds to B only with aot_schedule; PL = M // W.
        Pin{"version=v1-dcp platform=cuda workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4",
            Outcome::ok,
            496,
            16,
            248,
            {0, 496}},
        Pin{"version=v1-dcp platform=rocm workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4",
            Outcome::ok,
            500,
            1,
            250,
            {0, 500}},
        // v1's reorg on a DCP case that must pass.
        Pin{"version=v1-dcp platform=cuda workspace=4096 block=16 dcp=2 ctx=3000,3001 q=4,4",
            Outcome::ok,
            2048,
            16,
            1024,
            {0, 2048}},
        // pr41229 with W=3 not dividing B=16: lcm(B, W)=48 on CUDA, W on ROCm.
        Pin{"version=pr41229 platform=cuda workspace=960 block=16 dcp=3 ctx=900,900,900 q=4,4,4",
            Outcome::ok,
            288,
            48,
            96,
            {0, 288, 576, 864}},
        Pin{"version=pr41229 platform=rocm workspace=960 block=16 dcp=3 ctx=900,900,900 q=4,4,4",
            Outcome::ok,
            318,
            3,
            106,
            {0, 318, 636}},
        // v2 (interleave-aware): rounding gated on aot_schedule.
        Pin{"version=v2-interleave platform=rocm workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4",
            Outcome::ok,
            500,
            1,
            250,
            {0, 500}},
        Pin{"version=v2-interleave platform=cuda workspace=1000 block=16 dcp=2 interleave=4 ctx=900,900 q=4,4",
            Outcome::ok,
            496,
            16,
            248,
            {0, 496}},
        // v3/v4: the dense builder rounds to B on every platform; sparse only on CUDA.
        Pin{"version=v3-pr46114 platform=rocm builder=dense workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4",
            Outcome::ok,
            496,
            16,
            248,
            {0, 496}},
        Pin{"version=v3-pr46114 platform=rocm builder=sparse workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4",
            Outcome::ok,
            500,
            1,
            250,
            {0, 500}},
        Pin{"version=v3-pr46114 platform=cuda builder=sparse workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4",
            Outcome::ok,
            496,
            16,
            248,
            {0, 496}},
        Pin{"version=v4-pr47327 platform=rocm builder=sparse workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4",
            Outcome::ok,
            500,
            1,
            250,
            {0, 500}},
        Pin{"version=v4-pr47327 platform=rocm builder=dense workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4",
            Outcome::ok,
            496,
            16,
            248,
            {0, 496}},
        // v5/v6 packed: Mmax = round_down(S, align); align per builder and platform.
        Pin{"version=v5-packed platform=rocm builder=sparse workspace=1000 block=16 ctx=900,900 q=4,4",
            Outcome::ok,
            1000,
            1,
            0,
            {0}},
        Pin{"version=v5-packed platform=rocm builder=dense workspace=1000 block=16 ctx=900,900 q=4,4",
            Outcome::ok,
            992,
            16,
            0,
            {0}},
        Pin{"version=v6-current platform=cuda builder=sparse workspace=1000 block=16 ctx=900,900 q=4,4",
            Outcome::ok,
            992,
            16,
            0,
            {0}},
        Pin{"version=v6-current platform=rocm builder=sparse workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4",
            Outcome::ok,
            1000,
            2,
            0,
            {0}}));

// The packed split of request 1 moves with the alignment (dense 96, sparse-on-ROCm 100).
TEST(VersionPinSplits, PackedSplitPointDependsOnBuilderAndPlatform) {
  for (const auto& [line, split] : std::vector<std::pair<std::string, std::int64_t>>{
           {"version=v5-packed platform=rocm builder=sparse workspace=1000 block=16 ctx=900,900 q=4,4", 100},
           {"version=v5-packed platform=rocm builder=dense workspace=1000 block=16 ctx=900,900 q=4,4", 96},
           {"version=v6-current platform=rocm builder=sparse workspace=1000 block=16 dcp=2 ctx=900,900 q=4,4", 100},
           {"version=v6-current platform=cuda builder=sparse workspace=1000 block=16 ctx=900,900 q=4,4", 96}}) {
    const Evaluation ev = ev_of(line);
    ASSERT_EQ(ev.plan.chunks.size(), 2u) << line;
    const Chunk& c0 = ev.plan.chunks[0];
    const Chunk& c1 = ev.plan.chunks[1];
    EXPECT_EQ(c0.request_start, 0);
    EXPECT_EQ(c0.request_end, 2);
    EXPECT_FALSE(c0.is_continuation);
    ASSERT_EQ(c0.entries.size(), 2u);
    EXPECT_EQ(c0.entries[1].len, split) << line;
    EXPECT_EQ(c1.request_start, 1);
    EXPECT_TRUE(c1.is_continuation);
    EXPECT_EQ(c1.token_start, 4);
    EXPECT_EQ(c1.token_end, 8);
    ASSERT_EQ(c1.entries.size(), 1u);
    EXPECT_EQ(c1.entries[0].start, split) << line;
    EXPECT_EQ(c1.entries[0].len, 900 - split) << line;
    // total_tokens() against the entries, not against its own definition.
    std::int64_t sum = 0;
    for (const auto& e : c0.entries) sum += e.len;
    EXPECT_EQ(c0.total_tokens(), sum);
  }
}

// UpstreamS9 tested arith::packed_alignment; this checks the alignment the PLANNER uses.
TEST(VersionPinSplits, PlannerAlignmentIsLcmOfBlockAndVirtualBlock) {
  const Evaluation ev =
      ev_of("version=v6-current platform=cuda workspace=1024 block=32 dcp=8 interleave=8 ctx=1000,1000 q=4,4");
  EXPECT_EQ(ev.plan.align, 64);
  EXPECT_EQ(ev.plan.align, arith::packed_alignment(Int(32), Int(8), Int(8)).get());
  EXPECT_EQ(ev.plan.chunk_width, 1024);
  EXPECT_EQ(ev.plan.row_budget, 128);
  for (const auto& ch : ev.plan.chunks)
    for (const auto& e : ch.entries) EXPECT_EQ((e.start + e.len == 1000) || (e.start + e.len) % 64 == 0, true);
}

// Spec5 through make_plan (version/platform gating included), not old_chunk_width directly.
TEST(VersionPinSplits, ContextParallelI64WidthThroughThePlanner) {
  for (int n = 1; n <= 8; ++n) {
    std::string ctx, q;
    for (int i = 0; i < n; ++i) {
      ctx += (i ? "," : "") + std::string("6000");
      q += (i ? "," : "") + std::string("4");
    }
    const Evaluation cuda = ev_of(
        "version=v2-interleave platform=cuda workspace=32768 block=64 dcp=2 interleave=64 ctx=" + ctx + " q=" + q);
    EXPECT_EQ(cuda.plan.chunk_width % 128 != 0, n == 6 || n == 7) << n;
    if (n == 6) {
      EXPECT_EQ(cuda.plan.chunk_width, 5440);
    }
    if (n == 7) {
      EXPECT_EQ(cuda.plan.chunk_width, 4672);
    }
    // ROCm does not round: 32768 // 6.
    const Evaluation rocm = ev_of(
        "version=v2-interleave platform=rocm workspace=32768 block=64 dcp=2 interleave=64 ctx=" + ctx + " q=" + q);
    EXPECT_EQ(rocm.plan.chunk_width, 32768 / n) << n;
  }
}

// The test named for v3 and v4 now runs both.
TEST(VersionPinSplits, V3AndV4OnCudaWithInterleave1AndBlockMultipleOfWAreAligned) {
  for (const char* v : {"v3-pr46114", "v4-pr47327"}) {
    const Evaluation ev =
        ev_of(std::string("version=") + v +
              " platform=cuda workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,30000,30000 q=4,4,4");
    EXPECT_EQ(ev.outcome, Outcome::ok) << v;
    EXPECT_EQ(ev.plan.chunk_width, 21824) << v;
  }
}

const InvariantResult& res(const Evaluation& ev, InvariantId id) { return ev.results[static_cast<std::size_t>(id)]; }

// Every invariant the planners can break, violated for the right reason at the right place.
TEST(InvariantViolations, EachNamesItsChunkRequestAndRank) {
  {  // I-1: S mod W
    const Evaluation ev = ev_of(
        "version=v2-interleave platform=cuda max_model_len=4095 max_num_seqs=64 block=16 dcp=16 ctx=7000,2000 q=8,8");
    ASSERT_TRUE(ev.violated(InvariantId::I1_workspace_div_dcp));
    EXPECT_EQ(res(ev, InvariantId::I1_workspace_div_dcp).violations[0].got, "S=32760 mod W=16 = 8");
    EXPECT_EQ(ev.first_assert()->which, "chunked_prefill_workspace_size % dcp_world_size == 0");
    EXPECT_EQ(ev.first_assert()->stage, "init");
  }
  {  // I-2: zero width
    const Evaluation ev =
        ev_of("version=v3-pr46114 platform=cuda workspace=256 block=64 ctx=100,100,100,100,100 q=4,4,4,4,4");
    ASSERT_TRUE(ev.violated(InvariantId::I2_nonempty_chunk_width));
    EXPECT_EQ(res(ev, InvariantId::I2_nonempty_chunk_width).violations[0].got, "M=0 (S=256, n=5, align=64)");
    EXPECT_EQ(ev.first_assert()->which, "max_context_chunk > 0");
  }
  {  // I-6, I-7, I-8, I-9, I-10 on the interleave-64 family
    const Evaluation ev = ev_of(
        "version=v2-interleave platform=cuda workspace=32768 block=64 dcp=2 interleave=64 "
        "ctx=6000,6000,6000,6000,6000,6000 "
        "q=4,4,4,4,4,4");
    EXPECT_EQ(ev.outcome, Outcome::assert_fired);
    EXPECT_EQ(ev.first_assert()->which, "toks <= allgather_offset");
    EXPECT_EQ(ev.first_assert()->chunk, 0);
    const auto& i6 = res(ev, InvariantId::I6_virtual_block_alignment);
    ASSERT_EQ(i6.verdict, Verdict::violated);
    EXPECT_EQ(i6.total_violations, 6);
    EXPECT_EQ(i6.violations[0].chunk, 1);
    EXPECT_EQ(i6.violations[0].request, 0);
    EXPECT_EQ(i6.violations[0].got, "start=5440 (mod V = 64)");
    const auto& i7 = res(ev, InvariantId::I7_local_row_budget);
    ASSERT_EQ(i7.verdict, Verdict::violated);
    EXPECT_EQ(i7.total_violations, 1);
    EXPECT_EQ(i7.violations[0].chunk, 0);
    EXPECT_EQ(i7.violations[0].got, "16512");
    const auto& i8 = res(ev, InvariantId::I8_local_length_bookkeeping);
    ASSERT_EQ(i8.verdict, Verdict::violated);
    EXPECT_EQ(i8.total_violations, 6);  // rank 1 of each of the 6 spans of chunk 1, nothing else
    EXPECT_EQ(i8.violations[0].chunk, 1);
    EXPECT_EQ(i8.violations[0].request, 0);
    EXPECT_EQ(i8.violations[0].rank, 1);
    EXPECT_EQ(i8.violations[0].got, "256");
    const auto& i9 = res(ev, InvariantId::I9_reorg_exact);
    ASSERT_EQ(i9.verdict, Verdict::violated);
    EXPECT_EQ(i9.total_violations, 11);
    EXPECT_EQ(i9.violations[0].chunk, 0);
    EXPECT_EQ(i9.violations[0].request, 1);
    EXPECT_EQ(i9.violations[0].row, 5440);
    const auto& i10 = res(ev, InvariantId::I10_gather_start_semantics);
    ASSERT_EQ(i10.verdict, Verdict::violated);
    EXPECT_EQ(i10.violations[0].chunk, 1);
    EXPECT_EQ(i10.violations[0].rank, 1);
    EXPECT_EQ(i10.violations[0].got, "2752");
    EXPECT_FALSE(ev.violated(InvariantId::I3_coverage));
    EXPECT_FALSE(ev.violated(InvariantId::I4_global_row_budget));
  }
  {  // I-12 and I-13 name the chunk and request
    const Evaluation ev = ev_of("version=v2-interleave platform=rocm workspace=65536 block=64 ctx=0,70000 q=4,4");
    EXPECT_EQ(ev.outcome, Outcome::violation);
    const auto& i12 = res(ev, InvariantId::I12_merge_preconditions);
    ASSERT_EQ(i12.verdict, Verdict::violated);
    EXPECT_EQ(i12.violations[0].chunk, 1);
    EXPECT_EQ(i12.violations[0].request, 0);
    const auto& i13 = res(ev, InvariantId::I13_context_prefix);
    ASSERT_EQ(i13.verdict, Verdict::violated);
    EXPECT_EQ(i13.violations[0].request, 1);
    EXPECT_EQ(i13.total_violations, 1);
  }
  {  // a passing DCP case violates nothing
    const Evaluation ev = ev_of("version=v1-dcp platform=cuda workspace=4096 block=16 dcp=2 ctx=3000,3001 q=4,4");
    for (const auto& r : ev.results) EXPECT_NE(r.verdict, Verdict::violated) << info(r.id).tag;
  }
}

}  // namespace
}  // namespace cp

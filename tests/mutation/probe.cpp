// The mutation sample's test binary (ctest `mutation.sample`, docs/testing.md): ONE translation
// unit over header-only code (the planner arithmetic, the exact accumulator, the merge), so
// tools/mutate can rebuild it per mutant in seconds without the project's libraries. It pins the
// planner formulas on values where a dropped rounding or a swapped rule changes the answer, and
// reuses the accumulator-carry and merge-inf tests.
#include <gtest/gtest.h>

#include "reference/planner/arith.h"
#include "tests/mla/test_carries_and_inf.cpp"  // NOLINT(bugprone-suspicious-include): one TU on purpose

namespace cp::mla {
namespace {

TEST(ProbeAcc, SubUlpTermsRoundToNearestEven) {
  const auto one = [](float x) {
    ExactAcc a;
    a.clear();
    a.add(x);
    return to_double(a);
  };
  const double ulp = std::ldexp(1.0, -96);
  EXPECT_EQ(one(std::ldexp(7.0f, -98)), 2 * ulp);  // 1.75 ulp: above half
  EXPECT_EQ(one(std::ldexp(5.0f, -98)), 1 * ulp);  // 1.25 ulp: below half
  EXPECT_EQ(one(std::ldexp(3.0f, -97)), 2 * ulp);  // 1.5 ulp: tie, to even
  EXPECT_EQ(one(std::ldexp(5.0f, -97)), 2 * ulp);  // 2.5 ulp: tie, to even
  EXPECT_EQ(one(std::ldexp(1.0f, -97)), 0.0);      // 0.5 ulp: tie, to even (0)
}

TEST(ProbeAcc, MergeCountsTermsAndNormalize) {
  ExactAcc a, b;
  a.clear();
  b.clear();
  a.add(1.0f);
  b.add(2.0f);
  b.add(1.0f);
  a.merge(b);
  EXPECT_EQ(a.count, 3u);
  EXPECT_TRUE(a.ok());
  ExactAcc d;
  d.clear();
  d.add(8.0f);
  EXPECT_EQ(normalize(a, d), 0.5f);
  ExactAcc z;
  z.clear();
  EXPECT_TRUE(std::isnan(normalize(a, z)));
}

TEST(ProbeMergeOracle, EmptySideAndLargeLseGap) {
  const double p[2] = {3.0, 4.0}, s[2] = {1.0, 2.0};
  double o[2], lse = 0;
  merge_oracle_f64(p, -INFINITY, s, 0.5, 2, o, &lse);
  EXPECT_EQ(o[0], 1.0);
  EXPECT_EQ(lse, 0.5);
  merge_oracle_f64(p, 0.0, s, 1000.0, 2, o, &lse);  // exp(1000) overflows unless shifted by the max
  EXPECT_EQ(o[0], 1.0);
  EXPECT_EQ(o[1], 2.0);
  EXPECT_EQ(lse, 1000.0);
  merge_oracle_f64(p, INFINITY, s, -INFINITY, 2, o, &lse);
  EXPECT_EQ(o[0], 0.0);
  EXPECT_EQ(lse, -INFINITY);
}

}  // namespace
}  // namespace cp::mla

namespace cp {
namespace {

std::int64_t v(Int x) { return x.get(); }

TEST(ProbeArith, OldChunkWidthRoundsDown) {
  EXPECT_EQ(v(arith::old_chunk_width(Int(32768), Int(6), Int(64))), 5440);
  EXPECT_EQ(v(arith::old_chunk_width(Int(1000), Int(2), Int(16))), 496);
  EXPECT_EQ(v(arith::old_chunk_width(Int(1000), Int(2), Int(1))), 500);
  EXPECT_EQ(v(arith::old_num_chunks(Int(900), Int(496))), 2);
  EXPECT_EQ(v(arith::old_num_chunks(Int(992), Int(496))), 2);
}

TEST(ProbeArith, WorkspaceSizing) {
  EXPECT_EQ(v(arith::workspace_v0(Int(4096), Int(4), Int(16))), 32768);
  EXPECT_EQ(v(arith::workspace_v0(Int(163840), Int(4), Int(16))), 128 * 1024);
  EXPECT_EQ(v(arith::workspace_legacy(Int(163840), Int(256), Int(64))), 65536);
  EXPECT_EQ(v(arith::workspace_legacy(Int(1000), Int(2048), Int(64))), 2048 * 64);
  EXPECT_EQ(v(arith::workspace_pr41229(Int(163840), Int(256), Int(64), Int(3))), 65535);
  EXPECT_EQ(v(arith::packed_alignment(Int(32), Int(8), Int(8))), 64);
  EXPECT_EQ(v(arith::packed_alignment(Int(16), Int(1), Int(1))), 16);
  EXPECT_EQ(v(arith::packed_alignment(Int(16), Int(3), Int(1))), 48);
  EXPECT_EQ(v(arith::align_workspace(Int(100), Int(64))), 128);
  EXPECT_EQ(v(arith::align_workspace(Int(8), Int(64))), 64);
  EXPECT_EQ(v(arith::workspace_v5(Int(1000), Int(2000), Int(16), Int(3), Int(1))), 96000);  // mns * A floor
  EXPECT_EQ(v(arith::workspace_v6(Int(1000), Int(2000), Int(16), Int(3), Int(1))), 65568);  // no floor, aligned
  EXPECT_EQ(v(arith::workspace_v6(Int(1000), Int(2000), Int(16), Int(1), Int(1))), 65536);  // no DCP: as is
}

TEST(ProbeOps, FloorDivisionIsPythons) {
  EXPECT_EQ(v(floordiv(Int(7), Int(2))), 3);
  EXPECT_EQ(v(floordiv(Int(-7), Int(2))), -4);
  EXPECT_EQ(v(floordiv(Int(7), Int(-2))), -4);
  EXPECT_EQ(v(floordiv(Int(-8), Int(2))), -4);
  EXPECT_EQ(v(floordiv(Int(-7), Int(-2))), 3);
  EXPECT_EQ(v(floordiv(Int(7), Int(-1))), -7);
  EXPECT_EQ(v(floordiv(Int(INT64_MIN), Int(1))), INT64_MIN);
  EXPECT_THROW(floordiv(Int(INT64_MIN), Int(-1)), ArithmeticError);
  EXPECT_THROW(floordiv(Int(5), Int(0)), ArithmeticError);
  EXPECT_EQ(v(floormod(Int(-7), Int(3))), 2);
  EXPECT_EQ(v(cdiv(Int(7), Int(2))), 4);
  EXPECT_EQ(v(cdiv(Int(8), Int(2))), 4);
  EXPECT_EQ(v(cdiv(Int(1), Int(64))), 1);
  EXPECT_EQ(v(round_down(Int(127), Int(64))), 64);
  EXPECT_EQ(v(round_up(Int(65), Int(64))), 128);
  EXPECT_EQ(v(round_up(Int(64), Int(64))), 64);
  EXPECT_EQ(v(cp::max(Int(3), Int(5))), 5);
  EXPECT_EQ(v(cp::min(Int(3), Int(5))), 3);
  EXPECT_EQ(v(cp::max(Int(5), Int(3))), 5);
  EXPECT_EQ(v(cp::min(Int(5), Int(3))), 3);
  EXPECT_EQ(v(select(true, Int(1), Int(2))), 1);
  EXPECT_EQ(v(lcm(Int(16), Int(3))), 48);
  EXPECT_EQ(v(lcm(Int(64), Int(16))), 64);
  EXPECT_THROW(lcm(Int(0), Int(3)), ArithmeticError);
  EXPECT_THROW(lcm(Int(3), Int(-1)), ArithmeticError);
}

TEST(ProbeArith, DcpOwnership) {
  // Interleave I=2, W=2 (V=4): positions 0,1 on rank 0; 2,3 on rank 1; 4,5 on rank 0...
  EXPECT_EQ(v(dcp_local_len(Int(0), Int(2), Int(0), Int(2))), 0);
  EXPECT_EQ(v(dcp_local_len(Int(1), Int(2), Int(0), Int(2))), 1);
  EXPECT_EQ(v(dcp_local_len(Int(3), Int(2), Int(0), Int(2))), 2);
  EXPECT_EQ(v(dcp_local_len(Int(3), Int(2), Int(1), Int(2))), 1);
  EXPECT_EQ(v(dcp_local_len(Int(5), Int(2), Int(0), Int(2))), 3);
  EXPECT_EQ(v(dcp_local_len(Int(5), Int(2), Int(1), Int(2))), 2);
  EXPECT_EQ(v(dcp_local_len(Int(8), Int(2), Int(1), Int(2))), 4);
  EXPECT_EQ(v(owner_rank(Int(5), Int(2), Int(2))), 0);
  EXPECT_EQ(v(owner_rank(Int(2), Int(2), Int(2))), 1);
  EXPECT_EQ(v(local_index(Int(5), Int(2), Int(2))), 3);
  EXPECT_EQ(v(global_position(Int(3), Int(0), Int(2), Int(2))), 5);
  EXPECT_EQ(v(padded_local_rows(Int(5), Int(2), Int(2))), 4);
  EXPECT_EQ(v(padded_local_rows(Int(4), Int(2), Int(2))), 2);
  EXPECT_EQ(v(padded_local_rows(Int(1), Int(2), Int(2))), 2);
}

TEST(ProbeArith, V1ReorgKeptRows) {
  // ctx=10, chunk 1 of M=8, W=4: the chunk holds 2 rows (ccl=2), target=(2-1) mod 4=1: ranks past
  // 1 keep one row less.
  EXPECT_EQ(v(arith::v1_reorg_kept_rows(Int(10), Int(1), Int(8), Int(4), Int(0), Int(1))), 1);
  EXPECT_EQ(v(arith::v1_reorg_kept_rows(Int(10), Int(1), Int(8), Int(4), Int(1), Int(1))), 1);
  EXPECT_EQ(v(arith::v1_reorg_kept_rows(Int(10), Int(1), Int(8), Int(4), Int(2), Int(1))), 0);
  EXPECT_EQ(v(arith::v1_reorg_kept_rows(Int(10), Int(1), Int(8), Int(4), Int(3), Int(1))), 0);
  // Full chunk 0 (ccl=8, target=3): nobody is past the target.
  EXPECT_EQ(v(arith::v1_reorg_kept_rows(Int(10), Int(0), Int(8), Int(4), Int(0), Int(2))), 2);
  EXPECT_EQ(v(arith::v1_reorg_kept_rows(Int(10), Int(0), Int(8), Int(4), Int(3), Int(2))), 2);
  // cpl == 0 (ccl = M = 6, target 1): rank 2 keeps 0, never -1.
  EXPECT_EQ(v(arith::v1_reorg_kept_rows(Int(10), Int(0), Int(6), Int(4), Int(2), Int(0))), 0);
}

TEST(ProbeArith, PackedRowsNeeded) {
  EXPECT_EQ(v(arith::packed_rows_needed(Int(5), Int(10), Int(2), Int(2), false)), 10);
  EXPECT_EQ(v(arith::packed_rows_needed(Int(5), Int(10), Int(2), Int(2), true)), 4);
}

TEST(ProbeArith, PackedSplitCap) {
  EXPECT_EQ(v(arith::packed_split_cap(Int(900), Int(16), Int(992))), 896);
  EXPECT_EQ(v(arith::packed_split_cap(Int(5000), Int(16), Int(992))), 992);
}

}  // namespace
}  // namespace cp

// DCP ownership and local lengths against brute-force counting (spec §3.1, §3.2), and the
// gather -> all-gather -> reorg index maps on plans that must be exact.
#include <gtest/gtest.h>

#include "invariants/catalogue.h"
#include "reference/dcp/ownership.h"
#include "reference/dcp/simulate.h"

namespace cp {
namespace {

TEST(DcpIndex, OwnershipExampleW4I2) {
  // p 0,1 -> r0 (local 0,1); 2,3 -> r1; 4,5 -> r2; 6,7 -> r3; 8,9 -> r0 (local 2,3).
  const std::int64_t owner[] = {0, 0, 1, 1, 2, 2, 3, 3, 0, 0};
  const std::int64_t local[] = {0, 1, 0, 1, 0, 1, 0, 1, 2, 3};
  for (std::int64_t p = 0; p < 10; ++p) {
    EXPECT_EQ(owner_rank(Int(p), Int(2), Int(4)).get(), owner[p]);
    EXPECT_EQ(local_index(Int(p), Int(2), Int(4)).get(), local[p]);
  }
}

TEST(DcpIndex, LocalLengthsMatchCountingAndTheirProperties) {
  for (std::int64_t W : {1, 2, 3, 4, 8})
    for (std::int64_t I : {1, 2, 4, 16, 64})
      for (std::int64_t L = 0; L < 700; ++L) {
        std::vector<std::int64_t> count(static_cast<std::size_t>(W), 0);
        for (std::int64_t p = 0; p < L; ++p) {
          const auto r = owner_rank(Int(p), Int(I), Int(W)).get();
          // local_index is the count of the rank's positions before p; global_position inverts it.
          ASSERT_EQ(local_index(Int(p), Int(I), Int(W)).get(), count[static_cast<std::size_t>(r)]);
          ASSERT_EQ(global_position(Int(count[static_cast<std::size_t>(r)]), Int(r), Int(I), Int(W)).get(), p);
          ++count[static_cast<std::size_t>(r)];
        }
        std::int64_t sum = 0, mx = 0, mn = INT64_MAX;
        for (std::int64_t r = 0; r < W; ++r) {
          const auto n = dcp_local_len(Int(L), Int(W), Int(r), Int(I)).get();
          ASSERT_EQ(n, count[static_cast<std::size_t>(r)]) << "W=" << W << " I=" << I << " L=" << L << " r=" << r;
          sum += n, mx = std::max(mx, n), mn = std::min(mn, n);
        }
        ASSERT_EQ(sum, L);
        ASSERT_LE(mx - mn, I);
        ASSERT_EQ(dcp_local_len(Int(L), Int(W), Int(0), Int(I)).get(), mx);
        ASSERT_LE(mx, padded_local_rows(Int(L), Int(I), Int(W)).get());
      }
}

TEST(DcpIndex, PackedPlanDeliversEveryPositionOnceToItsRequest) {
  const Case c = parse_case(
      "version=v6-current platform=cuda workspace=1024 block=16 dcp=4 interleave=4 ctx=1000,33,0,517 q=4,4,4,4");
  const Plan p = make_plan(c);
  for (const auto& ch : p.chunks) {
    const auto rows = simulate_chunk(c, p, ch);
    std::int64_t want = 0;  // simulate_chunk sizes to total_tokens(); check that against the entries
    for (const auto& e : ch.entries) want += e.len;
    ASSERT_EQ(static_cast<std::int64_t>(rows.size()), want);
    for (std::size_t b = 0; b < ch.entries.size(); ++b) {
      std::vector<std::int64_t> got;
      for (auto t = ch.cu_seq_lens[b]; t < ch.cu_seq_lens[b + 1]; ++t) {
        const auto& r = rows[static_cast<std::size_t>(t)];
        ASSERT_EQ(r.kind, RowKind::context);
        ASSERT_EQ(r.request, ch.entries[b].request);
        got.push_back(r.position);
      }
      std::sort(got.begin(), got.end());
      for (std::size_t k = 0; k < got.size(); ++k) ASSERT_EQ(got[k], ch.entries[b].start + static_cast<std::int64_t>(k));
    }
  }
}

TEST(DcpIndex, RanksGatherPaddingPastTheirLocalContext) {
  // ctx=65 on W=4: rank 0 owns 17 positions, the others 16; every rank gathers 17 rows, so
  // ranks 1..3 read one slot past their context (new-token KV) that reorg must drop.
  const Case c = parse_case("version=v6-current platform=cuda workspace=128 block=64 dcp=4 interleave=1 ctx=65 q=4");
  const Plan p = make_plan(c);
  ASSERT_EQ(p.chunks.size(), 1u);
  const auto rank1 = gather_rank(c, p, p.chunks[0], 1);
  ASSERT_EQ(rank1.size(), 17u);
  EXPECT_EQ(rank1.back().kind, RowKind::new_token);
  EXPECT_EQ(rank1.back().position, 65);
  EXPECT_EQ(p.chunks[0].entries[0].kept, (std::vector<std::int64_t>{17, 16, 16, 16}));
}

}  // namespace
}  // namespace cp

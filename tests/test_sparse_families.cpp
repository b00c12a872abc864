// vLLM's sparse-MLA planners (vllm-pcp-and-sparse.md §4, §5): the indexer prefill chunker
// (#36178) with the DeepSeek-V4 consumer (#51252), the FlashMLA sparse gathered prefill (#56157)
// with DB-2, and the sparse builder's sizing (Z-1 / #57170, Z-2). The Fidelity tests reproduce
// the expected values of vLLM's own tests (tests/v1/attention/test_sparse_mla_backends.py for the
// indexer, code-index 56390297041; the gathered-prefill test copy, code-index 66432576725),
// computed the way those tests compute them.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "invariants/catalogue.h"
#include "reference/dcp/ownership.h"
#include "reference/planner/families/indexer/split.h"

namespace cp {
namespace {

const InvariantResult& result(const Evaluation& ev, InvariantId id) { return ev.results[static_cast<std::size_t>(id)]; }
Evaluation eval(const std::string& line) { return evaluate(parse_case(line)); }

// (row_start, row_end, query_start, query_end), as the upstream test lists the chunks.
using Sub = std::tuple<std::size_t, std::size_t, std::int64_t, std::int64_t>;
std::vector<Sub> split(std::vector<std::int64_t> seq, std::vector<std::int64_t> q, std::int64_t ws,
                       std::int64_t bytes) {
  std::vector<Sub> out;
  for (const auto& s : split_indexer_prefill_chunks(seq, q, ws, bytes / 4))
    for (std::int64_t o = 0; o < s.M; o += s.max_q)
      out.emplace_back(s.row_start, s.row_end, o, std::min(s.M, o + s.max_q));
  return out;
}

// §5.6: the upstream test's cases (seq fed directly, i.e. rho = 1).
TEST(IndexerFidelity, UpstreamSplitCases) {
  EXPECT_TRUE(split({0}, {0}, 100, 1000).empty());
  EXPECT_EQ(split({100, 100, 100}, {10, 10, 10}, 1000, 5000),
            (std::vector<Sub>{{0, 1, 0, 10}, {1, 2, 0, 10}, {2, 3, 0, 10}}));
  EXPECT_EQ(split({10, 10, 10}, {5, 5, 5}, 100, 10000), (std::vector<Sub>{{0, 3, 0, 15}}));
  EXPECT_EQ(split({50, 50, 50}, {1, 1, 1}, 50, 1000000), (std::vector<Sub>{{0, 1, 0, 1}, {1, 2, 0, 1}, {2, 3, 0, 1}}));
  EXPECT_EQ(split({10, 10, 10}, {5, 5, 5}, 100, 1000), (std::vector<Sub>{{0, 2, 0, 10}, {2, 3, 0, 5}}));
  std::vector<Sub> overflow;
  for (std::int64_t k = 0; k < 100; ++k) overflow.emplace_back(0, 1, k, k + 1);  // Nn=1000 > E=250: max_q = 1
  overflow.emplace_back(1, 2, 0, 5);
  EXPECT_EQ(split({1000, 50}, {100, 5}, 2000, 1000), overflow);
}

// EB-1 (#51252): DeepSeek V4, rho = 4, mml = 4096: WS = 163840 admits 48 rows of 1024 K rows in
// one chunk, the V4 consumer allocates 40960: rows 40960..49151 (requests 40..47) are stale.
TEST(IndexerFamily, DeepSeekV4ConsumerBufferIsWsOverRho) {
  const Evaluation ev =
      eval("version=indexer-dsv4 compress_ratio=4 max_model_len=4096 max_num_seqs=48 block=64 ctx=4094*48 q=2*48");
  ASSERT_EQ(ev.plan.chunks.size(), 1u);
  EXPECT_EQ(ev.plan.chunks[0].total_tokens(), 49152);
  EXPECT_EQ(ev.plan.workspace, 163840);
  EXPECT_EQ(ev.plan.workspace_rows, 40960);
  EXPECT_EQ(result(ev, InvariantId::I4_global_row_budget).verdict, Verdict::ok);  // E-1: the chunker keeps WS
  const auto& e3 = result(ev, InvariantId::E3_indexer_consumer_rows);
  ASSERT_EQ(e3.verdict, Verdict::violated);
  EXPECT_EQ(e3.violations[0].request, 40);
  EXPECT_EQ(e3.violations[0].row, 40960);
  EXPECT_EQ(ev.outcome, Outcome::violation);
  for (auto id : {InvariantId::E2_indexer_logits_budget, InvariantId::E4_indexer_shared_gather,
                  InvariantId::E5_indexer_token_cover, InvariantId::E6_indexer_key_ranges})
    EXPECT_EQ(result(ev, id).verdict, Verdict::ok) << info(id).tag;
  // The context-reading universal checks answer n/a: the spans are compressed K rows.
  EXPECT_EQ(result(ev, InvariantId::I3_coverage).verdict, Verdict::not_applicable);
}

// The same batch on V3.2 (rho = 1): 4096 K rows each, WS admits 40 per slice: two chunks, all fit.
TEST(IndexerFamily, DeepSeekV32SplitsWithinWs) {
  const Evaluation ev = eval("version=indexer-dsv32 max_model_len=4096 max_num_seqs=48 block=64 ctx=4094*48 q=2*48");
  ASSERT_EQ(ev.plan.chunks.size(), 2u);
  EXPECT_EQ(ev.plan.chunks[0].request_end, 40);
  EXPECT_EQ(ev.plan.chunks[0].total_tokens(), 163840);
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

// Sub-slices share one K gather (E-4): a 1 MiB budget (E = 262144) over 1000 tokens x 4096 rows.
TEST(IndexerFamily, SubSlicesSkipTheKGather) {
  const Evaluation ev =
      eval("version=indexer-dsv32 max_logits_mb=1 max_model_len=8192 max_num_seqs=4 block=64 ctx=3096 q=1000");
  ASSERT_EQ(ev.plan.chunks.size(), 16u);  // max_q = 262144 // 4096 = 64: cdiv(1000, 64)
  EXPECT_FALSE(ev.plan.chunks[0].is_continuation);
  EXPECT_TRUE(ev.plan.chunks[1].is_continuation);
  EXPECT_EQ(ev.plan.chunks[1].token_start, 64);
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

// A request shorter than rho has no compressed row: its sub-slice is dropped (E-5 notes it).
TEST(IndexerFamily, KLessSliceIsDropped) {
  const Evaluation ev = eval("version=indexer-dsv4 compress_ratio=4 workspace=1000 block=64 ctx=1 q=2");
  EXPECT_TRUE(ev.plan.chunks.empty());
  ASSERT_EQ(ev.plan.empty_token_ranges.size(), 1u);
  EXPECT_EQ(result(ev, InvariantId::E5_indexer_token_cover).verdict, Verdict::ok);
}

TEST(IndexerFamily, KeysOutsideTheFamilyExitTwo) {
  auto key_of = [](const std::string& line) {
    try {
      (void)make_plan(parse_case(line));
    } catch (const CaseError& e) {
      return e.key;
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(key_of("version=v6-current workspace=1024 block=16 compress_ratio=4 ctx=10 q=4"), "compress_ratio");
  EXPECT_EQ(key_of("version=v6-current workspace=1024 block=16 max_logits_mb=4 ctx=10 q=4"), "max_logits_mb");
  EXPECT_EQ(key_of("version=indexer-dsv32 workspace=1024 block=16 compress_ratio=4 ctx=10 q=4"), "compress_ratio");
  EXPECT_EQ(key_of("version=indexer-dsv4 max_model_len=100 max_num_seqs=2 block=16 ctx=99 q=4"), "ctx");
  EXPECT_EQ(key_of("version=indexer-dsv4 workspace=1024 block=16 dcp=2 ctx=10 q=4"), "dcp");
  EXPECT_EQ(key_of("version=gathered-pr56157 workspace=1024 block=16 ctx=10 q=4"), "dcp");
  const Case c =
      parse_case("version=indexer-dsv4 compress_ratio=4 max_logits_mb=64 workspace=1024 block=16 ctx=10 q=4");
  EXPECT_EQ(parse_case(print_case(c)), c);
}

// §4.7 "rows per rank": for I = 1, cdiv(e, W) = 1 + the largest local slot; cdiv(e, V)*I covers
// every rank's share for every interleave.
TEST(GatheredFidelity, RowsPerRank) {
  for (std::int64_t W : {2, 3, 8})
    for (std::int64_t e : {1, 63, 64, 65, 127, 128, 129, 1000}) {
      std::int64_t busiest = 0;
      for (std::int64_t d = 0; d < W; ++d)
        busiest = std::max(busiest, dcp_local_len(Int(e), Int(W), Int(d), Int(1)).get());
      EXPECT_EQ(steps::gathered_rows_per_rank(GatheredRowsPerRank::cdiv_e_w, Int(e), Int(W), Int(1)).get(), busiest);
      for (std::int64_t I : {1, 16, 64}) {
        std::int64_t b = 0;
        for (std::int64_t d = 0; d < W; ++d) b = std::max(b, dcp_local_len(Int(e), Int(W), Int(d), Int(I)).get());
        EXPECT_GE(steps::gathered_rows_per_rank(GatheredRowsPerRank::cdiv_e_v_times_i, Int(e), Int(W), Int(I)).get(),
                  b);
      }
    }
}

// §4.7 "shared region": extents 128/256/64, W = 2: rpr [64, 128, 32], ws [0, 64, 192].
TEST(GatheredFidelity, SharedRegion) {
  const Evaluation ev = eval("version=gathered-pr56157 workspace=4096 block=64 dcp=2 ctx=126,254,62 q=2,2,2");
  ASSERT_EQ(ev.plan.chunks.size(), 1u);
  EXPECT_EQ(ev.plan.chunks[0].padded_local_cu, (std::vector<std::int64_t>{0, 64, 192, 224}));
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

// §4.7 "chunking": 4 regions of 256, W = 2, max_gathered_rows = 512: chunks [(0,2), (2,4)].
TEST(GatheredFidelity, Chunking) {
  const Evaluation ev = eval("version=gathered-pr56157 workspace=512 block=64 dcp=2 ctx=254*4 q=2*4");
  ASSERT_EQ(ev.plan.chunks.size(), 2u);
  EXPECT_EQ(ev.plan.chunks[0].request_end, 2);
  EXPECT_EQ(ev.plan.chunks[1].padded_local_cu, (std::vector<std::int64_t>{0, 128, 256}));
  EXPECT_LE(ev.plan.chunks[0].local_tokens() * 2, 512);
  // §4.7 "oversize": extent 4096, W = 2, max 1024: the planner refuses the region.
  const Evaluation big = eval("version=gathered-pr56157 workspace=1024 block=64 dcp=2 ctx=4094 q=2");
  ASSERT_EQ(big.plan.asserts.size(), 1u);
  EXPECT_EQ(big.outcome, Outcome::assert_fired);
}

// DB-2: e = 65, W = 2, I = 64: rpr = 33 while rank 0 owns 64 rows: positions 33..63 read rank 1's
// block. e = 600, W = 8, I = 64: 66 positions (523..575 on rank 0, 587..599 on rank 1) misread.
TEST(GatheredFamily, RowsPerRankIgnoreInterleave) {
  const Evaluation ev =
      eval("version=gathered-pr56157 max_model_len=4096 max_num_seqs=4 block=64 dcp=2 interleave=64 ctx=1 q=64");
  const auto& d5 = result(ev, InvariantId::D5_gathered_shard_cover);
  ASSERT_EQ(d5.verdict, Verdict::violated);
  EXPECT_EQ(d5.violations[0].rank, 0);
  const auto& d7 = result(ev, InvariantId::D7_gathered_layout);
  ASSERT_EQ(d7.verdict, Verdict::violated);
  EXPECT_EQ(d7.violations[0].got.rfind("31 position(s) from p=33 ", 0), 0u) << d7.violations[0].got;
  const Evaluation e600 =
      eval("version=gathered-pr56157 max_model_len=4096 max_num_seqs=4 block=64 dcp=8 interleave=64 ctx=598 q=2");
  EXPECT_EQ(result(e600, InvariantId::D7_gathered_layout).violations[0].got.rfind("66 position(s) from p=523 ", 0), 0u);
  EXPECT_EQ(result(e600, InvariantId::D5_gathered_shard_cover).total_violations, 2);
  for (const char* v : {"gathered-vblock"}) {
    Case c = e600.c;
    c.version = *parse_version(v);
    EXPECT_EQ(evaluate(c).outcome, Outcome::ok);
  }
}

// §5.7: S_sparse and the profile reservation. ZB-1 (#57170): DSV3.2 mml 163840, mns 4, B 64:
// dense 65536 rows reserved, sparse 8192 needed (over-reservation, Z-1 holds). ZB-2: mns 2048:
// dense 65536 < sparse 131072 (Z-1 violated). ZB-3: W = 3, mns 5: S_sparse = 10240, 10240 % 3 = 1.
TEST(SparseSizing, ProfileReservationAndDcpDivisibility) {
  const Evaluation zb1 = eval("version=v6-sparse max_model_len=163840 max_num_seqs=4 block=64 ctx=1000 q=16");
  EXPECT_EQ(zb1.plan.workspace, 8192);
  EXPECT_EQ(zb1.plan.profile_rows, 65536);
  EXPECT_EQ(result(zb1, InvariantId::Z1_profile_reservation).verdict, Verdict::ok);
  const Evaluation zb2 = eval("version=v6-sparse max_model_len=163840 max_num_seqs=2048 block=64 ctx=1000 q=16");
  EXPECT_EQ(zb2.plan.workspace, 131072);
  EXPECT_EQ(result(zb2, InvariantId::Z1_profile_reservation).verdict, Verdict::violated);
  const Evaluation zb3 = eval("version=v6-sparse max_model_len=163840 max_num_seqs=5 block=64 dcp=3 ctx=1000 q=16");
  EXPECT_EQ(zb3.plan.workspace, 10240);
  ASSERT_FALSE(zb3.plan.asserts.empty());
  EXPECT_EQ(zb3.plan.asserts[0].stage, "init");
  EXPECT_EQ(
      result(eval("version=v6-current workspace=8192 block=64 ctx=1000 q=16"), InvariantId::Z1_profile_reservation)
          .verdict,
      Verdict::not_applicable);
}

}  // namespace
}  // namespace cp

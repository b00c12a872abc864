// The SGLang family (other-engines.md §2): the chunked-prefix split C // bs over every request,
// the DCP movement of all_gather_kv_cache_for_dcp (owner-mask read, padded send, the all-gather
// transposed and sliced per request) checked token by token by the universal I-9, and the
// one-shot DCP path's strided read of the concatenated prefix indices (G-10): prefixes [3, 1]
// with W = 2 leave rank 0 with 2 rows where the layout expects 3 (the engine raises), [3, 4]
// happen to be read correctly.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "invariants/catalogue.h"

namespace cp {
namespace {

const InvariantResult& result(const Evaluation& ev, InvariantId id) { return ev.results[static_cast<std::size_t>(id)]; }

Evaluation sglang(const char* version, const std::string& rest, Level level = Level::token) {
  return evaluate(parse_case(std::string("version=") + version + rest), level);
}

// G-2 and G-B1's planner case: C = 131072, prefixes [70000, 1000] -> chunk_len 65536, two
// chunks, chunk 1 lengths [4464, 0]: request 1 has kv_len 0 with q_len > 0 in chunk 1.
TEST(SGLangFamily, RectangularSplitWithAZeroKvRow) {
  const Evaluation ev = sglang("sglang-pre22688", " workspace=131072 block=64 ctx=70000,1000 q=8,8");
  EXPECT_EQ(ev.plan.chunk_width, 65536);
  ASSERT_EQ(ev.plan.chunks.size(), 2u);
  const auto& e = ev.plan.chunks[1].entries;
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].start, 65536);
  EXPECT_EQ(e[0].len, 4464);
  EXPECT_EQ(e[1].len, 0);
  // Before #22688 that row reaches the merge unguarded: G-4 (test_engine_rules.cpp pins it).
  EXPECT_EQ(ev.outcome, Outcome::violation);
  EXPECT_EQ(result(ev, InvariantId::G4_sglang_zero_kv_rows).verdict, Verdict::violated);
}

// G-8: the padded send, transposed all-gather and slice [cu_pad*W + m, +L) give every request's
// span in position order, for unaligned chunk starts (chunk_len mod W != 0), prefix-0 requests
// (G-9: padded 0 with floor modulo) and zero-length rows in later chunks (one pad row).
TEST(SGLangFamily, TransposedSliceDeliversEveryPositionOnce) {
  for (const char* geometry : {"dcp=2", "dcp=4", "dcp=8", "dcp=3"})
    for (const char* ctx : {"ctx=700,0,1200,37 q=3,3,3,3", "ctx=70000 q=9", "ctx=1,2,3 q=2,2,2", "ctx=0,999 q=2,2"}) {
      const Evaluation ev = sglang("sglang-current", std::string(" workspace=1000 block=16 ") + geometry + " " + ctx);
      EXPECT_EQ(result(ev, InvariantId::I9_reorg_exact).verdict, Verdict::ok) << geometry << " " << ctx;
      EXPECT_EQ(result(ev, InvariantId::I3_coverage).verdict, Verdict::ok) << geometry << " " << ctx;
      EXPECT_EQ(result(ev, InvariantId::I4_global_row_budget).verdict, Verdict::ok) << geometry << " " << ctx;
    }
}

// padded = (L + m + W - 1) // W on every rank; kept = get_dcp_lens(L, W, r, s).
TEST(SGLangFamily, PaddedSendAndLocalCounts) {
  const Evaluation ev = sglang("sglang-current", " workspace=1000 block=16 dcp=4 ctx=700,0,1200,37 q=3,3,3,3");
  ASSERT_EQ(ev.plan.chunk_width, 250);
  const auto& c1 = ev.plan.chunks[1].entries;  // s = 250, m = 2
  EXPECT_EQ(c1[0].padded_local_len, 63);
  EXPECT_EQ(c1[0].kept, (std::vector<std::int64_t>{62, 62, 63, 63}));
  EXPECT_EQ(c1[1].padded_local_len, 1);  // L = 0, m = 2: one row of padding only
  EXPECT_EQ(c1[1].kept, (std::vector<std::int64_t>{0, 0, 0, 0}));
  const auto& c0 = ev.plan.chunks[0].entries;  // s = 0
  EXPECT_EQ(c0[1].padded_local_len, 0);        // prefix 0 in chunk 0 (G-9 a)
}

// Bug pinned: SGLang G-10 (other-engines.md §2.5), the one-shot DCP path: W = 2, prefixes
// [3, 1]: rank 0 reads offsets 0, 2 of the concatenated indices (request 0's positions 0, 2)
// where get_dcp_lens expects 2 + 1 rows; all_gather_kv_cache_for_dcp raises (a crash, not an
// assert: python -O does not strip it).
TEST(SGLangFamily, OneShotStridedReadCrashesOnUnalignedPrefixes) {
  const Evaluation ev = sglang("sglang-oneshot-dcp", " workspace=131072 block=16 dcp=2 ctx=3,1 q=2,2");
  ASSERT_EQ(ev.plan.asserts.size(), 1u);
  EXPECT_EQ(ev.plan.asserts[0].kind, FailureKind::crash);
  EXPECT_NE(ev.plan.asserts[0].detail.find("rank 0 reads 2 rows"), std::string::npos) << ev.plan.asserts[0].detail;
  EXPECT_NE(ev.plan.asserts[0].detail.find("expects 3"), std::string::npos) << ev.plan.asserts[0].detail;
  EXPECT_EQ(ev.outcome, Outcome::crashed);
  const Evaluation off = sglang("sglang-oneshot-dcp", " workspace=131072 block=16 dcp=2 ctx=3,1 q=2,2 asserts=off");
  EXPECT_EQ(off.outcome, Outcome::crashed);
}

// The premise holds: every request whose prefix is not a multiple of W starts at an offset that
// is. [3, 4] (request 0 odd at offset 0, request 1 even) "happens to be read correctly"; so do
// all-even prefixes, one request, and a prefix-0 request before an odd one.
TEST(SGLangFamily, OneShotStridedReadCorrectCases) {
  for (const char* ctx : {"ctx=3,4 q=2,2", "ctx=4,2,6 q=2,2,2", "ctx=5 q=2", "ctx=0,7 q=2,2"}) {
    const Evaluation ev = sglang("sglang-oneshot-dcp", std::string(" workspace=131072 block=16 dcp=2 ") + ctx);
    EXPECT_TRUE(ev.plan.asserts.empty()) << ctx;
    EXPECT_EQ(ev.outcome, Outcome::ok) << ctx;
    ASSERT_EQ(ev.plan.chunks.size(), 1u) << ctx;
  }
}

// Past C the one-shot row's batch takes the chunked path (G7's dispatch comments).
TEST(SGLangFamily, OneShotRowChunksPastCapacity) {
  const Evaluation ev = sglang("sglang-oneshot-dcp", " workspace=1000 block=16 dcp=2 ctx=3,1001 q=2,2");
  EXPECT_EQ(ev.plan.chunks.size(), 3u);
  EXPECT_TRUE(ev.plan.asserts.empty());
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

// The sizing without workspace=: SGLANG_MAX_KV_CHUNK_CAPACITY = 131072 (G1's 128 * 1024).
TEST(SGLangFamily, DefaultCapacity) {
  for (const char* v : {"sglang-pre22688", "sglang-current"}) {
    const Evaluation ev = sglang(v, " max_model_len=163840 max_num_seqs=256 block=64 ctx=100 q=2");
    EXPECT_EQ(ev.plan.workspace, 131072) << v;
  }
}

}  // namespace
}  // namespace cp

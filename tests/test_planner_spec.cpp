// The worked examples of the spec (shared/spec/vllm-mla-planner.md), pinned: the upstream
// planner tests (§5), the workspace table (§1.6) and the counterexamples of §6.
#include <gtest/gtest.h>

#include <set>

#include "invariants/catalogue.h"
#include "reference/planner/arith.h"

namespace cp {
namespace {

Evaluation eval(const std::string& line) { return evaluate(parse_case(line)); }

std::vector<std::vector<std::int64_t>> spans_of(const Plan& p) {
  std::vector<std::vector<std::int64_t>> out;
  for (const auto& ch : p.chunks)
    for (const auto& e : ch.entries) out.push_back({e.request, e.start, e.len});
  return out;
}

// ---- §5 S8 test_mla_context_chunks (B=16, align_chunk_to_block=True, S given) ----------

class UpstreamCoverage : public ::testing::TestWithParam<const char*> {};

TEST_P(UpstreamCoverage, EveryRowOnceChunkRowsWithinSNoEmptySpan) {
  const Evaluation ev = eval(std::string("version=v6-current platform=cuda workspace=1024 block=16 ") + GetParam());
  EXPECT_EQ(ev.outcome, Outcome::ok);
  int last_request = -1;
  for (const auto& ch : ev.plan.chunks) {
    EXPECT_LE(ch.total_tokens(), 1024);
    std::int64_t rows = 0;  // against the entries: total_tokens() IS cu_seq_lens.back()
    for (const auto& e : ch.entries) rows += e.len;
    EXPECT_EQ(ch.total_tokens(), rows);
    EXPECT_EQ(ch.token_to_seq(ch.total_tokens() - 1), static_cast<int>(ch.entries.size()) - 1);
    for (const auto& e : ch.entries) {
      EXPECT_GT(e.len, 0);
      EXPECT_GE(e.request, last_request);  // request order non-decreasing
      last_request = e.request;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(S8, UpstreamCoverage,
                         ::testing::Values("ctx=960,16,16,16,16,16,16,16 q=4,4,4,4,4,4,4,4", "ctx=2048,320 q=4,4",
                                           "ctx=1024,1024,1024 q=4,4,4", "ctx=37,1000,5 q=4,4,4", "ctx=1 q=4"));

TEST(UpstreamS8, ContinuationOnlyOnAChunksFirstRequest) {
  const Evaluation ev = eval("version=v6-current platform=cuda workspace=1024 block=16 ctx=2048,32,32 q=3,5,7");
  std::vector<bool> cont;
  for (const auto& ch : ev.plan.chunks) cont.push_back(ch.is_continuation);
  EXPECT_EQ(cont, (std::vector<bool>{false, true, false}));
}

// test_prefills_without_context_are_skipped_and_reported: "covered" is computed as upstream
// computes it, from each chunk's request slice (range(chunk.request_start, chunk.request_end)),
// so a chunk packed across the context-free request 1 would cover it and fail.
TEST(UpstreamS8, ContextFreeRequestsGetEmptyTokenRanges) {
  const Evaluation ev = eval("version=v6-current platform=cuda workspace=1024 block=16 ctx=64,0,64,0 q=4,4,4,4");
  std::set<int> covered;
  for (const auto& ch : ev.plan.chunks)
    for (int r = ch.request_start; r < ch.request_end; ++r) covered.insert(r);
  EXPECT_EQ(covered, (std::set<int>{0, 2}));
  EXPECT_EQ(ev.plan.chunks.size(), 2u);
  // The shipped builder (vLLM 903ecb17) lists every context-free prefill as
  // slice(query_start_loc[i], query_start_loc[i + 1]) and passes no prefill_tokens_with_context;
  // the pre-merge branch's test (27ff206f) expected 12 and [(4, 8)].
  EXPECT_FALSE(ev.plan.prefill_tokens_with_context.has_value());
  EXPECT_EQ(ev.plan.empty_token_ranges, (std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 8}, {12, 16}}));
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

TEST(UpstreamS8, NoContextMeansNoChunks) {
  const Evaluation ev = eval("version=v6-current platform=cuda workspace=1024 block=16 ctx=0,0 q=4,4");
  EXPECT_TRUE(ev.plan.chunks.empty());
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

TEST(UpstreamS8, DcpLocalRowsWithinBudgetAndLocalStartsTile) {
  const Evaluation ev =
      eval("version=v6-current platform=cuda workspace=1024 block=128 dcp=2 interleave=64 ctx=3000,200,200 q=4,4,4");
  EXPECT_EQ(ev.outcome, Outcome::ok);
  std::vector<std::int64_t> next_local(3, 0);
  for (const auto& ch : ev.plan.chunks) {
    EXPECT_LE(ch.local_tokens(), 512);
    for (const auto& e : ch.entries) {
      EXPECT_EQ(e.local_start, next_local[e.request]);
      // V = 128: padded rows of a prefix of length x are cdiv(x, V) * I.
      EXPECT_EQ(e.local_start + e.padded_local_len, (e.start + e.len + 127) / 128 * 64);
      next_local[e.request] = e.local_start + e.padded_local_len;
    }
  }
  EXPECT_FALSE(ev.violated(InvariantId::I9_reorg_exact));  // (f) reorg drops padding exactly
}

// The shipped sizing (vLLM 903ecb17 align_mla_chunked_context_workspace_size) does not scale with
// max_num_seqs either, but rounds up to the block without DCP too: round_up(max(65536, 11000),
// 11000) = 66000. The pre-merge branch's test (27ff206f) expected 65536.
TEST(UpstreamS8, WorkspaceDoesNotScaleWithMaxNumSeqs) {
  for (std::int64_t mns : {1, 32, 256})
    EXPECT_EQ(size_workspace(Version::v6_current, Platform::cuda, 163840, mns, 11000, 1, 1), 66000) << mns;
}

// ---- §2.3 S10: the exact lists of the non-virtual-block-aligned DCP prefix --------------

TEST(UpstreamS10, NonVirtualBlockAlignedPrefix) {
  const Evaluation ev =
      eval("version=v6-current platform=cuda workspace=128 block=64 dcp=4 interleave=1 ctx=65,96 q=4,4");
  ASSERT_EQ(ev.plan.chunks.size(), 2u);
  EXPECT_EQ(spans_of(ev.plan), (std::vector<std::vector<std::int64_t>>{{0, 0, 65}, {1, 0, 96}}));
  EXPECT_EQ(ev.plan.local_ctx[0], (std::vector<std::int64_t>{17, 16, 16, 16}));
  EXPECT_EQ(ev.plan.local_ctx[1], (std::vector<std::int64_t>{24, 24, 24, 24}));
  EXPECT_EQ(ev.plan.chunks[0].entries[0].padded_local_len, 17);
  EXPECT_EQ(ev.plan.chunks[1].entries[0].padded_local_len, 24);
  EXPECT_EQ(ev.outcome, Outcome::ok);
}

// ---- §1.5 S9: alignment covers the interleave ------------------------------------------

TEST(UpstreamS9, AlignmentCoversInterleave) {
  // Upstream's own expectation, on the helper it tests (B=32, W=8, I=8 => A = lcm(32, 64) = 64).
  const Int A = arith::packed_alignment(Int(32), Int(8), Int(8));
  EXPECT_EQ(A.get(), 64);
  EXPECT_EQ(arith::align_workspace(Int(100), A).get(), 128);
  EXPECT_EQ(arith::align_workspace(Int(8), A).get(), 64);
  // ...and the size the planner really sizes with: S0 = max(8*17, 4*1*32) = 136 is aligned to
  // lcm(32, 64) = 64 under DCP (192) and to the block without it (vLLM 903ecb17: 160; the
  // pre-merge branch left 136).
  const std::string batch = " block=32 interleave=8 ctx=100 q=4";
  const Evaluation dcp = eval("version=v6-current platform=cuda max_model_len=17 max_num_seqs=1 dcp=8" + batch);
  EXPECT_EQ(dcp.plan.workspace, 192);
  EXPECT_EQ(dcp.plan.align, 64);
  const Evaluation solo = eval("version=v6-current platform=cuda max_model_len=17 max_num_seqs=1 dcp=1" + batch);
  EXPECT_EQ(solo.plan.workspace, 160);
}

// ---- §1.6 the workspace table ---------------------------------------------------------

struct SizingRow {
  std::int64_t mml, mns, B, W, I;
  std::int64_t legacy, v5, v6;
};

TEST(WorkspaceTable, Spec1_6) {
  const SizingRow rows[] = {
      {163840, 256, 64, 8, 1, 65536, 65536, 65536},    {163840, 256, 64, 8, 64, 65536, 131072, 65536},
      {163840, 1024, 64, 8, 64, 65536, 524288, 65536}, {163840, 1024, 128, 1, 1, 131072, 131072, 65536},
      {4096, 64, 16, 1, 1, 32768, 32768, 32768},       {4096, 64, 64, 1, 1, 32768, 32768, 32768},
      {163840, 256, 64, 3, 1, 65536, 65664, 65664},    {4095, 64, 16, 16, 1, 32760, 32768, 32768},
  };
  for (const auto& r : rows) {
    for (Version v : {Version::v1_dcp, Version::v2_interleave, Version::v3_pr46114, Version::v4_pr47327})
      EXPECT_EQ(size_workspace(v, Platform::cuda, r.mml, r.mns, r.B, r.W, r.I), r.legacy) << r.mml << " " << r.mns;
    EXPECT_EQ(size_workspace(Version::v5_packed, Platform::cuda, r.mml, r.mns, r.B, r.W, r.I), r.v5) << r.mns;
    EXPECT_EQ(size_workspace(Version::v6_current, Platform::cuda, r.mml, r.mns, r.B, r.W, r.I), r.v6) << r.mns;
  }
  // S1: 128K cap, no clamp.
  EXPECT_EQ(size_workspace(Version::v0_early, Platform::cuda, 163840, 256, 64, 1, 1), 131072);
  EXPECT_EQ(size_workspace(Version::v0_early, Platform::cuda, 4096, 64, 16, 1, 1), 32768);
}

TEST(WorkspaceTable, InitAssertsWhereS_NotMultipleOfW) {
  EXPECT_EQ(eval("version=v2-interleave platform=cuda max_model_len=163840 max_num_seqs=256 block=64 dcp=3 "
                 "interleave=1 ctx=70000,20000 q=8,8")
                .first_assert()
                ->which,
            "chunked_prefill_workspace_size % dcp_world_size == 0");
  EXPECT_EQ(eval("version=v6-current platform=cuda max_model_len=163840 max_num_seqs=256 block=64 dcp=3 interleave=1 "
                 "ctx=70000,20000 q=8,8")
                .outcome,
            Outcome::ok);
}

// ---- §6 counterexamples, with the spec's exact numbers --------------------------------

TEST(Spec6, Mi300xFamilyFiresPerStepAssertExactlyForTheListedN) {
  const std::set<int> failing{3,  5,  6,  7,  9,  10, 11, 12, 13, 14, 15, 17, 19, 20, 22, 23,
                              24, 25, 27, 28, 29, 31, 33, 34, 36, 37, 38, 40, 41, 43, 44, 47,
                              48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62};
  for (int n = 1; n <= 64; ++n) {
    // The per-step assert depends on S and n only; short contexts keep the simulation cheap.
    std::string ctx, q;
    for (int i = 0; i < n; ++i) ctx += (i ? ",100" : "100"), q += (i ? ",4" : "4");
    const Evaluation ev =
        eval("version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=" + ctx + " q=" + q);
    const bool fired =
        ev.outcome == Outcome::assert_fired && ev.first_assert()->which == "max_context_chunk % dcp_world_size == 0";
    EXPECT_EQ(fired, failing.count(n) == 1) << "n=" << n;
  }
}

TEST(Spec6, Mi300xCaseReportsTheOffendingChunkWidth) {
  const Evaluation ev =
      eval("version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,30000,30000 q=16,16,16");
  ASSERT_EQ(ev.outcome, Outcome::assert_fired);
  EXPECT_EQ(ev.plan.chunk_width, 21845);
  EXPECT_NE(ev.first_assert()->detail.find("M=21845"), std::string::npos);
  EXPECT_TRUE(ev.violated(InvariantId::I6_virtual_block_alignment));
}

struct ForwardAssert {
  const char* line;
  const char* which;
  const char* detail;
};

TEST(Spec6, InterleaveAndUnroundedCountersFailTheForwardAsserts) {
  const ForwardAssert cases[] = {
      {"version=v2-interleave platform=cuda workspace=65536 block=64 dcp=8 interleave=64 ctx=30000,30000,30000 "
       "q=4,4,4",
       "toks <= allgather_offset", "toks=8256"},
      {"version=v2-interleave platform=cuda workspace=65536 block=64 dcp=8 interleave=64 ctx=50000,100,100 q=4,4,4",
       "reorganized_kv_c_normed.shape[0] == sum_seq_len", "kept 22216 rows, sum_seq_len=22024"},
      {"version=v2-interleave platform=cuda workspace=65536 block=64 dcp=8 interleave=64 "
       "ctx=20000,20000,20000,20000,20000 q=4,4,4,4,4",
       "toks <= allgather_offset", "toks=8320"},
      {"version=v2-interleave platform=cuda workspace=32768 block=16 dcp=4 interleave=16 ctx=20000,20000,20000 q=4,4,4",
       "toks <= allgather_offset", "toks=8208"},
      {"version=v2-interleave platform=cuda workspace=32768 block=64 dcp=2 interleave=64 "
       "ctx=6000,6000,6000,6000,6000,6000 q=4,4,4,4,4,4",
       "toks <= allgather_offset", "toks=16512"},
      {"version=v2-interleave platform=cuda workspace=32768 block=64 dcp=2 interleave=64 "
       "ctx=12000,500,500,500,500,500 q=4,4,4,4,4,4",
       "reorganized_kv_c_normed.shape[0] == sum_seq_len", "kept 8004 rows, sum_seq_len=7940"},
      {"version=v4-pr47327 builder=sparse platform=rocm workspace=65536 block=64 dcp=8 interleave=1 "
       "ctx=30000,30000,30000 q=4,4,4",
       "toks <= allgather_offset", "toks=8193"},
      {"version=v4-pr47327 builder=sparse platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,100,100 "
       "q=4,4,4",
       "reorganized_kv_c_normed.shape[0] == sum_seq_len", "kept 22048 rows, sum_seq_len=22045"},
      {"version=v4-pr47327 builder=sparse platform=rocm workspace=32768 block=64 dcp=4 interleave=1 "
       "ctx=12000,12000,12000 q=4,4,4",
       "toks <= allgather_offset", "toks=8193"},
  };
  for (const auto& c : cases) {
    const Evaluation ev = eval(c.line);
    ASSERT_EQ(ev.outcome, Outcome::assert_fired) << c.line;
    EXPECT_EQ(ev.first_assert()->which, c.which) << c.line;
    EXPECT_NE(ev.first_assert()->detail.find(c.detail), std::string::npos) << ev.first_assert()->detail;
    // The same lines are correct under v6-current.
    std::string v6 = c.line;
    v6.replace(0, v6.find(' '), "version=v6-current");
    EXPECT_EQ(eval(v6).outcome, Outcome::ok) << v6;
  }
}

TEST(Spec6, V3AndV4OnCudaWithInterleave1AndBlockMultipleOfWAreAligned) {
  EXPECT_EQ(eval("version=v4-pr47327 platform=cuda workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,30000,30000 "
                 "q=4,4,4")
                .outcome,
            Outcome::ok);
}

TEST(Spec6, SilentMisroutingUnderPythonO) {
  const Evaluation ev = eval(
      "version=v2-interleave platform=cuda workspace=65536 block=64 dcp=8 interleave=64 ctx=50000,100,100 q=4,4,4 "
      "asserts=off");
  EXPECT_EQ(ev.outcome, Outcome::violation);
  EXPECT_TRUE(ev.violated(InvariantId::I9_reorg_exact));
  // Chunk 0: requests 1 and 2 receive rows that belong to request 0.
  const auto& i9 = ev.results[static_cast<std::size_t>(InvariantId::I9_reorg_exact)].violations;
  ASSERT_GE(i9.size(), 2u);
  EXPECT_EQ(i9[0].request, 0);  // 128 tokens of the next chunk
  EXPECT_NE(i9[0].got.find("128 context row(s) of request 0"), std::string::npos) << i9[0].got;
  EXPECT_EQ(i9[1].request, 1);  // all 100 rows belong to request 0
  EXPECT_NE(i9[1].got.find("100 context row(s) of request 0"), std::string::npos) << i9[1].got;
}

TEST(Spec6, PageRoundingGatherShiftsFiveTokens) {
  const Evaluation ev =
      eval("version=v1-dcp platform=rocm workspace=65536 block=16 dcp=1 interleave=1 ctx=50000,30000,30000 q=8,8,8");
  EXPECT_EQ(ev.outcome, Outcome::violation);
  ASSERT_TRUE(ev.violated(InvariantId::I5_page_aligned_starts));
  const auto& i9 = ev.results[static_cast<std::size_t>(InvariantId::I9_reorg_exact)];
  ASSERT_FALSE(i9.violations.empty());
  // Spec: chunk 1 reads 21840.. instead of 21845..: 5 tokens of chunk 0 twice, 5 never.
  EXPECT_NE(i9.violations.front().got.find(
                "5 context row(s) of request 0 (positions 21840..21844); 5 position(s) never received"),
            std::string::npos)
      << i9.violations.front().got;
}

TEST(Spec6, WorkspaceBelowMnsTimesBlockGivesZeroWidth) {
  const Evaluation ev =
      eval("version=v3-pr46114 platform=cuda workspace=256 block=64 ctx=100,100,100,100,100 q=4,4,4,4,4");
  ASSERT_EQ(ev.outcome, Outcome::assert_fired);
  EXPECT_EQ(ev.first_assert()->which, "max_context_chunk > 0");
  EXPECT_TRUE(ev.violated(InvariantId::I2_nonempty_chunk_width));
}

TEST(Spec6, TritonEmptyEmptyMergeAndContextPrefix) {
  EXPECT_TRUE(eval("version=v1-dcp platform=rocm workspace=65536 block=64 ctx=70000,0 q=4,4")
                  .violated(InvariantId::I12_merge_preconditions));
  // The CUDA kernel v1-dcp shipped with predates #28181's both-empty early return: NaN too
  // (issue 28: I-12 judges the version's merge kernel, reference/planner/merge_kernels.h)...
  EXPECT_TRUE(eval("version=v1-dcp platform=cuda workspace=65536 block=64 ctx=70000,0 q=4,4")
                  .violated(InvariantId::I12_merge_preconditions));
  // ...from #28181 on it copies the prefix and writes -inf: no NaN (the context-free request
  // between two context requests is not masked by prefill_tokens_with_context).
  EXPECT_FALSE(eval("version=v4-pr47327 platform=cuda workspace=128 block=16 ctx=100,0,100 q=4,4,4")
                   .violated(InvariantId::I12_merge_preconditions));
  EXPECT_TRUE(eval("version=v4-pr47327 platform=rocm workspace=128 block=16 ctx=100,0,100 q=4,4,4")
                  .violated(InvariantId::I12_merge_preconditions));
  // S4's prefill_tokens_with_context masks the context-free request when it comes last...
  EXPECT_EQ(eval("version=v2-interleave platform=rocm workspace=65536 block=64 ctx=70000,0 q=4,4").outcome,
            Outcome::ok);
  // ...and misfires when it comes first.
  const Evaluation ev = eval("version=v2-interleave platform=rocm workspace=65536 block=64 ctx=0,70000 q=4,4");
  EXPECT_TRUE(ev.violated(InvariantId::I12_merge_preconditions));
  EXPECT_TRUE(ev.violated(InvariantId::I13_context_prefix));
  EXPECT_TRUE(eval("version=v2-interleave platform=cuda workspace=65536 block=64 ctx=0,64 q=4,4")
                  .violated(InvariantId::I13_context_prefix));
}

// test_context_parallel's sizing (max_model_len=4096, max_num_seqs=64, B=64 => S=32768), the
// (dcp2, I=64) config, v2-interleave on CUDA (aot_schedule rounds M down to B): through the
// planner, version and platform gating included.
TEST(Spec5, TestContextParallelI64OnlyMisalignsForN6And7) {
  for (int n = 1; n <= 8; ++n) {
    std::string ctx, q;
    for (int i = 0; i < n; ++i) {
      ctx += (i ? "," : "") + std::string("6000");
      q += (i ? "," : "") + std::string("4");
    }
    const Evaluation ev = eval(
        "version=v2-interleave platform=cuda max_model_len=4096 max_num_seqs=64 block=64 "
        "dcp=2 interleave=64 ctx=" +
        ctx + " q=" + q);
    ASSERT_EQ(ev.plan.workspace, 32768) << n;
    const std::int64_t M = ev.plan.chunk_width;
    EXPECT_EQ(M, (32768 / n) / 64 * 64) << n;
    EXPECT_EQ(M % 128 != 0, n == 6 || n == 7) << n;
    if (n == 6) {
      EXPECT_EQ(M, 5440);
    }
    if (n == 7) {
      EXPECT_EQ(M, 4672);
    }
  }
}

TEST(BatchSplit, LeadingSingleTokenRequestsAreDecodes) {
  const Evaluation ev = eval("version=v6-current platform=cuda workspace=1024 block=16 ctx=500,600,700 q=1,1,8");
  EXPECT_EQ(ev.plan.num_decodes, 2);
  EXPECT_EQ(ev.plan.prefills, (std::vector<int>{2}));
  EXPECT_FALSE(ev.plan.notes.empty());
}

TEST(PackedPlanner, BenchmarkOf50613PacksIntoOneChunk) {
  std::string ctx = "60000", q = "4";
  for (int i = 0; i < 31; ++i) ctx += ",16", q += ",4";
  const auto tail = " block=16 ctx=" + ctx + " q=" + q;
  EXPECT_EQ(eval("version=v6-current platform=cuda workspace=65536" + tail).plan.chunks.size(), 1u);
  EXPECT_EQ(eval("version=v3-pr46114 platform=cuda workspace=65536" + tail).plan.chunks.size(), 30u);
}

}  // namespace
}  // namespace cp

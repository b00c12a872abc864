// The CPU numerics check (reference/mla/check.h): chunk invariance of the exact path, the
// regression corpus through the numbers, and the vLLM-style path against float64.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "invariants/catalogue.h"
#include "reference/caseio/regression.h"
#include "reference/dcp/movement.h"
#include "reference/mla/check.h"
#include "reference/mla/inputs.h"
#include "reference/mla/stages.h"
#include "reference/planner/families/pcp/family.h"
#include "tests/mla/narrow_dims.h"

namespace cp::mla {
namespace {

// A small case the packed planner accepts: dcp 1..8, interleave dividing block (> 1 often),
// 1..4 requests with short contexts, a workspace of 1..6 alignment units so contexts span
// several chunks.
rc::Gen<Case> small_case(Version v) {
  return rc::gen::exec([v] {
    Case c;
    c.version = v;
    c.platform = *rc::gen::element(Platform::cuda, Platform::rocm);
    c.block = *rc::gen::element<std::int64_t>(1, 2, 4, 8, 16, 32, 3, 6);
    c.dcp = *rc::gen::inRange<std::int64_t>(1, 9);
    if (c.dcp > 1 && *rc::gen::inRange(0, 3) != 0) {
      std::vector<std::int64_t> divs;
      for (std::int64_t d = 1; d <= c.block; ++d)
        if (c.block % d == 0) divs.push_back(d);
      c.interleave = *rc::gen::elementOf(divs);
    }
    const int n = *rc::gen::inRange(1, 5);
    for (int i = 0; i < n; ++i) {
      c.ctx.push_back(*rc::gen::weightedOneOf<std::int64_t>(
          {{1, rc::gen::just<std::int64_t>(0)}, {5, rc::gen::inRange<std::int64_t>(1, 300)}}));
      c.q.push_back(*rc::gen::inRange<std::int64_t>(1, 5));
    }
    const std::int64_t align = std::lcm(c.block, c.interleave * c.dcp);
    c.workspace = align * *rc::gen::inRange<std::int64_t>(1, 7);
    c.seed = *rc::gen::inRange<std::uint64_t>(1, 1000000);
    order_decodes_first(c);
    validate_case(c);
    return c;
  });
}

void expect_identical_and_in_bound(const Case& c) {
  const CheckResult r = run_check(c, {});
  if (r.assert_fired || r.exit_code() != 0 || !r.exact.identical())
    RC_FAIL("case: " + print_case(c) + "\n  -> " + r.one_line());
}

// DESIGN §6: any plan of the packed planners gives the unchunked bits, under DCP and interleave.
RC_GTEST_PROP(MlaChunkInvariance, V6CurrentChunkedEqualsUnchunkedBitForBit, ()) {
  expect_identical_and_in_bound(*small_case(Version::v6_current));
}

RC_GTEST_PROP(MlaChunkInvariance, V5PackedChunkedEqualsUnchunkedBitForBit, ()) {
  expect_identical_and_in_bound(*small_case(Version::v5_packed));
}

// The same inputs chunked two different ways (two workspaces) give identical bits.
RC_GTEST_PROP(MlaChunkInvariance, TwoWorkspacesGiveIdenticalBits, ()) {
  Case a = *small_case(Version::v6_current);
  Case b = a;
  const std::int64_t align = std::lcm(a.block, a.interleave * a.dcp);
  b.workspace = align * *rc::gen::inRange<std::int64_t>(1, 40);
  CheckOptions o;
  o.vllm = false;
  o.keep_outputs = true;
  const CheckResult ra = run_check(a, o), rb = run_check(b, o);
  RC_ASSERT(!ra.assert_fired);
  RC_ASSERT(!rb.assert_fired);
  RC_TAG(ra.plan.chunks.size() != rb.plan.chunks.size() ? "different chunk counts" : "same chunk count");
  RC_ASSERT(ra.chunked_out.size() == rb.chunked_out.size());
  for (std::size_t i = 0; i < ra.chunked_out.size(); ++i)
    if (bits_of(ra.chunked_out[i]) != bits_of(rb.chunked_out[i]))
      RC_FAIL("element " + std::to_string(i) + " differs between " + print_case(a) + " and " + print_case(b));
}

// Threads split heads, and with two or more the unchunked reference runs beside the chunked
// pipeline; the bits do not depend on it (reference, chunked, vLLM-style out and lse).
TEST(MlaChunkInvariance, ThreadsDoNotChangeBits) {
  const Case c = parse_case(
      "version=v6-current platform=cuda workspace=1024 block=16 dcp=4 interleave=4 ctx=3000,17,0,900 q=3,4,2,5 "
      "heads=8");
  CheckOptions one, two;
  one.keep_outputs = two.keep_outputs = true;
  two.threads = 2;
  const auto a = run_check(c, one), b = run_check(c, two);
  ASSERT_TRUE(a.exact.identical()) << a.one_line();
  const auto same_bits = [](const std::vector<float>& x, const std::vector<float>& y, const char* what) {
    ASSERT_EQ(x.size(), y.size()) << what;
    ASSERT_FALSE(x.empty()) << what;
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(bits_of(x[i]), bits_of(y[i])) << what << " element " << i;
  };
  same_bits(a.chunked_out, b.chunked_out, "chunked");
  same_bits(a.reference_out, b.reference_out, "reference");
  same_bits(a.reference_lse, b.reference_lse, "reference lse");
  for (int f = 0; f < 2; ++f) {
    same_bits(a.vllm_out[f], b.vllm_out[f], "vllm out");
    same_bits(a.vllm_lse[f], b.vllm_lse[f], "vllm lse");
  }
}

// stages.h: the list is in pipeline order, and each path's passes run the workspace stages and
// the up-projection every pass, scores, accumulate and merge once each (the scores first: the
// exact path needs the global max before any exp), normalize after the passes.
TEST(MlaStages, EachPathScoresAccumulatesAndMergesOnce) {
  for (std::size_t i = 0; i < std::size(kStages); ++i)
    EXPECT_EQ(static_cast<std::size_t>(kStages[i]), i) << stage_name(kStages[i]);
  for (const auto& [exact, vllm] :
       std::initializer_list<std::pair<bool, bool>>{{true, true}, {true, false}, {false, true}}) {
    int scores = 0, accumulate = 0, merge = 0;
    for (const Pass& p : passes(exact, vllm)) {
      for (Stage s : {Stage::gather, Stage::collective, Stage::reorg, Stage::up_project}) EXPECT_TRUE(p.has(s));
      EXPECT_FALSE(p.has(Stage::normalize));
      EXPECT_TRUE(!p.has(Stage::merge) || p.has(Stage::accumulate));
      scores += p.has(Stage::scores);
      if (p.has(Stage::accumulate) && scores == 0) ADD_FAILURE() << "accumulate before scores";
      accumulate += p.has(Stage::accumulate);
      merge += p.has(Stage::merge);
    }
    EXPECT_EQ(scores, 1) << exact << vllm;
    EXPECT_EQ(accumulate, 1) << exact << vllm;
    EXPECT_EQ(merge, 1) << exact << vllm;
  }
  EXPECT_TRUE(passes(false, false).empty());
}

// The vLLM-style path alone runs one pass (stages.h kVllmPasses: a chunk's softmax needs only
// its own max); with the exact path it rides along in pass 2. Same bits either way: outputs,
// lse and every chunk's partial.
TEST(MlaChunkInvariance, VllmAloneHasTheBitsOfTheTwoPassRun) {
  const Case c = parse_case(
      "version=v6-current platform=cuda workspace=256 block=16 dcp=4 interleave=2 ctx=900,0,77,300 q=3,2,4,2 "
      "heads=4");
  CheckOptions both, alone;
  both.keep_outputs = alone.keep_outputs = true;
  alone.exact = false;
  const auto a = run_check(c, both), b = run_check(c, alone);
  ASSERT_EQ(a.exit_code(), 0) << a.one_line();
  ASSERT_EQ(b.exit_code(), 0) << b.one_line();
  EXPECT_FALSE(b.exact.ran);
  EXPECT_EQ(a.attended_rows, b.attended_rows);
  const auto same_bits = [](const std::vector<float>& x, const std::vector<float>& y, const char* what) {
    ASSERT_EQ(x.size(), y.size()) << what;
    ASSERT_FALSE(x.empty()) << what;
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(bits_of(x[i]), bits_of(y[i])) << what << " element " << i;
  };
  for (int f = 0; f < 2; ++f) {
    same_bits(a.vllm_out[f], b.vllm_out[f], "vllm out");
    same_bits(a.vllm_lse[f], b.vllm_lse[f], "vllm lse");
    EXPECT_EQ(a.vllm.flavours[f].max_abs, b.vllm.flavours[f].max_abs);
  }
  ASSERT_EQ(a.vllm_partials.size(), b.vllm_partials.size());
  ASSERT_GT(a.vllm_partials.size(), 2u);
  for (std::size_t k = 0; k < a.vllm_partials.size(); ++k) {
    same_bits(a.vllm_partials[k].out, b.vllm_partials[k].out, "partial out");
    same_bits(a.vllm_partials[k].lse, b.vllm_partials[k].lse, "partial lse");
  }
}

// Sampled verification: the chosen heads' elements have exactly the bits of the full run.
TEST(MlaSampledHeads, SampledHeadsHaveTheFullRunBits) {
  const Case c = parse_case(
      "version=v6-current platform=cuda workspace=256 block=16 dcp=2 interleave=4 ctx=700,30 q=3,2 heads=7 seed=5");
  CheckOptions full, part;
  full.keep_outputs = part.keep_outputs = true;
  part.sample_heads = 3;
  const auto a = run_check(c, full), b = run_check(c, part);
  ASSERT_TRUE(a.exact.identical()) << a.one_line();
  ASSERT_TRUE(b.exact.identical()) << b.one_line();
  ASSERT_EQ(b.heads.size(), 3u);
  EXPECT_EQ(b.heads, sample_heads(7, 3, c.seed));
  const std::size_t Vd = 16, T = 5;
  ASSERT_EQ(b.reference_out.size(), T * 3 * Vd);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t k = 0; k < 3; ++k) {
      const std::size_t h = static_cast<std::size_t>(b.heads[k]);
      for (std::size_t d = 0; d < Vd; ++d) {
        const std::size_t i = (t * 3 + k) * Vd + d, j = (t * 7 + h) * Vd + d;
        ASSERT_EQ(bits_of(b.reference_out[i]), bits_of(a.reference_out[j]));
        ASSERT_EQ(bits_of(b.chunked_out[i]), bits_of(a.chunked_out[j]));
        for (int f = 0; f < 2; ++f) ASSERT_EQ(bits_of(b.vllm_out[f][i]), bits_of(a.vllm_out[f][j]));
      }
      for (int f = 0; f < 2; ++f) ASSERT_EQ(bits_of(b.vllm_lse[f][t * 3 + k]), bits_of(a.vllm_lse[f][t * 7 + h]));
    }
}

// The done check: the interleave misrouting of v2-interleave (spec §3.6).
TEST(MlaDoneCheck, V2InterleaveAssertsThenMisroutesAndV6IsIdentical) {
  const std::string line =
      "version=v2-interleave platform=cuda workspace=65536 block=64 dcp=8 interleave=64 ctx=50000,100,100 q=4,4,4";
  const auto with_assert = run_check(parse_case(line), {});
  EXPECT_TRUE(with_assert.assert_fired);
  EXPECT_EQ(with_assert.exit_code(), 1);

  const auto silent = run_check(parse_case(line + " asserts=off"), {});
  ASSERT_FALSE(silent.assert_fired);
  EXPECT_EQ(silent.exit_code(), 1);
  EXPECT_GT(silent.exact.differing, 0);
  ASSERT_TRUE(silent.exact.first.has_value());
  // Requests 1 and 2 receive rows of request 0 instead of their own context.
  bool foreign = false;
  for (const auto& r : silent.exact.routing)
    if (r.request == 1) foreign = r.n_missing == 100 && r.foreign_context == 100;
  EXPECT_TRUE(foreign) << silent.one_line();

  auto v6 = parse_case(line);
  v6.version = Version::v6_current;
  const auto ok = run_check(v6, {});
  EXPECT_TRUE(ok.exact.identical()) << ok.one_line();
  EXPECT_EQ(ok.exit_code(), 0) << ok.one_line();
}

// spec I-12(b): empty+empty merge. The old planner keeps the ctx=0 prefill in both chunks:
// NaN on the Triton merge, not on the CUDA merge; the exact path has no merge and is identical.
TEST(MlaVllmPath, EmptyEmptyMergeIsNaNOnTritonOnly) {
  const auto r = run_check(
      parse_case("version=v1-dcp platform=rocm workspace=65536 block=64 dcp=1 interleave=1 ctx=70000,0 q=4,4"), {});
  ASSERT_TRUE(r.vllm.ran);
  EXPECT_GT(r.vllm.flavours[0].nan, 0);
  ASSERT_TRUE(r.vllm.flavours[0].first_nan.has_value());
  EXPECT_EQ(r.vllm.flavours[0].first_nan->request, 1);
  EXPECT_EQ(r.vllm.flavours[1].nan, 0);
  EXPECT_TRUE(r.vllm.flavours[1].within_bound);
  EXPECT_TRUE(r.exact.identical()) << r.one_line();
  EXPECT_EQ(r.exit_code(), 1);  // rocm dispatches to Triton
}

// Every regression case of the corpus through the numbers: an expected assert is reported as
// such; an expected routing violation shows as a bit difference; an expected merge violation
// (I-12/I-13) shows in the vLLM path while the exact path stays identical; ok is identical.
// Every family's movement runs in the numerics (vLLM's, ATOM's, SGLang's transposed all-gather,
// TokenSpeed's compact reconstruction), except here TensorRT-LLM's: its finding (R-B1) is a budget,
// not a bit difference, and its own merge (op codes: a len-0 row skipped, R-4) is pinned by
// mla.EngineMerges.*; the sparse families, whose spans are not context; and the pcp family, whose
// corpus cases (P- verdicts: collective and order hazards, not keys) run in
// mla.PcpNumerics.CorpusPcpCasesBitIdentical.
bool numerics_run_it(const Case& c) {
  const Plan p = make_plan(c);
  const FamilyInfo* f = p.version_info().family;
  return f != &trtllm_family && f != &pcp_family && !p.pcp && f->spans_are_context;
}

TEST(MlaRegressions, CorpusThroughTheNumbers) {
  const std::filesystem::path dir = std::filesystem::path(CHUNKPROOF_SOURCE_DIR) / "corpus" / "regressions";
  int replays = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".case") continue;
    const CaseRecord rf = read_regression_file(entry.path().string());
    for (const auto& ex : rf.expects) {
      const Case c = test_shapes::with_narrow_dims(rf.case_for(ex.version));
      SCOPED_TRACE(entry.path().filename().string() + ": " + rf.header_value("bug") + "\n  " + print_case(c));
      if (!numerics_run_it(c)) continue;
      const CheckResult r = run_check(c, {});
      ++replays;
      switch (ex.outcome) {
        case ExpectedOutcome::assert_fired:
        case ExpectedOutcome::crashed: EXPECT_TRUE(r.assert_fired) << r.one_line(); break;
        case ExpectedOutcome::ok:
          EXPECT_EQ(r.exit_code(), 0) << r.one_line();
          EXPECT_TRUE(r.exact.identical()) << r.one_line();
          break;
        case ExpectedOutcome::violation: {
          // A budget violation alone (I-4, I-7, ATOM's A-7: A-B1; Z-1: the profile run's
          // reservation, ZB-2) is no difference in the numbers: the numerics allocate the rows the
          // plan needs, and the engine's guard does the same. Nor is SGLang's G-4 (G-B1): the
          // zero-kv row's partial is undefined in the backend's ragged kernel, which the numerics
          // do not model (their attention of no rows returns (0, -inf), as vLLM's does).
          bool routing = false, merge = false, budget_only = true;
          for (const auto& tag : ex.invariants) {
            InvariantId id{};
            ASSERT_TRUE(parse_invariant(tag, id)) << tag;
            routing |= id == InvariantId::I5_page_aligned_starts || id == InvariantId::I6_virtual_block_alignment ||
                       id == InvariantId::I9_reorg_exact || id == InvariantId::T3_tokenspeed_first_owned;
            merge |= id == InvariantId::I12_merge_preconditions;
            budget_only &= id == InvariantId::I4_global_row_budget || id == InvariantId::I7_local_row_budget ||
                           id == InvariantId::A7_atom_window_budget || id == InvariantId::Z1_profile_reservation ||
                           id == InvariantId::G4_sglang_zero_kv_rows;
          }
          EXPECT_EQ(r.exit_code(), budget_only ? 0 : 1) << r.one_line();
          if (routing) {
            EXPECT_GT(r.exact.differing, 0) << r.one_line();
          } else {
            EXPECT_TRUE(r.exact.identical()) << r.one_line();
          }
          if (merge) {
            EXPECT_GT(r.vllm.flavours[0].nan, 0) << "Triton NaN expected: " << r.one_line();
          }
          break;
        }
      }
    }
  }
  EXPECT_GT(replays, 10);
}

// The vLLM-style path on a long multi-chunk context stays within its stated bound.
TEST(MlaVllmPath, WithinBoundOnLongContext) {
  const auto r = run_check(
      parse_case("version=v6-current platform=rocm workspace=2048 block=64 dcp=2 interleave=8 ctx=20000,3000 q=4,4"),
      {});
  EXPECT_EQ(r.exit_code(), 0) << r.one_line();
  for (const auto& f : r.vllm.flavours) {
    EXPECT_LE(f.max_abs, kVllmBoundAbs);
    EXPECT_EQ(f.nan, 0);
  }
}

}  // namespace
}  // namespace cp::mla

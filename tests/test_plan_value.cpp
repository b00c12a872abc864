// The plan as one faithful value (issue 9) and the fidelity gaps of the oldest versions
// (issue 17): vLLM's chunk structure (request slices, a context-free request closes the packed
// chunk), the geometry the plan carries, versions as table rows with the builder switch, the
// v0-early page_size crash and vLLM's decode-first batch order.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "invariants/catalogue.h"
#include "reference/planner/families/registry.h"

namespace cp {
namespace {

Evaluation eval(const std::string& line) { return evaluate(parse_case(line)); }

// (request, start, len) of every entry of every chunk.
using Span = std::tuple<int, std::int64_t, std::int64_t>;
std::vector<std::vector<Span>> chunks_of(const Plan& p) {
  std::vector<std::vector<Span>> out;
  for (const auto& ch : p.chunks) {
    out.emplace_back();
    for (const auto& e : ch.entries) out.back().emplace_back(e.request, e.start, e.len);
  }
  return out;
}

// Bug pinned: the packed planner kept filling one chunk across a request without context
// (one chunk [(0,0,64),(2,0,64)]); vLLM's plan_mla_context_chunks stops at it.
TEST(PackedChunkStructure, ContextFreeRequestClosesTheChunk) {
  for (const char* v : {"v5-packed", "v6-current"}) {
    const Evaluation ev = eval(std::string("version=") + v +
                               " platform=cuda workspace=1024 block=16 dcp=1 interleave=1 ctx=64,0,64 q=4,4,4");
    EXPECT_EQ(chunks_of(ev.plan), (std::vector<std::vector<Span>>{{{0, 0, 64}}, {{2, 0, 64}}})) << v;
    ASSERT_EQ(ev.plan.chunks.size(), 2u);
    EXPECT_EQ(ev.plan.chunks[0].request_start, 0);
    EXPECT_EQ(ev.plan.chunks[0].request_end, 1);
    EXPECT_EQ(ev.plan.chunks[1].request_start, 2);
    EXPECT_EQ(ev.plan.chunks[1].request_end, 3);
    EXPECT_EQ(ev.plan.chunks[1].token_start, 8);  // query tokens of request 2: [8, 12)
    EXPECT_EQ(ev.plan.chunks[1].token_end, 12);
    EXPECT_EQ(ev.outcome, Outcome::ok) << v;
  }
}

// Bug pinned: with S=128 the old packing split request 2 at 16 behind request 0 and continued
// it (is_continuation) in a second chunk; vLLM gives request 2 a fresh chunk, whole.
TEST(PackedChunkStructure, ContextFreeRequestMovesSplitAndContinuation) {
  const Evaluation ev =
      eval("version=v6-current platform=cuda workspace=128 block=16 dcp=1 interleave=1 ctx=100,0,100 q=4,4,4");
  EXPECT_EQ(chunks_of(ev.plan), (std::vector<std::vector<Span>>{{{0, 0, 100}}, {{2, 0, 100}}}));
  for (const auto& ch : ev.plan.chunks) EXPECT_FALSE(ch.is_continuation);
}

// Upstream docstring: no chunk contains an empty context span; slices are contiguous and the
// entries are exactly the slice's requests, in order.
TEST(PackedChunkStructure, SlicesAreContiguousAndHaveNoEmptySpan) {
  const Evaluation ev = eval(
      "version=v6-current platform=rocm workspace=256 block=16 dcp=2 interleave=1 ctx=300,0,0,40,90,0,500 "
      "q=2,3,4,5,6,7,8");
  ASSERT_TRUE(ev.plan.built);
  for (const auto& ch : ev.plan.chunks) {
    ASSERT_EQ(static_cast<int>(ch.entries.size()), ch.request_end - ch.request_start);
    for (std::size_t i = 0; i < ch.entries.size(); ++i) {
      EXPECT_EQ(ch.entries[i].request, ch.request_start + static_cast<int>(i));
      EXPECT_GT(ch.entries[i].len, 0);
    }
  }
}

// The old planner's chunk is the slice of every prefill, context-free ones included.
TEST(OldChunkStructure, SliceIsEveryPrefill) {
  const Evaluation ev =
      eval("version=v2-interleave platform=cuda workspace=1024 block=16 dcp=1 interleave=1 ctx=0,3000,40 q=1,4,4");
  ASSERT_FALSE(ev.plan.chunks.empty());
  for (const auto& ch : ev.plan.chunks) {
    EXPECT_EQ(ch.request_start, 1);  // request 0 is a decode
    EXPECT_EQ(ch.request_end, 3);
    EXPECT_EQ(ch.token_start, 0);
    EXPECT_EQ(ch.token_end, 8);
  }
}

TEST(PlanGeometry, PlanCarriesWIVBlockGatherAndMerge) {
  const Plan p =
      make_plan(parse_case("version=v6-current platform=rocm workspace=4096 block=64 dcp=4 interleave=16 ctx=500 q=3"));
  EXPECT_EQ(p.dcp, 4);
  EXPECT_EQ(p.interleave, 16);
  EXPECT_EQ(p.virtual_block, 64);
  EXPECT_EQ(p.block, 64);
  EXPECT_EQ(p.gather, GatherKind::cp_gather);
  EXPECT_EQ(p.merge, MergeFlavour::triton);
  const Plan q = make_plan(parse_case("version=v1-dcp platform=cuda workspace=4096 block=64 ctx=500 q=3"));
  EXPECT_EQ(q.gather, GatherKind::page_rounding);
  EXPECT_EQ(q.merge, MergeFlavour::cuda);
  EXPECT_FALSE(q.is_dcp());
}

// Regression (issue 22): I-12 chose "Triton" by platform alone while the numerics and the export
// used the dispatcher's rule, so a CUDA case with v_dim % 8 != 0 (the dispatcher's Triton
// fallback) passed I-12 while the Triton kernel it really runs gave NaN for the context-free
// request (an empty + empty merge of the old planner). One rule now (merge_flavour in
// versions.h), recorded in the plan, read by every consumer.
TEST(PlanGeometry, MergeFlavourIsTheDispatchersRule) {
  EXPECT_EQ(merge_flavour(Platform::cuda, 128), MergeFlavour::cuda);
  EXPECT_EQ(merge_flavour(Platform::cuda, 4), MergeFlavour::triton);                    // not a multiple of 8
  EXPECT_EQ(merge_flavour(Platform::cuda, 4, PartialDtype::fp32), MergeFlavour::cuda);  // fp32 packs 4
  EXPECT_EQ(merge_flavour(Platform::cuda, 12, PartialDtype::fp32), MergeFlavour::cuda);
  EXPECT_EQ(merge_flavour(Platform::cuda, 6, PartialDtype::fp32), MergeFlavour::triton);
  EXPECT_EQ(merge_flavour(Platform::rocm, 128), MergeFlavour::triton);
  // v4-pr47327: its CUDA kernel has #28181's both-empty early return (v1-dcp's predates it and
  // gives NaN: I-12 judges the version's kernel, reference/planner/merge_kernels.h, issue 28).
  const std::string line =
      "version=v4-pr47327 platform=cuda workspace=128 block=16 dcp=1 interleave=1 ctx=100,0,100 q=4,4,4 v_dim=";
  const Evaluation fallback = evaluate(parse_case(line + "4"));
  EXPECT_EQ(fallback.plan.merge, MergeFlavour::triton);
  EXPECT_TRUE(fallback.violated(InvariantId::I12_merge_preconditions));
  const Evaluation packs = evaluate(parse_case(line + "16"));
  EXPECT_EQ(packs.plan.merge, MergeFlavour::cuda);
  EXPECT_FALSE(packs.violated(InvariantId::I12_merge_preconditions));
}

// #46114 on the platform it was made for: the dense builder rounds M down to the block on
// ROCm too (21845 -> 21824, a multiple of 4); the pre-fix v2-interleave still asserts; the
// sparse builder keeps ROCm unrounded.
constexpr const char* kRocmDcp4 =
    " platform=rocm workspace=65536 block=64 dcp=4 interleave=1 ctx=30000,30000,30000 q=16,16,16";
TEST(VersionTable, Pr46114RoundsOnRocmWithTheDenseBuilder) {
  const Evaluation fixed = eval(std::string("version=v3-pr46114") + kRocmDcp4);
  EXPECT_EQ(fixed.plan.chunk_width, 21824);
  EXPECT_EQ(fixed.outcome, Outcome::ok);
  const Evaluation before = eval(std::string("version=v2-interleave") + kRocmDcp4);
  EXPECT_EQ(before.plan.chunk_width, 21845);
  ASSERT_EQ(before.outcome, Outcome::assert_fired);
  EXPECT_EQ(before.plan.asserts.front().which, "max_context_chunk % dcp_world_size == 0");
  const Evaluation sparse = eval(std::string("version=v3-pr46114 builder=sparse") + kRocmDcp4);
  EXPECT_EQ(sparse.plan.chunk_width, 21845);
  EXPECT_EQ(sparse.outcome, Outcome::assert_fired);
}

TEST(VersionTable, PackedAlignmentFollowsTheBuilder) {
  const std::string tail = " platform=rocm workspace=1000 block=16 dcp=1 interleave=1 ctx=5000 q=4";
  EXPECT_EQ(make_plan(parse_case("version=v6-current" + tail)).align, 16);
  EXPECT_EQ(make_plan(parse_case("version=v6-current builder=sparse" + tail)).align, 1);
  EXPECT_EQ(
      make_plan(parse_case("version=v6-current builder=sparse platform=cuda workspace=1000 block=16 ctx=5000 q=4"))
          .align,
      16);
}

TEST(VersionTable, BuilderKeyRoundTripsAndDefaultsToDense) {
  const Case c = parse_case("version=v4-pr47327 builder=sparse block=16 ctx=1 q=2 workspace=64");
  EXPECT_EQ(c.builder, Builder::sparse);
  EXPECT_EQ(parse_case(print_case(c)), c);
  EXPECT_EQ(parse_case("version=v4-pr47327 block=16 ctx=1 q=2 workspace=64").builder, Builder::dense);
  EXPECT_EQ(print_case(parse_case("version=v4-pr47327 block=16 ctx=1 q=2 workspace=64")).find("builder"),
            std::string::npos);
  EXPECT_THROW(parse_case("version=v4-pr47327 builder=fast block=16 ctx=1 q=2 workspace=64"), CaseError);
}

// Every row is consistent with its derived columns and every name parses back.
TEST(VersionTable, RowsAreConsistent) {
  for (const auto& v : all_versions()) {
    ASSERT_NE(v.family, nullptr) << v.name;
    EXPECT_NE(std::find(kFamilies.begin(), kFamilies.end(), v.family), kFamilies.end()) << v.name;
    // A family's rules only on its own rows: the other family's fields keep their defaults.
    if (v.is_packed())
      EXPECT_EQ(v.floor_divide.rounding, FloorDivideRules{}.rounding) << v.name;
    else
      EXPECT_EQ(v.packed.align, PackedRules{}.align) << v.name;
    EXPECT_EQ(parse_version(v.name), v.version);
    EXPECT_EQ(&info(v.version), &v);
  }
}

// Issue 17: S1 sets page_size only with FA3 (aot_schedule) but rounds by it whenever a prefill
// has context: on ROCm the step dies with AttributeError, which is no assert (asserts=off does
// not strip it).
TEST(V0Early, CrashesWithoutFa3WhenAPrefillHasContext) {
  for (const char* extra : {"", " asserts=off"}) {
    const Evaluation ev = eval(std::string("version=v0-early platform=rocm max_model_len=4095 max_num_seqs=128 "
                                           "block=128 dcp=1 interleave=1 ctx=1 q=41") +
                               extra);
    ASSERT_EQ(ev.outcome, Outcome::crashed) << extra;
    EXPECT_TRUE(ev.plan.crashed());
    EXPECT_NE(ev.plan.asserts.front().which.find("page_size"), std::string::npos);
    EXPECT_EQ(ev.exit_code(), 1);
  }
  EXPECT_EQ(eval("version=v0-early platform=cuda max_model_len=4095 max_num_seqs=128 block=128 ctx=1 q=41").outcome,
            Outcome::ok);
  // No prefill with context: build() never rounds.
  EXPECT_EQ(eval("version=v0-early platform=rocm workspace=4096 block=128 ctx=0 q=41").outcome, Outcome::ok);
}

// Issue 17: decodes after a prefill never reach vLLM's planner in that order.
TEST(DecodeOrder, NonLeadingDecodeIsRejectedNamingQWithVllmsOrder) {
  try {
    parse_case("version=v6-current workspace=1024 block=16 ctx=0,18 q=15,1");
    FAIL() << "accepted a decode after a prefill";
  } catch (const CaseError& e) {
    EXPECT_EQ(e.key, "q");
    EXPECT_NE(std::string(e.what()).find("ctx=18,0 q=1,15"), std::string::npos) << e.what();
  }
}

// vLLM swaps decodes found past the decode region with the first prefills (not stable).
TEST(DecodeOrder, ReorderSwapsLikeVllm) {
  Case c;
  c.ctx = {10, 20, 30, 40, 50};
  c.q = {5, 1, 6, 1, 1};
  order_decodes_first(c);
  // decodes {1,3,4}, prefills {0,2}: 4 <-> 0, 3 <-> 2, then decode 1 is inside the region.
  EXPECT_EQ(c.q, (std::vector<std::int64_t>{1, 1, 1, 6, 5}));
  EXPECT_EQ(c.ctx, (std::vector<std::int64_t>{50, 20, 40, 30, 10}));
}

}  // namespace
}  // namespace cp

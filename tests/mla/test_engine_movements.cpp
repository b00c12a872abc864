// The CPU numerics execute every engine's data movement (reference/planner/movement.h; issue 27
// item 4): ATOM's reorg map, SGLang's pad -> all-gather -> transpose -> slice and its one-shot
// every-W-th read, TokenSpeed's compact send and strided reconstruction, local attention with the
// cross-rank LSE merge. A right plan gives the unchunked bits; a wrong one is reported by the keys
// it attends twice or never. Each right-plan test fails when a part of the movement is executed
// wrongly (a layout, a stride, a per-rank gather): the rows would differ from simulate_chunk
// (cross_check throws) or from the unchunked reference (bits differ).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>
#include <vector>

#include "reference/dcp/movement.h"
#include "reference/mla/check.h"
#include "reference/mla/math/merge_attn_states.h"
#include "reference/planner/families/vllm/movement.h"
#include "reference/planner/merge_kernels.h"
#include "tests/mla/local_attention.h"
#include "tests/mla/narrow_dims.h"

namespace cp::mla {
namespace {

using Ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;

CheckResult check_line(const std::string& line, bool narrow = false, bool asserts = true) {
  Case c = parse_case(line);
  if (narrow) c = test_shapes::with_narrow_dims(c);
  c.asserts = asserts;
  return run_check(c, {});
}

const RequestRouting* routing_of(const CheckResult& r, int request) {
  for (const auto& rt : r.exact.routing)
    if (rt.request == request) return &rt;
  return nullptr;
}

void expect_identical(const CheckResult& r) {
  EXPECT_FALSE(r.assert_fired) << r.assert_text;
  EXPECT_TRUE(r.exact.identical()) << r.one_line();
  EXPECT_EQ(r.exit_code(), 0) << r.one_line();
  for (const auto& rt : r.exact.routing) EXPECT_TRUE(rt.exact()) << "request " << rt.request;
}

// Every chunk of the plan has the movement shape the test means to exercise (else the test
// would pass on vLLM's shape alone).
template <class Pred>
bool some_chunk(const Case& c, Pred pred) {
  const Plan p = make_plan(c);
  return std::any_of(p.chunks.begin(), p.chunks.end(), [&](const Chunk& ch) { return pred(chunk_movement(p, ch)); });
}

// ATOM: ag_row_indices is vLLM's reorg row for row (per-request local windows, rank-major).
TEST(EngineMovements, AtomWindowsAndReorgMapBitIdentical) {
  expect_identical(check_line(
      "version=atom-current platform=rocm workspace=512 block=16 dcp=4 interleave=4 ctx=700,90,300 q=3,2,4"));
  expect_identical(
      check_line("version=atom-pre2113 platform=rocm workspace=256 block=8 dcp=2 interleave=1 ctx=333,20,51 q=2,2,3"));
}

// SGLang's chunked DCP path: each rank pads every request to (L + m + W - 1) // W rows from local
// row (s - m) // W, the all-gather is transposed (row t*W + r) and sliced at [cu_pad*W + m, +L).
TEST(EngineMovements, SGLangTransposedSliceBitIdentical) {
  const std::string line =
      "version=sglang-current platform=cuda workspace=630 block=16 dcp=4 interleave=1 ctx=1001,250,7 q=2,3,2";
  ASSERT_TRUE(some_chunk(parse_case(line), [](const ChunkMovement& m) {
    return m.layout == GatherLayout::row_interleaved &&
           std::any_of(m.reorg.begin(), m.reorg.end(), [](const CopyRun& k) {
             return k.src % 4 != 0;  // a slice that starts inside a row group: m = s mod W > 0
           });
  }));
  expect_identical(check_line(line));
}

// SGLang's one-shot DCP path: rank r reads every W-th of the concatenated prefix indices from r;
// with W-aligned offsets ([3, 4], W = 2: offsets 0 and 3... request 1 has prefix 4, a multiple of
// W) the read equals the layout's.
TEST(EngineMovements, SGLangOneShotStridedReadBitIdentical) {
  const std::string line = "version=sglang-oneshot-dcp platform=cuda workspace=131072 block=16 dcp=2 ctx=3,4 q=2,2";
  ASSERT_TRUE(some_chunk(parse_case(line), [](const ChunkMovement& m) { return m.gather_per_rank; }));
  expect_identical(check_line(line));
}

// Bug pinned: SGLang G-10 (other-engines.md §2.5), prefixes [3, 1], W = 2: the engine raises on
// the row counts (asserts=on). Run anyway (asserts=off): rank 0's every-W-th read yields request
// 0's positions 0, 2 and nothing of request 1 (offset 3 is odd), so its send block of request 1 is
// never written; rank 1's yields request 0's position 1 and request 1's local row 0, which the
// layout (get_dcp_lens(1, 2, 1) = 0) has no room for. The check names it: request 1 never attends
// its key 0 and attends one stale row in its place; request 0 is whole.
TEST(EngineMovements, SGLangOneShotUnalignedPrefixNamesTheKeys) {
  const std::string line = "version=sglang-oneshot-dcp platform=cuda workspace=131072 block=16 dcp=2 ctx=3,1 q=2,2";
  EXPECT_TRUE(check_line(line).assert_fired);  // the engine's shape mismatch
  const CheckResult r = check_line(line, false, false);
  EXPECT_GT(r.exact.differing, 0) << r.one_line();
  const RequestRouting* r0 = routing_of(r, 0);
  const RequestRouting* r1 = routing_of(r, 1);
  ASSERT_TRUE(r0 && r1) << r.one_line();
  EXPECT_TRUE(r0->exact()) << r.one_line();
  EXPECT_EQ(r1->missing, (Ranges{{0, 1}})) << r.one_line();
  EXPECT_EQ(r1->stale_rows, 1) << r.one_line();
  EXPECT_EQ(r.exit_code(), 1);
}

// TokenSpeed's compact plan: rank r sends count[r][i] rows from its first owned position, P rows
// per rank rank-major (zeros past its count), the reconstruction keeps rank r's rows W apart.
TEST(EngineMovements, TokenSpeedReconstructionBitIdentical) {
  const std::string line =
      "version=tokenspeed-compact-fixed platform=cuda workspace=1000 block=16 dcp=4 ctx=1500,77,333 q=2,2,3";
  ASSERT_TRUE(some_chunk(parse_case(line), [](const ChunkMovement& m) {
    return m.gather_per_rank &&
           std::any_of(m.reorg.begin(), m.reorg.end(), [](const CopyRun& k) { return k.dst_stride == 4; });
  }));
  expect_identical(check_line(line));
  expect_identical(
      check_line("version=tokenspeed-pr1162 platform=cuda workspace=1000 block=16 dcp=3 ctx=1500,77,333 q=2,2,3"));
}

// Bug pinned: TokenSpeed T-B1 (other-engines.md §3.3): capacity 32768, prefixes [20000, 100,
// 100], W = 4: chunk 1 of request 0 (s = 10922) reads keys 10920 and 10921 (already in chunk 0)
// in place of 19996 and 19997; the check names them, and the data path agrees with the index
// simulation (cross_check) on every row.
TEST(EngineMovements, TokenSpeedTruncatingModuloNamesTheKeys) {
  const CheckResult r = check_line(
      "version=tokenspeed-compact platform=cuda workspace=32768 block=64 dcp=4 ctx=20000,100,100 q=16,16,16", true);
  EXPECT_GT(r.exact.differing, 0) << r.one_line();
  const RequestRouting* r0 = routing_of(r, 0);
  ASSERT_TRUE(r0) << r.one_line();
  EXPECT_EQ(r0->twice, (Ranges{{10920, 10922}})) << r.one_line();
  EXPECT_EQ(r0->missing, (Ranges{{19996, 19998}})) << r.one_line();
  EXPECT_EQ(r0->stale_rows + r0->foreign_context + r0->new_token_rows, 0) << r.one_line();
  EXPECT_EQ(r.exit_code(), 1);
}

TEST(EngineMovements, LocalAttentionWithCrossRankMergeBitIdentical) {
  const Case c =
      parse_case("version=v6-current platform=rocm workspace=96 block=8 dcp=4 interleave=2 ctx=200,37,0,90 q=3,2,2,2");
  CheckOptions o;
  o.movement = &test_movements::local_attention;
  const CheckResult r = run_check(c, o);
  expect_identical(r);
  EXPECT_TRUE(r.vllm.prod().within_bound) << r.one_line();
  EXPECT_EQ(r.vllm.prod().nan, 0) << r.one_line();
  o.movement = &test_movements::local_attention_padded;
  const CheckResult bad = run_check(c, o);
  EXPECT_GT(bad.exact.differing, 0) << bad.one_line();
  EXPECT_TRUE(std::any_of(bad.exact.routing.begin(), bad.exact.routing.end(), [](const RequestRouting& rt) {
    return rt.n_twice > 0 || rt.new_token_rows > 0 || rt.stale_rows > 0;
  })) << bad.one_line();
}

// The clipping every consumer executes (movement.h): a keep run with stride 3 reaching past the
// workspace keeps the rows that land inside.
TEST(EngineMovements, KeepRunClipsToBothBuffers) {
  ChunkMovement m;
  m.total_rows = 10;
  m.gathered_rows = 8;
  const CopyRun k = clip_keep(m, {.src = 5, .dst = 1, .len = 6, .dst_stride = 3});
  EXPECT_EQ(k.src, 5);
  EXPECT_EQ(k.dst, 1);
  EXPECT_EQ(k.len, 3);  // rows 5, 6, 7 of 8 -> 1, 4, 7
  const CopyRun n = clip_keep(m, {.src = -2, .dst = -4, .len = 5, .dst_stride = 2});
  EXPECT_EQ(n.src, 0);  // k = 2: src 0, dst 0
  EXPECT_EQ(n.dst, 0);
  EXPECT_EQ(n.len, 3);
  m.local_rows = 4;
  EXPECT_EQ(clip_gather(m, {.dst = 3, .len = 5}).len, 1);
  EXPECT_EQ(clip_gather(m, {.dst = 6, .len = 5}).len, 0);
}

// The engines' own merges (reference/planner/merge_kernels.h, docs/numerics.md "Engines' own
// merges"). Bug pinned: on platform=rocm these families took vLLM's Triton merge, and a request
// without context (in every chunk of their plans, with no rows) merged two empty partials into NaN.
// Each engine's real behaviour, read from its code: ATOM's copy of the Triton merge maps both empty
// to (0, -inf) (ROCm/ATOM@22da013e, #1236); SGLang's chunk loop starts from the causal extend
// attention (forward_mha.py@00cc79fa, merge_state.py@1f739321 -> Triton merge_state@37ab963c), so
// two empty states never meet; TensorRT-LLM skips a row without keys by merge op 0 and copies the
// suffix (op 2). No NaN, and the request's output is its causal suffix's (within the bound).
TEST(EngineMerges, ContextFreeRequestOnRocmGetsTheEnginesOwnMerge) {
  struct Expect {
    const char* line;
    const char* kernel;
  };
  for (const Expect& e : {
           Expect{"version=atom-current platform=rocm workspace=256 block=16 dcp=2 interleave=1 ctx=700,0 q=3,2",
                  "atom-triton@22da013e"},
           Expect{"version=sglang-current platform=rocm workspace=630 block=16 dcp=1 ctx=1001,0 q=2,3",
                  "sglang-triton@37ab963c"},
           Expect{"version=sglang-current platform=rocm workspace=630 block=16 dcp=4 ctx=1001,0,250 q=2,3,2",
                  "sglang-triton@37ab963c"},
           Expect{"version=trtllm-current platform=rocm workspace=256 block=16 ctx=700,0 q=3,2", "trtllm-merge-op"},
       }) {
    const Case c = parse_case(e.line);
    const MergeKernelChoice k = kernel_for(c.version, MergeFlavour::triton);
    EXPECT_FALSE(k.fallback) << e.line;
    EXPECT_EQ(k.kernel->id, e.kernel) << e.line;
    const Plan p = make_plan(c);
    bool empty_span = false;  // the context-free request is in some chunk with no rows
    for (const Chunk& ch : p.chunks)
      for (const ChunkEntry& en : ch.entries) empty_span |= en.request == 1 && en.len == 0;
    EXPECT_TRUE(empty_span) << e.line;
    const CheckResult r = check_line(e.line, true);
    EXPECT_EQ(r.vllm.production, MergeFlavour::triton) << e.line;
    EXPECT_EQ(r.vllm.flavours[0].nan, 0) << e.line << ": " << r.one_line();
    EXPECT_TRUE(r.vllm.prod().within_bound) << e.line << ": " << r.one_line();
    EXPECT_TRUE(r.exact.identical()) << e.line << ": " << r.one_line();
  }
}

// TokenSpeed has no merge record: its ROCm MLA backend is a skeleton (NotImplementedError,
// lightseekorg/tokenspeed@60529e3c backends/tokenspeed_mla_rocm.py) and its CUDA merge was not
// read, so it falls back to the platform's flavour, vLLM's Triton kernel, and says so.
TEST(EngineMerges, TokenSpeedFallsBackAndSaysSo) {
  EXPECT_TRUE(kernel_for(Version::tokenspeed_compact_fixed, MergeFlavour::triton).fallback);
  EXPECT_EQ(kernel_for(Version::atom_pre2113, MergeFlavour::triton).kernel->both_empty, BothEmpty::zero);
  EXPECT_EQ(kernel_for(Version::sglang_current, MergeFlavour::cuda).kernel->order, MergeOrder::suffix_first);
  EXPECT_EQ(kernel_for(Version::trtllm_pre7477, MergeFlavour::cuda).kernel->empty, EmptyPartial::skipped);
}

// ATOM's both-empty rule on the kernel itself: (0, -inf) where vLLM's Triton kernel gives NaN;
// elsewhere the same bits as vLLM's except a zero weight times a non-finite output (no guard).
TEST(EngineMerges, AtomBothEmptyIsZeroAndMinusInf) {
  const float zero = 0.0f, ninf = -std::numeric_limits<float>::infinity();
  float out = 1, lse = 1;
  const MergeTensors m{&out, &lse, 1, 1, &zero, &ninf, 1, 1, &zero, &ninf, 1, 1, 1, 1, 1};
  merge_attn_states(MergeFlavour::triton, m, {.zero_weight_guard = false, .zero_both_empty = true});
  EXPECT_EQ(out, 0.0f);
  EXPECT_EQ(lse, ninf);
  merge_attn_states(MergeFlavour::triton, m);
  EXPECT_TRUE(std::isnan(out));
  const float p = 0.5f, pl = 1.0f, sv = 0.25f, sl = 0.5f;
  float a = 0, b = 0, la = 0, lb = 0;
  merge_attn_states(MergeFlavour::triton, {&a, &la, 1, 1, &p, &pl, 1, 1, &sv, &sl, 1, 1, 1, 1, 1},
                    {.zero_weight_guard = false, .zero_both_empty = true});
  merge_attn_states(MergeFlavour::triton, {&b, &lb, 1, 1, &p, &pl, 1, 1, &sv, &sl, 1, 1, 1, 1, 1});
  EXPECT_EQ(bits_of(a), bits_of(b));
  EXPECT_EQ(bits_of(la), bits_of(lb));
}

}  // namespace
}  // namespace cp::mla

namespace cp::mla {
namespace {

// G-B2 (other-engines.md §2.5 G-5; sglang #40903 / #35045), the worked case: FlashInfer's ragged
// prefill returns a base-2 LSE and merge_state_v2 weights the states with exp, a natural-log
// merge. Partials with base-2 LSEs 3 and 1 (outputs 1 and 0) weigh 2^3 / (2^3 + 2^1) = 0.8 for
// the prefix; merged as natural logs, e^3 / (e^3 + e^1) = 0.881. The merge kernels here are
// natural-log (merge_attn_states, either flavour), so the one fix is the conversion at the
// producer: lse_e = lse_2 * ln 2. The numerics' own partials are natural-log (end_partial), so
// no case line reaches this: the kernel-level fact is what is pinned.
TEST(EngineMerges, Base2LseIntoNaturalLogMergeIsWrong) {
  const float prefix = 1.0f, suffix = 0.0f;
  auto merged = [&](MergeFlavour f, float lp, float ls) {
    float out = 0, lse = 0;
    const MergeTensors m{&out, &lse, 1, 1, &prefix, &lp, 1, 1, &suffix, &ls, 1, 1, 1, 1, 1};
    merge_attn_states(f, m);
    return out;
  };
  for (MergeFlavour f : {MergeFlavour::triton, MergeFlavour::cuda}) {
    const float wrong = merged(f, 3.0f, 1.0f);  // base 2 fed as natural
    const float right = merged(f, 3.0f * std::numbers::ln2_v<float>, std::numbers::ln2_v<float>);  // converted
    EXPECT_NEAR(wrong, 0.8808f, 1e-4f);
    EXPECT_NEAR(right, 0.8f, 1e-5f);
    EXPECT_GT(wrong - right, 0.08f);  // #35045 measured a max error of 0.105 on real outputs
  }
}

}  // namespace
}  // namespace cp::mla

// The CPU numerics execute every engine's data movement (reference/planner/movement.h; issue 27
// item 4): ATOM's reorg map, SGLang's pad -> all-gather -> transpose -> slice and its one-shot
// every-W-th read, TokenSpeed's compact send and strided reconstruction, local attention with the
// cross-rank LSE merge. A right plan gives the unchunked bits; a wrong one is reported by the keys
// it attends twice or never. Each right-plan test fails when a part of the movement is executed
// wrongly (a layout, a stride, a per-rank gather): the rows would differ from simulate_chunk
// (cross_check throws) or from the unchunked reference (bits differ).
#include <gtest/gtest.h>

#include <algorithm>
#include <numbers>
#include <utility>
#include <vector>

#include "reference/dcp/movement.h"
#include "reference/mla/check.h"
#include "reference/mla/math/merge_attn_states.h"
#include "reference/planner/families/vllm/movement.h"
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

// A local-attention movement over vLLM's shards (PCP x DCP's shape): rank r attends the kept[r]
// rows it owns of each entry, nothing is exchanged, the ranks' partials merge by LSE.
ChunkMovement local_attention(const Plan& p, const Chunk& ch) {
  ChunkMovement m{.exchange = Exchange::local_attend, .dcp = true, .gather_per_rank = true};
  m.total_rows = ch.total_tokens();
  m.local_rows = ch.local_tokens();
  m.gathered_rows = m.local_rows * p.dcp;
  for (std::size_t b = 0; b < ch.entries.size(); ++b)
    for (std::int64_t r = 0; r < p.dcp; ++r)
      m.gather.push_back({.request = ch.entries[b].request,
                          .rank = static_cast<int>(r),
                          .src = ch.entries[b].local_start,
                          .dst = ch.padded_local_cu[b],
                          .len = ch.entries[b].kept[static_cast<std::size_t>(r)]});
  return m;
}

// The same with every rank attending its whole padded rows: past the span they hold the next
// chunk's keys, new-token rows or stale slots.
ChunkMovement local_attention_padded(const Plan& p, const Chunk& ch) {
  ChunkMovement m = local_attention(p, ch);
  for (std::size_t i = 0; i < m.gather.size(); ++i)
    m.gather[i].len = ch.entries[i / static_cast<std::size_t>(p.dcp)].padded_local_len;
  return m;
}

TEST(EngineMovements, LocalAttentionWithCrossRankMergeBitIdentical) {
  const Case c =
      parse_case("version=v6-current platform=rocm workspace=96 block=8 dcp=4 interleave=2 ctx=200,37,0,90 q=3,2,2,2");
  CheckOptions o;
  o.movement = &local_attention;
  const CheckResult r = run_check(c, o);
  expect_identical(r);
  EXPECT_TRUE(r.vllm.prod().within_bound) << r.one_line();
  EXPECT_EQ(r.vllm.prod().nan, 0) << r.one_line();
  o.movement = &local_attention_padded;
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

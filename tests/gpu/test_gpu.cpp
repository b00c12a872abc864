// GPU run-time tests: skip cleanly (and say why) without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/harness/harness.h"
#include "kernels/harness/pipeline.h"
#include "kernels/mla_launch.h"
#include "kernels/runtime.h"
#include "reference/mla/check.h"
#include "reference/mla/math/all.h"
#include "tests/mla/local_attention.h"

namespace {

#define CP_REQUIRE_GPU()                           \
  do {                                             \
    std::string why;                               \
    if (!cp::gpu::probe(why)) GTEST_SKIP() << why; \
  } while (0)

TEST(GpuRuntime, BufferRoundTripAndPoison) {
  CP_REQUIRE_GPU();
  std::vector<int> h{1, 2, 3, 4, 5};
  cp::gpu::DeviceBuffer<int> d(h);
  EXPECT_EQ(d.get(), h);
  d.poison();
  for (int v : d.get()) EXPECT_EQ(v, -1);
}

// Every output element GPU vs CPU (exact reference + chunked, vLLM out + lse of both
// flavours), raw bits, on a few random v6-current cases (DCP, interleave among them).
TEST(GpuCheck, RandomCasesEveryElementBitIdentical) {
  CP_REQUIRE_GPU();
  for (std::uint64_t i = 0; i < 8; ++i) {
    const cp::Case c =
        cp::mla::random_case(cp::Version::v6_current, i % 2 ? cp::Platform::rocm : cp::Platform::cuda, 3, i);
    const auto r = cp::gpu::check_one(c, true);
    EXPECT_TRUE(r.agree) << r.line << "\n  case: " << cp::print_case(c);
  }
}

// Every engine family's movement on the GPU (issue 27 item 4): ATOM's reorg map, SGLang's
// transposed all-gather and its one-shot every-W-th read, TokenSpeed's strided reconstruction,
// random cases of each, GPU vs CPU bit for bit; and two wrong plans (TokenSpeed T-B1, SGLang G-10
// run with asserts=off), whose wrong rows the GPU must produce exactly as the CPU does.
TEST(GpuCheck, EveryFamilysMovementBitIdenticalToTheCpu) {
  CP_REQUIRE_GPU();
  for (cp::Version v : {cp::Version::atom_current, cp::Version::sglang_current, cp::Version::sglang_oneshot_dcp,
                        cp::Version::tokenspeed_compact_fixed, cp::Version::tokenspeed_compact})
    for (std::uint64_t i = 0; i < 6; ++i) {
      const cp::Case c = cp::mla::random_case(v, cp::Platform::cuda, 6, i);
      const auto r = cp::gpu::check_one(c, true);
      EXPECT_TRUE(r.agree) << r.line << "\n  case: " << cp::print_case(c);
    }
  cp::Case sg =
      cp::parse_case("version=sglang-oneshot-dcp platform=cuda workspace=131072 block=16 dcp=2 ctx=3,1 q=2,2");
  sg.asserts = false;
  for (const cp::Case& c :
       {sg, cp::parse_case("version=tokenspeed-compact platform=cuda workspace=32768 block=64 dcp=4 ctx=20000,100,100 "
                           "q=16,16,16 heads=1 kv_lora_rank=8 rope_dim=4 nope_dim=4 v_dim=4")}) {
    const auto r = cp::gpu::check_one(c, true);
    EXPECT_TRUE(r.agree) << r.line << "\n  case: " << cp::print_case(c);
  }
}

// Local attention (Exchange::local_attend, issue 25 item 5): per rank a partial over its own
// rows, an entry without rows (0, -inf), the ranks' partials merged by LSE in rank order, DCP
// emulated on one GPU; the hand-built movement the CPU test runs (no family emits it on main),
// right and padded (wrong keys: the GPU must produce the CPU's wrong bits), on a fixed case with a
// context-free request and on random v6-current DCP cases.
TEST(GpuCheck, LocalAttentionBitIdenticalToTheCpu) {
  CP_REQUIRE_GPU();
  std::vector<cp::Case> cases{cp::parse_case(
      "version=v6-current platform=rocm workspace=96 block=8 dcp=4 interleave=2 ctx=200,37,0,90 q=3,2,2,2")};
  for (std::uint64_t i = 0; cases.size() < 8 && i < 64; ++i) {
    const cp::Case c = cp::mla::random_case(cp::Version::v6_current, cp::Platform::cuda, 7, i);
    if (c.dcp > 1) cases.push_back(c);
  }
  for (const cp::Case& c : cases)
    for (auto mv : {&cp::test_movements::local_attention, &cp::test_movements::local_attention_padded}) {
      const auto r = cp::gpu::check_one(c, true, 0, false, mv);
      EXPECT_TRUE(r.agree) << r.line << "\n  case: " << cp::print_case(c);
    }
}

// PCP plans (issue 25 item 5): every PCP rank's v6 plan over its rows on the GPU, each rank's
// outputs GPU == CPU bit for bit, and the CPU's comparison with the global requests' reference.
TEST(GpuCheck, PcpRowsEveryRankBitIdenticalToTheCpu) {
  CP_REQUIRE_GPU();
  for (cp::Version v : {cp::Version::pcp_a, cp::Version::pcp_b, cp::Version::pcp_c})
    for (std::uint64_t i = 0; i < 6; ++i) {
      const cp::Case c = cp::mla::random_case(v, i % 2 ? cp::Platform::rocm : cp::Platform::cuda, 8, i);
      const auto r = cp::gpu::check_one(c, true);
      EXPECT_TRUE(r.agree) << r.line << "\n  case: " << cp::print_case(c);
    }
}

// PCP context reuse (#57668, issue 25 item 5): each rank's merged rows on the GPU — the shared
// chunk for both token groups, the tail (its start not block-aligned) for b's, b's causal part with
// a's keys (the bottom-right mask, reference/mla/math/causal.h) — GPU == CPU on every bit, on random
// reuse cases of the three managers, vLLM's unaligned tail, and the reversed pair's hazard (the GPU
// must produce the CPU's wrong bits).
TEST(GpuCheck, PcpReuseMergedRowsBitIdenticalToTheCpu) {
  CP_REQUIRE_GPU();
  std::vector<cp::Case> cases{
      cp::parse_case("version=pcp-c platform=cuda workspace=64 block=16 pcp=2 ctx=70 q=32 ctx_reuse=on"),
      cp::parse_case("version=pcp-b platform=cuda workspace=128 block=16 pcp=2 ctx=0 q=64 ctx_reuse=on")};
  for (cp::Version v : {cp::Version::pcp_a, cp::Version::pcp_b, cp::Version::pcp_c})
    for (std::uint64_t i = 0; i < 8; ++i)
      cases.push_back(cp::mla::random_reuse_case(v, i % 2 ? cp::Platform::rocm : cp::Platform::cuda, 1, i));
  for (const cp::Case& c : cases) {
    const auto r = cp::gpu::check_one(c, true);
    EXPECT_TRUE(r.agree) << r.line << "\n  case: " << cp::print_case(c);
  }
}

// The local-shard family (pcp-local-shard, issue 25 item 5): mla_pcp.py's order on the GPU — each
// DCP rank (emulated on one GPU) attends its own rows per chunk and folds its chunk partials,
// then one LSE combine across the ranks — GPU == CPU bit for bit on random cases of both
// platforms, replicated rows and a PCP manager's rank-local rows (pcp_rows=pcp-b), and on CB-2's
// case (one rank without context).
TEST(GpuCheck, LocalShardFamilyBitIdenticalToTheCpu) {
  CP_REQUIRE_GPU();
  std::vector<cp::Case> cases;
  for (std::uint64_t i = 0; i < 16; ++i) {
    cp::Case c =
        cp::mla::random_case(cp::Version::pcp_local_shard, i % 2 ? cp::Platform::rocm : cp::Platform::cuda, 10, i);
    cases.push_back(c);
    c.pcp_rows = cp::Version::pcp_b;
    try {
      cp::validate_case(c);
      cases.push_back(c);
    } catch (const cp::CaseError&) {  // pcp-b's own rules on the drawn keys
    }
  }
  cases.push_back(
      cp::parse_case("version=pcp-local-shard platform=cuda workspace=1024 block=16 dcp=2 interleave=1 pcp=2 "
                     "pcp_rows=pcp-b ctx=0 q=2"));
  int ran = 0;
  for (const cp::Case& c : cases) {
    const auto r = cp::gpu::check_one(c, true);
    EXPECT_TRUE(r.agree) << r.line << "\n  case: " << cp::print_case(c);
    if (r.line.find("assert fired") == std::string::npos) ++ran;
  }
  EXPECT_GE(ran, 12);
}

// CB-1 at small shapes (tests/mla/test_local_shard_numerics.cpp): rank 1 has no row of request
// 1, so its chunk 0 and chunk 1 partials are both (0, -inf) and ROCm's Triton merge makes NaN,
// which the cross-rank combine carries into request 1's tokens. The GPU shows the CPU's NaN
// pattern: NaN in exactly the CPU's elements (Triton out and lse, some), none on the CUDA
// kernel, every other element's bits the CPU's.
TEST(GpuCheck, LocalShardCB1NaNPatternIsTheCpus) {
  CP_REQUIRE_GPU();
  const cp::Case c =
      cp::parse_case("version=pcp-local-shard platform=rocm workspace=512 block=16 dcp=2 pcp=2 ctx=700,1 q=4,4");
  cp::mla::CheckOptions co;
  co.keep_outputs = true;
  const cp::mla::CheckResult cpu = cp::mla::run_check(c, co);
  ASSERT_FALSE(cpu.assert_fired) << cpu.assert_text;
  const cp::mla::Inputs in = cp::mla::make_inputs(c);
  const cp::gpu::PipelineResult gpu = cp::gpu::run_pipeline(c, cpu.plan, in, {});
  std::int64_t nan[2] = {0, 0};
  for (int f = 0; f < 2; ++f)
    for (const auto* pair : {&gpu.vllm[f], &gpu.vllm_lse[f]}) {
      const std::vector<float>& g = *pair;
      const std::vector<float>& h = pair == &gpu.vllm[f] ? cpu.vllm_out[f] : cpu.vllm_lse[f];
      ASSERT_EQ(g.size(), h.size());
      for (std::size_t i = 0; i < g.size(); ++i) {
        EXPECT_EQ(cp::mla::is_nan(g[i]), cp::mla::is_nan(h[i])) << "flavour " << f << " element " << i;
        EXPECT_EQ(cp::mla::bits_of(g[i]), cp::mla::bits_of(h[i])) << "flavour " << f << " element " << i;
        nan[f] += cp::mla::is_nan(g[i]) ? 1 : 0;
      }
    }
  EXPECT_GT(nan[0], 0);  // triton: request 1's tokens
  EXPECT_EQ(nan[1], 0);  // cuda: the prefix copy
  const auto r = cp::gpu::check_one(c, true);
  EXPECT_TRUE(r.agree) << r.line;
}

// The engines' own merges on the GPU (ATOM's both-empty (0, -inf), SGLang's loop from the suffix,
// TensorRT-LLM's op-code skip), a context-free request on rocm each: GPU == CPU bit for bit.
TEST(GpuCheck, EnginesOwnMergesBitIdenticalToTheCpu) {
  CP_REQUIRE_GPU();
  for (const char* line : {
           "version=atom-current platform=rocm workspace=256 block=16 dcp=2 interleave=1 ctx=700,0 q=3,2",
           "version=sglang-current platform=rocm workspace=630 block=16 dcp=4 ctx=1001,0,250 q=2,3,2",
           "version=trtllm-current platform=rocm workspace=256 block=16 ctx=700,0 q=3,2",
       }) {
    const cp::Case c = cp::parse_case(line);
    const auto r = cp::gpu::check_one(c, true);
    EXPECT_TRUE(r.agree) << r.line << "\n  case: " << line;
  }
}

// --mode fast (docs/gpu.md "Fast mode"): the matrix-unit up-projection keeps chunked ==
// unchunked bit for bit on the GPU and stays within the stated bound of the CPU; skipped where
// the build or GPU has no bf16 matrix units (the reason is printed).
TEST(GpuCheck, FastModeChunkedEqualsUnchunkedAndWithinBound) {
  CP_REQUIRE_GPU();
  std::string why;
  if (!cp::gpu::fast_mode_supported(why)) GTEST_SKIP() << why;
  for (std::uint64_t i = 0; i < 8; ++i) {
    const cp::Case c =
        cp::mla::random_case(cp::Version::v6_current, i % 2 ? cp::Platform::rocm : cp::Platform::cuda, 4, i);
    const auto r = cp::gpu::check_one(c, true, 0, true);
    EXPECT_TRUE(r.agree) << r.line << "\n  case: " << cp::print_case(c);
  }
}

// export's GPU reference (every head, cross-checked on every head here) has exactly the tensors
// of the CPU's full run: exact out + lse, chunked out, vLLM-style out + lse, every chunk partial.
TEST(GpuExport, ReferenceTensorsAreTheCpuTensors) {
  CP_REQUIRE_GPU();
  for (std::uint64_t i = 0; i < 4; ++i) {
    const cp::Case c = cp::mla::random_case(cp::Version::v6_current, cp::Platform::cuda, 5, i);
    const cp::gpu::ExportReference g = cp::gpu::export_reference(c, 1, 1 << 20);
    ASSERT_TRUE(g.agree) << g.line << "\n  case: " << cp::print_case(c);
    if (g.result.assert_fired) continue;
    cp::mla::CheckOptions o;
    o.keep_outputs = true;
    const cp::mla::CheckResult cpu = cp::mla::run_check(c, o);
    auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
      return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](float x, float y) {
               return cp::mla::bits_of(x) == cp::mla::bits_of(y);
             });
    };
    EXPECT_TRUE(same(g.result.reference_out, cpu.reference_out));
    EXPECT_TRUE(same(g.result.reference_lse, cpu.reference_lse));
    EXPECT_TRUE(same(g.result.chunked_out, cpu.chunked_out));
    for (int f = 0; f < 2; ++f) {
      EXPECT_TRUE(same(g.result.vllm_out[f], cpu.vllm_out[f]));
      EXPECT_TRUE(same(g.result.vllm_lse[f], cpu.vllm_lse[f]));
    }
    ASSERT_EQ(g.result.vllm_partials.size(), cpu.vllm_partials.size());
    for (std::size_t k = 0; k < cpu.vllm_partials.size(); ++k) {
      EXPECT_TRUE(same(g.result.vllm_partials[k].out, cpu.vllm_partials[k].out));
      EXPECT_TRUE(same(g.result.vllm_partials[k].lse, cpu.vllm_partials[k].lse));
    }
    EXPECT_EQ(g.result.exact.differing, cpu.exact.differing);
  }
}

}  // namespace

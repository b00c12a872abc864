// Issue 24: the case line's shorthand (repeats, case-insensitive enum values), "did you mean",
// and the deployment tables of `chunkproof audit` (reference/caseio/deployment.h).
#include <gtest/gtest.h>

#include "reference/caseio/case.h"
#include "reference/caseio/deployment.h"
#include "reference/caseio/suggest.h"

namespace cp {
namespace {

const char* kMi300x = "platform=rocm workspace=65536 block=64 dcp=8 interleave=1";

TEST(CaseShorthand, RepeatsSpellOutInThePrintedForm) {
  const Case c = parse_case(std::string("version=v1-dcp ") + kMi300x + " ctx=30000*3 q=16*2,16");
  EXPECT_EQ(c.ctx, (std::vector<std::int64_t>{30000, 30000, 30000}));
  EXPECT_EQ(c.q, (std::vector<std::int64_t>{16, 16, 16}));
  EXPECT_EQ(
      print_case(c),
      "version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,30000,30000 q=16,16,16");
  EXPECT_EQ(parse_case(std::string("version=v6-current ") + kMi300x + " ctx=1,30000*9,2 q=4*11").ctx.size(), 11u);
}

TEST(CaseShorthand, BadRepeatsNameTheKey) {
  for (const char* list : {"ctx=5*0 q=4", "ctx=5*x q=4", "ctx=5* q=4", "ctx=5*5000 q=4*5000", "ctx=5 q=4*-1"}) {
    try {
      parse_case(std::string("version=v6-current workspace=64 block=16 ") + list);
      ADD_FAILURE() << list << " parsed";
    } catch (const CaseError& e) {
      EXPECT_TRUE(e.key == "ctx" || e.key == "q") << list << ": " << e.what();
    }
  }
}

TEST(CaseShorthand, EnumValuesAreCaseInsensitive) {
  const Case c = parse_case(
      "version=V6-Current platform=ROCm builder=Sparse asserts=OFF dims=DeepSeek-V3 "
      "workspace=64 block=16 ctx=5 q=4");
  EXPECT_EQ(c.version, Version::v6_current);
  EXPECT_EQ(c.platform, Platform::rocm);
  EXPECT_EQ(c.builder, Builder::sparse);
  EXPECT_FALSE(c.asserts);
  EXPECT_EQ(c.dims.preset, "deepseek-v3");
  EXPECT_EQ(print_case(c).substr(0, 46), "version=v6-current platform=rocm builder=spars");
}

TEST(Suggest, NearestWordOrNothing) {
  EXPECT_EQ(edit_distance("plna", "plan"), 1u);  // a swap of neighbours is one edit
  EXPECT_EQ(edit_distance("ROCm", "rocm"), 0u);
  EXPECT_EQ(nearest("blok", {"block", "dcp", "ctx"}), "block");
  EXPECT_EQ(nearest("v6-curent", {"v5-packed", "v6-current"}), "v6-current");
  EXPECT_EQ(nearest("colour", {"block", "dcp", "ctx", "q"}), "");
  EXPECT_EQ(did_you_mean("rcom", {"cuda", "rocm"}), " (did you mean 'rocm'?)");
  EXPECT_EQ(did_you_mean("zzz", {"cuda", "rocm"}), "");
}

TEST(Suggest, CaseErrorsSuggest) {
  try {
    parse_case("version=v6-current workspace=64 blok=16 ctx=5 q=4");
    ADD_FAILURE();
  } catch (const CaseError& e) {
    EXPECT_EQ(e.key, "blok");
    EXPECT_NE(std::string(e.what()).find("did you mean 'block'"), std::string::npos) << e.what();
  }
}

TEST(Deployment, TheSeedDeploymentPins) {
  DeploymentInput in;
  in.serve =
      "vllm serve deepseek-ai/DeepSeek-V3 --decode-context-parallel-size 8 --block-size=64 "
      "--max-num-seqs 256 --max-model-len 160k --trust-remote-code --tensor-parallel-size 8";
  in.backend = "triton_mla";
  in.platform = "MI300X";
  in.vllm = "v1-dcp";
  in.workspace = 65536;
  const Deployment d = parse_deployment(in);
  EXPECT_EQ(d.pinned(), "version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1");
  EXPECT_EQ(d.max_model_len, 160000);
  EXPECT_EQ(d.max_num_seqs, 256);
  EXPECT_EQ(d.tensor_parallel, 8);
  EXPECT_EQ(d.backend, "TRITON_MLA");
  ASSERT_FALSE(d.ignored.empty());
  EXPECT_EQ(d.ignored.front(), "deepseek-ai/DeepSeek-V3");
}

TEST(Deployment, SizedFromTheEngineWithoutAWorkspace) {
  DeploymentInput in;
  in.serve =
      "--decode-context-parallel-size 4 --block-size 64 --max-num-seqs 128 --max-model-len 32768 "
      "--cp-kv-cache-interleave-size 16";
  in.backend = "FLASHMLA";
  in.vllm = "903ecb17";
  const Deployment d = parse_deployment(in);
  EXPECT_EQ(d.pinned(),
            "version=v6-current platform=cuda max_model_len=32768 max_num_seqs=128 block=64 dcp=4 interleave=16");
}

TEST(Deployment, ReleaseTableInReleaseOrder) {
  const auto order = release_order();
  ASSERT_FALSE(order.empty());
  for (std::size_t i = 1; i < order.size(); ++i) EXPECT_LT(order[i - 1], order[i]);
  EXPECT_EQ(resolve_vllm("#46114"), Version::v3_pr46114);
  EXPECT_EQ(resolve_vllm("pr47327"), Version::v4_pr47327);
  EXPECT_EQ(resolve_vllm("00a817a"), Version::v1_dcp);
  EXPECT_EQ(resolve_vllm("main"), Version::v6_current);
  EXPECT_EQ(resolve_vllm("00a8"), std::nullopt);  // too short to be a commit
  EXPECT_EQ(resolve_vllm("v0.11.0"), std::nullopt);
}

TEST(Deployment, BadInputNamesTheFlag) {
  auto error_of = [](DeploymentInput in) -> std::string {
    try {
      parse_deployment(in);
    } catch (const DeploymentError& e) {
      return e.what();
    }
    return "";
  };
  DeploymentInput ok;
  ok.serve = "--decode-context-parallel-size 8 --block-size 64";
  ok.backend = "ROCM_AITER_MLA";
  ok.vllm = "main";
  ok.workspace = 65536;
  EXPECT_EQ(error_of(ok), "");
  DeploymentInput in = ok;
  in.serve = "--block-size";
  EXPECT_NE(error_of(in).find("--block-size needs a value"), std::string::npos);
  in = ok;
  in.backend = "ROCM_AITER";
  EXPECT_NE(error_of(in).find("did you mean 'ROCM_AITER_MLA'"), std::string::npos) << error_of(in);
  in = ok;
  in.platform = "H100";
  EXPECT_NE(error_of(in).find("runs on rocm"), std::string::npos);
  in = ok;
  in.vllm = "v0.11.0";
  EXPECT_NE(error_of(in).find("--vllm: unknown release or commit"), std::string::npos);
  in = ok;
  in.serve += " --prefill-context-parallel-size 2";
  EXPECT_NE(error_of(in).find("--prefill-context-parallel-size"), std::string::npos);
  in = ok;
  in.workspace.reset();
  EXPECT_NE(error_of(in).find("--max-model-len: missing"), std::string::npos);
  in = ok;
  in.keys = "ctx=5";
  EXPECT_NE(error_of(in).find("the batch is what audit searches"), std::string::npos);
}

}  // namespace
}  // namespace cp

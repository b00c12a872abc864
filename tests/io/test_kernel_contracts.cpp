// Kernel contracts (reference/io/kernel_contracts.h) and the merge kernels by version
// (reference/planner/merge_kernels.h), issue 28.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "reference/io/kernel_contracts.h"
#include "reference/planner/merge_kernels.h"

namespace cp::io {
namespace {

TEST(MergeKernels, EveryVersionEntryNamesARowAndKnownKernels) {
  for (const auto& row : version_merge_kernels()) {
    EXPECT_TRUE(parse_version(row.version)) << row.version << " is no version row";
    EXPECT_NE(find_merge_kernel(row.triton), nullptr) << row.triton;
    EXPECT_NE(find_merge_kernel(row.cuda), nullptr) << row.cuda;
  }
}

TEST(MergeKernels, TheVersionsShipWithTheirTimesKernels) {
  EXPECT_EQ(kernel_for(Version::v0_early, MergeFlavour::triton).kernel->id, "triton@ef17b1cc");
  EXPECT_EQ(kernel_for(Version::v2_interleave, MergeFlavour::triton).kernel->id, "triton@cfc4079e");
  EXPECT_EQ(kernel_for(Version::v6_current, MergeFlavour::triton).kernel->id, "triton@01ac819c");
  EXPECT_EQ(kernel_for(Version::v1_dcp, MergeFlavour::cuda).kernel->id, "cuda@pre28181");
  EXPECT_EQ(kernel_for(Version::v1_dcp, MergeFlavour::cuda).kernel->both_empty, BothEmpty::nan);
  EXPECT_EQ(kernel_for(Version::v6_current, MergeFlavour::cuda).kernel->both_empty, BothEmpty::copy_prefix);
  // TokenSpeed has no entry (its ROCm MLA backend is a skeleton, its CUDA merge not read): the flavour's current.
  const auto other = kernel_for(Version::tokenspeed_compact, MergeFlavour::triton);
  EXPECT_TRUE(other.fallback);
  EXPECT_EQ(other.kernel->id, "triton@01ac819c");
}

TEST(KernelContracts, OneCatalogueNumberedInOrder) {
  std::set<std::string_view> ids;
  int n = 0;
  for (const auto& k : kernel_contracts()) {
    EXPECT_EQ(k.id, "K-" + std::to_string(++n));
    EXPECT_TRUE(ids.insert(k.id).second);
    EXPECT_FALSE(k.statement.empty());
  }
  EXPECT_EQ(n, 11);
}

// Old planner, two chunks; request 1 (ctx 0) has a zero-length span in both: its running context
// merges two empty partials (K-8). Prefill tokens: request 0 tokens 0-1, request 1 token 2.
nlohmann::json two_chunk_manifest() {
  return nlohmann::json::parse(R"({
    "prefills": [0, 1], "prefill_tokens": 3, "prefill_tokens_with_context": null,
    "requests": [{"request": 0, "ctx": 40, "q": 2, "token0": 0}, {"request": 1, "ctx": 0, "q": 1, "token0": 2}],
    "geometry": {"dcp": 1, "block": 16, "merge_kernel": {"id": "triton@cfc4079e", "both_empty": "nan"}},
    "chunks": [
      {"index": 0, "is_continuation": false, "q_cu": [0, 2, 3],
       "entries": [{"request": 0, "start": 0, "len": 32, "kept": [32]}, {"request": 1, "start": 0, "len": 0, "kept": [0]}]},
      {"index": 1, "is_continuation": false, "q_cu": [0, 2, 3],
       "entries": [{"request": 0, "start": 32, "len": 8, "kept": [8]}, {"request": 1, "start": 32, "len": 0, "kept": [0]}]}]
  })");
}

ContractResult judge(const std::string& id, const std::vector<float>& out) {
  const auto m = two_chunk_manifest();
  RunResult r;
  r.info = {{"mode", "chunked"}, {"merge_kernel", {{"id", "triton@cfc4079e"}}}};
  const SafetensorsFile partials;
  const std::vector<float> want(3 * 1 * 2, 0.5f), lse(3, 1.0f);
  for (const auto& c : judge_contracts({m, r, partials, out, lse, want, lse, 1, 2, kKernelBound}))
    if (c.id == id) return c;
  return {};
}

TEST(KernelContracts, BothEmptyMergeNaNIsAViolationNamingTheKernel) {
  auto out = std::vector<float>(6, 0.5f);
  EXPECT_EQ(judge("K-8", out).verdict, ContractVerdict::holds);
  out[4] = std::numeric_limits<float>::quiet_NaN();  // request 1's token
  const auto c = judge("K-8", out);
  EXPECT_EQ(c.verdict, ContractVerdict::violated);
  EXPECT_NE(c.detail.find("triton@cfc4079e"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("NaN"), std::string::npos) << c.detail;
}

TEST(KernelContracts, ShapesTheExportDoesNotHaveAreNotExercised) {
  const auto out = std::vector<float>(6, 0.5f);
  EXPECT_EQ(judge("K-5", out).verdict, ContractVerdict::not_exercised);  // dcp=1
  EXPECT_EQ(judge("K-6", out).verdict, ContractVerdict::not_exercised);  // no continuation
  EXPECT_EQ(judge("K-4", out).verdict, ContractVerdict::not_exercised);  // no stride facts
}

}  // namespace
}  // namespace cp::io

// GPU run-time tests: skip cleanly (and say why) without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/harness/harness.h"
#include "reference/mla/check.h"
#include "kernels/runtime.h"

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

}  // namespace

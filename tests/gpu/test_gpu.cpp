// GPU run-time tests: skip cleanly (and say why) without a GPU.
#include <gtest/gtest.h>

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

}  // namespace

// The GPU backend's wiring into the CLI: installs `check/bench --device gpu` (the hooks of
// cli.h) and the demo stage "gpu". Without a GPU backend (CHUNKPROOF_GPU=OFF) the stage says
// so and the hooks stay empty, which `check --device gpu` reports as exit 2.
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/demo.h"

#if defined(CHUNKPROOF_HAVE_GPU)
#include "kernels/harness/harness.h"
#endif

namespace cp::cli {
namespace {

#if defined(CHUNKPROOF_HAVE_GPU)
[[maybe_unused]] const bool installed = [] {
  gpu_hooks().check = gpu::check_main;
  gpu_hooks().bench = gpu::bench_main;
  return true;
}();

std::vector<StageRow> run(const DemoOptions& o) { return gpu::demo_rows(o); }
#else
std::vector<StageRow> run(const DemoOptions&) {
  StageRow r;
  r.item = "GPU bit-for-bit (chunked == unchunked == CPU)";
  r.expected = "bit-identical";
  r.got = "skipped: built without a GPU backend (configure with -DCHUNKPROOF_GPU=CUDA or HIP)";
  r.skipped = true;
  return {r};
}
#endif

const RegisterDemoStage reg{50, "gpu", run};

}  // namespace
}  // namespace cp::cli

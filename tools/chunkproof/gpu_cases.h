// The host side of `check --device gpu` on one GPU (issue 24: Ctrl-C/SIGTERM keep the results):
// the cases in order, each through `one` (the GPU pipeline and its comparison with the CPU,
// kernels/harness/harness.h check_one), the tally and the text or JSON report. Under an
// InterruptGuard: the interrupt is polled before every case, and inside a case the CPU
// reference polls it between its sub-batches (mla::CheckOptions::stop in check_one, which then
// throws mla::CheckStopped); either way the cases so far are reported, "interrupted (SIGINT)
// after K of N cases", exit 3 (1 when a case already disagreed). Plain C++ with no GPU type:
// stage_gpu.cpp passes the GPU, tests/gpu/test_gpu_cases.cpp a stand-in.
#pragma once

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>

#include "tools/chunkproof/cli.h"

namespace cp::cli {

struct GpuCaseOutcome {
  bool agree = true;  // GPU and CPU agree on every element's bits and on the verdict
  std::string line;   // what was compared and the first disagreement ("assert ...", "... chunked == unchunked ...")
};
struct GpuDevice {
  std::string name, arch, backend;
};
using GpuCaseRunner = std::function<GpuCaseOutcome(const Case& c, std::size_t index)>;

int run_gpu_cases(const GpuCheckOptions& o, const GpuDevice& dev, const GpuCaseRunner& one, std::ostream& out);

}  // namespace cp::cli

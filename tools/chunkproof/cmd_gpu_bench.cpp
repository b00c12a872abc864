// chunkproof gpu-bench: the GPU benchmark under its own name (same as `bench --device gpu`),
// so scripts/h200-run.sh works whether or not the CPU `bench` command is built.
#include <iostream>

#include "tools/chunkproof/cli.h"

namespace cp::cli {
namespace {

int run(Args args) {
  if (!gpu_hooks().bench) {
    std::cerr << "chunkproof gpu-bench: built without a GPU backend (configure with -DCHUNKPROOF_GPU=CUDA or HIP)\n";
    return kExitUsage;
  }
  return gpu_hooks().bench(args);
}

const RegisterCommand reg{"gpu-bench", "GPU benchmark: exact vs vLLM-style path per stage, against measured ceilings",
                          run};

}  // namespace
}  // namespace cp::cli

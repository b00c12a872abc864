// Entry layer of the GPU backend: what the CLI and the demo call. Plain C++.
#pragma once

#include <string>
#include <vector>

#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/demo.h"

namespace cp::gpu {

int check_main(cli::Args args);  // chunkproof check --device gpu ...
int bench_main(cli::Args args);  // chunkproof bench --device gpu ...
// The demo's "gpu" stage: rows, or one skipped row saying why.
std::vector<cli::StageRow> demo_rows(const cli::DemoOptions& o);

}  // namespace cp::gpu

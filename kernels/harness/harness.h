// Entry layer of the GPU backend: what the CLI (tools/chunkproof/stage_gpu.cpp) calls. Plain C++.
#pragma once

#include <string>

#include "reference/caseio/case.h"

namespace cp::gpu {

struct CheckOutcome {
  bool agree = true;  // GPU and CPU agree on every element's bits and on the verdict
  std::string line;   // what was compared and the first disagreement
};
// Runs the GPU pipeline on one case and compares, bit for bit, (a) GPU chunked vs unchunked,
// (b) GPU exact outputs vs the CPU reference, (c) GPU vLLM-style outputs and lse vs the CPU;
// with `poison_twice` a second run without poisoning must give the same bits.
// sample_heads > 0: the CPU reference covers that many heads (sampled verification); the GPU
// still compares chunked vs unchunked on every element.
CheckOutcome check_one(const Case& c, bool poison_twice, int sample_heads = 0);

}  // namespace cp::gpu

// Entry layer of the GPU backend: what the CLI (tools/chunkproof/stage_gpu.cpp) calls. Plain C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/caseio/case.h"
#include "reference/mla/check.h"

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
// fast (--mode fast, docs/gpu.md): the up-projections on the bf16 matrix units; (a) stays bit
// for bit, the CPU's verdict must match in kind (differing or not, overflow), and (b)/(c) are
// compared within the stated bound (fast_bound_ok) instead of bit for bit.
// movement: the data movement to execute in place of the plan's family's, on the CPU and the GPU
// alike (CheckOptions::movement: the tests' hand-built local attention).
using MovementFn = ChunkMovement (*)(const Plan& plan, const Chunk& chunk);
CheckOutcome check_one(const Case& c, bool poison_twice, int sample_heads = 0, bool fast = false,
                       MovementFn movement = nullptr);

// The reference outputs of an export (docs/export.md) from the GPU exact path, every head, cross-
// checked like `check --device gpu --sample-heads K`: the CPU runs both of its paths for K heads
// (sample_heads(N, K, seed); K >= N: every head) and every element of those heads of every
// exported tensor (exact out + lse, exact chunked out, vLLM-style out + lse of both flavours,
// every chunk's partial out + lse) must have the CPU's bits, and the CPU's verdict (differing
// count over those heads, overflow) the GPU's. `result` then holds the GPU's tensors for every
// head in CheckResult's layout (keep_outputs), with the verdict over every element; the routing
// and the vLLM-vs-float64 figures are the CPU's (those heads). An assert that fires on the
// CPU plan: result.assert_fired, nothing ran on the GPU.
struct ExportReference {
  bool agree = true;  // every cross-checked element and the verdict agree
  std::string line;   // what was compared, or the first disagreement
  mla::CheckResult result;
  std::vector<int> checked_heads;
  std::int64_t compared = 0;  // elements compared bit for bit GPU vs CPU
  double cpu_seconds = 0, gpu_seconds = 0;
};
ExportReference export_reference(const Case& c, int threads, int sample_heads);

}  // namespace cp::gpu

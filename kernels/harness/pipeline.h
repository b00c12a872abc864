// The GPU pipeline for one case (entry layer): the same stages as reference/mla/check.cpp,
// driven by the same plan (make_plan) — never a recomputed one.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reference/mla/inputs.h"
#include "reference/planner/plan.h"

namespace cp::gpu {

struct PipelineOptions {
  bool chunked = true;  // false: the unchunked reference (every request's positions 0..ctx-1)
  bool exact = true;    // the exact path (two passes, global max, exact accumulation)
  bool vllm = true;     // the vLLM-style path (per-chunk softmax + lse, merge_attn_states)
  bool time_stages = false;
  bool poison = true;  // poison every stage output before its kernel
};

struct PipelineResult {
  std::vector<float> exact;                // [prefill token][N][Vd]
  bool overflow = false;                   // an exact accumulator was flagged
  std::vector<float> vllm[2];              // [triton, cuda], same layout
  std::vector<float> vllm_lse[2];          // lse of the final merge, [prefill token][N]
  std::map<std::string, double> stage_ms;  // with time_stages
  double total_ms = 0;
};

PipelineResult run_pipeline(const Case& c, const Plan& plan, const mla::Inputs& in, const PipelineOptions& o);

}  // namespace cp::gpu

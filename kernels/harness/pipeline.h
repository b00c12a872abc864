// The GPU pipeline for one case (entry layer): the stage list of reference/mla/stages.h, as
// reference/mla/check.cpp walks it, driven by the same plan (make_plan) — never a recomputed one.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reference/mla/check.h"
#include "reference/mla/inputs.h"
#include "reference/mla/stages.h"
#include "reference/planner/plan.h"

namespace cp::gpu {

class Communicator;  // kernels/collective.h

// The steps a mismatch is localized by: the stages of reference/mla/stages.h (digests of
// gather, collective, reorg, up_project, scores, accumulate and merge). The collective of this
// harness is the all-gather, and is named so.
using Step = mla::Stage;
const char* step_name(Step s);

// A digest (FNV-1a 64 of the raw bytes) of one step's output for one chunk of one pass
// (pass 1: K + scores, pass 2: V + accumulation + merge; pass 0: the vLLM-only path). chunk -1:
// the causal suffix of a request. rank: the rank whose local gather it is; -1 for the steps
// after the all-gather (identical on every rank).
struct StageDigest {
  int pass = 0, chunk = 0;
  Step step = Step::gather;
  int rank = -1;
  std::uint64_t hash = 0;
};

// One all-gather of a multi-rank run (with time_stages): bytes each rank contributes, device
// time of the collective (negative when the measurement includes a host gap, see collective.h).
struct AllGatherSample {
  int pass = 0, chunk = 0;
  std::int64_t bytes_per_rank = 0;
  double ms = 0;
};

struct PipelineOptions {
  bool chunked = true;  // false: the unchunked reference (every request's positions 0..ctx-1)
  bool exact = true;    // the exact path (two passes, global max, exact accumulation)
  bool vllm = true;     // the vLLM-style path (per-chunk softmax + lse, merge_attn_states)
  bool time_stages = false;
  bool poison = true;    // poison every stage output before its kernel
  bool digests = false;  // record StageDigest per chunk and step (costs a download each)
  // --mode fast (issue 15 part 4): the up-projections on the bf16 matrix units (fp32
  // accumulation, fixed tiling: chunked == unchunked on one device; not the CPU's bits).
  bool fast = false;
  // For export (docs/export.md): keep every plan entry's vLLM-style partial (chunked runs with
  // vllm), and the exact path's natural-log LSE per [token][head], computed on the host from the
  // downloaded row max and exact denominator with the CPU reference's formula.
  bool keep_partials = false;
  bool exact_lse = false;
  // Multi-rank: this process is DCP rank comm->rank() of comm->ranks() (== the case's dcp), on
  // its own GPU. It holds only its own shard of the paged cache, gathers its local rows and
  // all-gathers them through `comm`; reorg, up-projection, attention and merge run on every
  // rank. The causal suffix (the new tokens' own KV) is on every rank, as the forward pass
  // computed it. Chunked runs only. Null: the single-GPU emulation (every rank's shard in a
  // separate buffer of one GPU, the all-gather as device copies).
  Communicator* comm = nullptr;
  // The data movement of each chunk, in place of the plan's family's (as CheckOptions::movement:
  // the tests' hand-built local attention; the local-shard family emits its own, Plan::local_attention).
  ChunkMovement (*movement)(const Plan& plan, const Chunk& chunk) = nullptr;
};

struct PipelineResult {
  std::vector<float> exact;                         // [prefill token][N][Vd]
  bool overflow = false;                            // an exact accumulator was flagged
  std::vector<float> vllm[2];                       // [triton, cuda], same layout
  std::vector<float> vllm_lse[2];                   // lse of the final merge, [prefill token][N]
  std::vector<float> exact_lse;                     // with exact_lse: [prefill token][N]
  std::vector<mla::CheckResult::Partial> partials;  // with keep_partials, in plan order
  std::map<std::string, double> stage_ms;           // with time_stages
  std::vector<StageDigest> digests;                 // with digests
  std::vector<AllGatherSample> all_gathers;         // multi-rank with time_stages
  double total_ms = 0;
};

PipelineResult run_pipeline(const Case& c, const Plan& plan, const mla::Inputs& in, const PipelineOptions& o);

}  // namespace cp::gpu

// Multi-GPU DCP (issue 14): `chunkproof check|bench --device gpu --ranks N` as library functions.
//
// Process model: the calling process is the coordinator and never touches the GPU runtime; it
// forks one rank process per GPU (rank r on device r). Rank 0 creates the NCCL/RCCL unique id and
// sends it to the coordinator over its pipe, which forwards it to the other ranks over theirs;
// every rank then joins the communicator (ncclCommInitRankConfig, non-blocking). Each rank holds
// only its own shard of the paged latent cache on its GPU, gathers its local rows with the case's
// gather kernel, all-gathers them through the library, then runs reorg, up-projection, attention
// and merge (kernels/harness/pipeline.cpp with PipelineOptions::comm), and sends its outputs and a
// digest of every step back over its pipe. The coordinator computes the CPU reference meanwhile
// and compares, bit for bit: every rank vs the single-GPU emulation (run by one of the ranks on
// its own GPU, case by case in turn), and the emulation vs the CPU.
//
// Failures: every collective wait is bounded (timeout_s) and aborts the communicator
// (ncclCommAbort); a rank that dies (its pipe closes) or stays silent while the others reported
// ends the run: the coordinator names the rank, stops the others (SIGTERM: they abort their
// communicators), kills what is left after a grace period, and returns kExitInconclusive.
// NVLink multicast stays off: NCCL_NVLS_ENABLE=0 is set before any rank starts.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "reference/caseio/case.h"

namespace cp::gpu::multi {

// "This machine cannot run it" (more ranks than GPUs, no collective library in this build).
// The CLI introduces the same code as a named constant; the two must stay equal.
inline constexpr int kExitCannotRunHere = 4;
// The rest of the exit-code contract (README; the CLI uses the same numbers): kernels/ does not
// include tools/.
inline constexpr int kExitAgree = 0;
inline constexpr int kExitDisagree = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitRankFailed = 3;

struct RankOptions {
  int ranks = 2;
  double timeout_s = 60;  // per collective wait, and for a rank to report a case the others reported
  bool quiet = false;     // check: print only disagreements and the summary
};

// check: every case whose dcp equals `ranks` runs on `ranks` GPUs and is compared bit for bit
// with the single-GPU emulation and the CPU (other cases are listed as not applicable).
// Exit: 0 all agree, 1 a disagreement, 3 a rank died or hung (run stopped), 4 cannot run here.
int check_ranks(const std::vector<Case>& cases, const RankOptions& o, std::ostream& out, std::ostream& err);

// bench: the all-gather bandwidth of the library (large messages, and the peer copy between GPU 0
// and GPU 1) measured first, then per-stage medians of the pipeline on every rank and the time
// and bytes of every chunk's all-gather against that bandwidth.
int bench_ranks(const Case& c, int reps, int warmup, const RankOptions& o, std::ostream& out, std::ostream& err);

// A random v6-current case (mla::random_case) with dcp == ranks: draws indices from `index`
// on until one has the requested dcp (deterministic).
Case random_case_for_ranks(std::uint64_t seed, std::uint64_t index, int ranks);

}  // namespace cp::gpu::multi

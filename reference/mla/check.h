// chunkproof's CPU numerics check (issue 4): the unchunked reference against the chunked
// pipeline driven by a plan, bit for bit in the chunk-invariant arithmetic (DESIGN §6), and
// the vLLM-style LSE-merge path against a float64 oracle.
//
//   CheckResult r = run_check(c, opts);   // the plan (make_plan), then the paths
//   r.exit_code()                         // 0 identical / within bound, 1 finding, 3 inconclusive
//
// Exact path: every output element (prefill token, head, v dim) is
//   out = normalize(sum_j w_j * v_j, sum_j w_j),  w_j = exp_cp(s_j - max_j s_j),
//   s_j = scale * (q . [k_nope_j, k_pe_j]) (dot_concat), k_nope/v = bf16(kv_c_j . W_UK/W_UV)
// with both sums in ExactAcc, over the keys the pipeline actually attends: for the reference,
// the request's context positions 0..ctx-1 and its new tokens 0..t (causal); for the chunked
// pipeline, the workspace rows of every chunk entry (attended_spans: [cu[b], cu[b+1]), or each
// rank's own rows under local attention), produced by executing the family's data movement
// (reference/dcp/movement.h: per-rank gather runs from the paged shards, the all-gather rank-major
// or transposed, the keep runs with their stride; or the dcp=1 gather kernel of the version)
// plus the same causal suffix.
// vLLM path: per chunk an fp32 softmax -> (out, lse), chunk partials merged per request in
// plan order (old planner: running merge over every chunk; packed: copy, then merge the
// continuation), then merge(context, causal suffix) honouring prefill_tokens_with_context;
// both merge flavours. Oracle: the same scores and V in float64 over the TRUE keys.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reference/caseio/case.h"
#include "reference/mla/inputs.h"
#include "reference/mla/math/merge_attn_states.h"
#include "reference/planner/movement.h"
#include "reference/planner/plan.h"

namespace cp::mla {

struct CheckOptions {
  bool exact = true;
  bool vllm = true;
  int threads = 1;            // splits heads across std::threads
  bool keep_outputs = false;  // fill CheckResult::chunked_out / reference_out (exact) and vllm_out / vllm_lse
  // Sampled verification (issue 15): run both paths for `heads` only (sorted, distinct), or,
  // when `heads` is empty and sample_heads > 0, for sample_heads(N, sample_heads, case seed).
  // Every element of those heads (all tokens, all v dims) is computed and compared exactly as
  // in a full run, with the same bits; outputs are then [token][chosen head][v dim].
  int sample_heads = 0;
  std::vector<int> heads;
  // The plan to follow (an external planner's, docs/live.md), in place of make_plan(c); it must
  // cover every context position exactly once (I-3), which the caller checks first.
  const Plan* plan = nullptr;
  // The data movement to execute for each chunk, in place of the plan's family's
  // (FamilyInfo::movement): a movement in the vocabulary no family emits yet (local attention)
  // or a deliberately wrong one (the tests: the check must name what it attends twice or never).
  ChunkMovement (*movement)(const Plan& plan, const Chunk& chunk) = nullptr;
  // Long cases (DeepSeek-V3 at 64K takes minutes on a CPU): `progress` is called from the
  // pipeline's thread after every sub-batch of rows; `stop` is polled as often, by the pipeline
  // and the reference beside it, and a true ends run_check with CheckStopped (the CLI's Ctrl-C).
  std::function<void(const struct CheckProgress&)> progress;
  std::function<bool()> stop;
};

// Where a run is: rows through the chunked pipeline's passes (every pass counts its rows), and
// which chunk of which pass.
struct CheckProgress {
  std::int64_t rows_done = 0, rows_total = 0;
  std::size_t chunk = 0, chunks = 0;
  std::size_t pass = 0, passes = 0;
  int heads = 0, all_heads = 0;  // heads computed (sampled or all) of the case's heads
};

// run_check ended early because CheckOptions::stop returned true.
struct CheckStopped : std::runtime_error {
  CheckStopped() : std::runtime_error("the check was stopped before it finished") {}
};

// Where one output element lives.
struct ElementAt {
  std::int64_t token = -1;  // prefill token index (0 = first token of the first prefill)
  int request = -1;         // case request index
  std::int64_t token_in_request = -1;
  int head = -1;
  int dim = -1;
};

// What one request attended to, over all chunks, per the DCP simulation.
struct RequestRouting {
  int request = -1;
  std::int64_t ctx = 0;
  std::int64_t rows = 0;                                       // context rows attended in total
  std::vector<std::pair<std::int64_t, std::int64_t>> missing;  // [lo, hi) never received
  std::vector<std::pair<std::int64_t, std::int64_t>> twice;    // [lo, hi) received >= 2 times
  std::int64_t n_missing = 0, n_twice = 0;
  std::int64_t foreign_context = 0;  // context rows of another request
  std::int64_t new_token_rows = 0;   // new-token KV (own or another request's)
  std::int64_t stale_rows = 0;       // stale slots / stale workspace rows
  std::vector<int> from_requests;    // requests whose context rows it received
  bool exact() const {
    return n_missing == 0 && n_twice == 0 && foreign_context == 0 && new_token_rows == 0 && stale_rows == 0;
  }
};

struct ExactResult {
  bool ran = false;
  std::int64_t elements = 0;
  std::int64_t differing = 0;
  std::optional<ElementAt> first;
  std::uint32_t ref_bits = 0, got_bits = 0;  // at `first`
  bool overflow = false;                     // an accumulator flagged: inconclusive
  std::vector<RequestRouting> routing;       // every prefill with context (or misrouted)
  bool identical() const { return ran && differing == 0 && !overflow; }
};

struct FlavourResult {
  MergeFlavour flavour = MergeFlavour::triton;
  double max_abs = 0, max_rel = 0;  // fp32 output vs float64 oracle (rel: to the row's max |oracle|)
  int max_ulp = 0;                  // bf16(output) vs bf16(oracle)
  std::int64_t nan = 0, inf = 0;    // non-finite output elements
  std::optional<ElementAt> first_nan, worst;
  bool within_bound = true;
};

struct VllmResult {
  bool ran = false;
  MergeFlavour production = MergeFlavour::triton;  // what the case's platform dispatches to
  FlavourResult flavours[2];                       // [triton, cuda]
  double bound_abs = 0;                            // stated bound (see docs/numerics.md)
  double bound_rel = 0;
  const FlavourResult& prod() const { return flavours[production == MergeFlavour::triton ? 0 : 1]; }
  bool ok() const { return !ran || prod().within_bound; }
};

struct CheckResult {
  Case c;                     // the case as run
  Plan plan;                  // its plan (invariant verdicts: invariants/, combined by the CLI)
  bool assert_fired = false;  // the version's assert (asserts=on) or no plan could be built
  std::string assert_text;
  ExactResult exact;
  VllmResult vllm;
  std::int64_t prefill_tokens = 0, context_rows = 0, attended_rows = 0;
  std::vector<int> heads;  // the heads the outputs hold, in order (every head unless sampled)
  int all_heads = 0;       // N of the case
  double seconds = 0;
  std::vector<float> reference_out, chunked_out;  // exact outputs [token][head][v dim], keep_outputs only
  // keep_outputs only: the vLLM-style outputs [token][head][v dim] of both merge flavours
  // ([triton, cuda]) and the lse of their final merge, [token][head].
  std::vector<float> vllm_out[2], vllm_lse[2];
  // keep_outputs only: the exact reference's natural-log LSE per [token][head], from its exact
  // denominator: float(double(row max) + log(to_double(den))); and the vLLM path's partial
  // (out, lse) of every plan entry, in plan order (what one attention call over the chunk's
  // workspace rows of that request returns), for export (docs/export.md).
  std::vector<float> reference_lse;
  struct Partial {
    int chunk = 0, entry = 0, request = 0, qn = 0;
    std::int64_t token0 = 0;  // prefill token index of the request's first new token
    std::vector<float> out;   // [qn][N][Vd]
    std::vector<float> lse;   // [N][qn]
  };
  std::vector<Partial> vllm_partials;
  int exit_code() const;
  std::string one_line() const;  // "bits identical (...)", "bits differ: ...", "assert fired: ..."
};

CheckResult run_check(const Case& c, const CheckOptions& opts);

// PCP (the pcp family, vllm-pcp-and-sparse.md §1.7): what PCP rank `rank` runs — its rows as the
// requests v6 plans (ctx = start, q = len: a row's context includes other ranks' new tokens of
// the step), its plan (make_plan with pcp_rank = rank; chunk requests are row indices), and
// inputs whose request i is row i: the global request's block table (the same cache rows) and
// its query tokens start - N .. start - N + len - 1. run_check runs every rank this way and
// compares every row's outputs with the unchunked reference of the whole global request; the
// GPU check runs the same views.
//
// Under ctx_reuse (#57668) a rank's plan batch holds merged rows: batch row i is the manager's
// pair (lead_of[i] = row a, row_of[i] = row b), its query tokens a's then b's (one causal
// sequence), and its plan chunks are the shared and tail chunks; the numerics run it as two token
// groups (token_groups.h). In bf16 the merged row's causal part reads a's fresh K/V, the same
// values the fallback reads back from the paged cache; an fp8 cache (kv_cache_dtype) is not
// modelled.
struct PcpRankView {
  int rank = 0;
  Case rows;                    // the row batch, the case's geometry
  Plan plan;                    // the rank's plan over its rows (v6, or ctx_reuse's merged plan)
  Inputs in;                    // request i = batch row i
  std::vector<PcpRow> row_of;   // batch row i: global request, start, len (a merged row: row b)
  std::vector<PcpRow> lead_of;  // batch row i's leading row a (len 0: not merged)
};
std::vector<PcpRankView> pcp_rank_views(const Case& c, const Inputs& global);

// "[lo, hi), [lo, hi), ... (k ranges)": the first max_items ranges.
std::string ranges_text(const std::vector<std::pair<std::int64_t, std::int64_t>>& r, std::size_t max_items = 4);

// The stated bound of the vLLM-style path against the float64 oracle (docs/numerics.md): per
// element |out - oracle| <= kVllmBoundAbs and <= kVllmBoundRel * max_d |oracle[t, h, d]|, and no
// NaN/inf. bf16 ULP distances are reported, not bounded (near 0 a bf16 ULP is arbitrarily small).
inline constexpr double kVllmBoundAbs = 0x1p-16;
inline constexpr double kVllmBoundRel = 0x1p-12;

// Random small cases for `check --random` and the tests: dcp 1..8 with interleave > 1 among
// them, 1..5 requests (q <= 1 leading ones are decodes), contexts that span several chunks.
// For packed versions the workspace is a multiple of lcm(B, I*W) as their sizing guarantees.
Case random_case(Version v, Platform p, std::uint64_t seed, std::uint64_t index);
// random_case of a pcp version with dcp=1 and ctx_reuse=on (the conditions of #57668's plan).
Case random_reuse_case(Version v, Platform p, std::uint64_t seed, std::uint64_t index);

}  // namespace cp::mla

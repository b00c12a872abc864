// The plan as a value between planning and running (FlashInfer's plan/run split): every
// consumer — invariants, the DCP simulation, the numerics, the CLI — reads chunk
// boundaries from here and never recomputes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference/caseio/batch.h"
#include "reference/caseio/case.h"
#include "reference/planner/versions.h"

namespace cp {

// What stops a step in the version's own Python code: an assert that fires, or a crash (an
// exception that is not an assert, e.g. v0-early's missing page_size). Recorded, never printed
// by the planner: the CLI decides how to report it.
enum class FailureKind { assert_fired, crash };
struct AssertFailure {
  std::string stage;   // "init" (builder __init__), "plan" (per-step build), "forward"
  std::string which;   // the assert as vLLM spells it
  std::string detail;  // the values that made it fail
  int chunk = -1;
  FailureKind kind = FailureKind::assert_fired;
};

struct ChunkEntry {
  int request = 0;         // index into the case's request list
  std::int64_t start = 0;  // global span [start, start + len) of the request's context
  std::int64_t len = 0;
  // Under DCP (W > 1): the local gather every rank performs, and reorg's kept rows.
  std::int64_t local_start = 0;
  std::int64_t padded_local_len = 0;
  std::vector<std::int64_t> kept;  // rows kept from each rank by the version's reorg formula
};

// One chunk, as vLLM's ContextChunk: a contiguous request slice [request_start, request_end)
// (case request indices) whose query tokens are [token_start, token_end) of the prefill tokens
// (prefill_query_start_loc), and one entry per request of the slice in workspace order. The
// packed planner never puts a context-free request in a slice (it closes the chunk); the old
// planner's slice is every prefill, context-free ones with zero-length entries.
struct Chunk {
  int request_start = 0;
  int request_end = 0;
  std::int64_t token_start = 0;
  std::int64_t token_end = 0;
  std::vector<ChunkEntry> entries;            // workspace order, one per request of the slice
  std::vector<std::int64_t> cu_seq_lens;      // global prefix sums, entries.size() + 1
  std::vector<std::int64_t> padded_local_cu;  // local prefix sums under DCP
  bool is_continuation = false;               // first request resumes its context (packed planner)

  std::int64_t total_tokens() const { return cu_seq_lens.back(); }
  std::int64_t local_tokens() const { return padded_local_cu.empty() ? 0 : padded_local_cu.back(); }
  std::int64_t max_seq_len() const;
  // Which entry workspace row t (global, after reorg) belongs to: vLLM's token_to_seq.
  int token_to_seq(std::int64_t t) const;
};

struct Plan {
  // The geometry the plan was made for, so no consumer re-reads the case to know it.
  Version version = Version::v6_current;
  Platform platform = Platform::cuda;
  Builder builder = Builder::dense;
  std::int64_t block = 1;                     // B
  std::int64_t dcp = 1;                       // W
  std::int64_t interleave = 1;                // I
  std::int64_t virtual_block = 1;             // V = I * W
  MergeFlavour merge = MergeFlavour::triton;  // the kernel the platform dispatches to
  bool is_dcp() const { return dcp > 1; }

  std::int64_t workspace = 0;       // S
  std::int64_t workspace_rows = 0;  // R = S + S/W under DCP
  bool sized_from_engine = false;   // S came from max_model_len/max_num_seqs
  int num_decodes = 0;              // leading requests with q <= 1, not planned
  std::vector<int> prefills;        // case request indices that are prefills
  int num_with_context = 0;         // n
  bool packed = false;
  std::int64_t chunk_width = 0;     // old: M; packed: Mmax
  std::int64_t align = 1;           // old: what M was rounded to; packed: split alignment
  std::int64_t local_chunk = 0;     // old DCP: PL (v1: M / W)
  std::int64_t row_budget = 0;      // packed: S / W (S without DCP)
  std::int64_t logits_budget = 0;   // sparse indexer: E = max_logits_bytes / 4 fp32 logits per chunk
  std::int64_t compress_ratio = 1;  // sparse indexer: rho, n = floor(seq / rho) K rows per request
  std::int64_t profile_rows = 0;    // sparse builder (v6-sparse): the profile run's kv_b_proj reservation
  GatherKind gather = GatherKind::token_major;
  // Every chunk's movement is Exchange::local_attend (the local-shard family's DCP = P path): each
  // rank attends its own rows, so the global<->local span rules (I-4, I-6, I-7, I-10) are not its
  // rules (C-4, vllm-pcp-and-sparse.md §3.4).
  bool local_attention = false;
  bool built = false;                                // false: the planner could not produce chunks (M == 0, ...)
  std::vector<std::vector<std::int64_t>> local_ctx;  // [request][rank], DCP only
  std::vector<Chunk> chunks;
  std::vector<AssertFailure> asserts;  // every assert that fires, in execution order
  // Merge bookkeeping (I-12, I-13).
  std::optional<std::int64_t> prefill_tokens_with_context;
  std::vector<std::pair<std::int64_t, std::int64_t>> empty_token_ranges;  // packed
  std::vector<std::string> notes;
  // PCP (families/pcp): every rank's rows and collectives; the chunks above are rank pcp->rank's.
  std::optional<PcpLayout> pcp;

  const VersionInfo& version_info() const { return info(version); }
  bool crashed() const;  // a FailureKind::crash is recorded
};

// The batch a plan's chunks index: the case's requests, or under PCP the selected rank's rows
// (ctx = start, q = len; under ctx_reuse its merged rows, Batch::lead_*). Every check and report reads this one (a
// view: both must outlive it).
inline Batch pcp_batch(const PcpLayout& L) { return {L.batch_ctx, L.batch_q, L.batch_lead_ctx, L.batch_lead_q}; }
inline Batch batch_of(const Case& c, const Plan& p) { return p.pcp ? pcp_batch(*p.pcp) : Batch(c); }

// Query-token offset of each request in the step (the prefill query_start_loc).
std::vector<std::int64_t> query_start_loc(const Case& c);

// Runs the version's sizing, batch split and planner. Throws CaseError / ArithmeticError on
// input it cannot plan (exit 2); version asserts are recorded in Plan::asserts.
Plan make_plan(const Case& c);
// make_plan into caller-owned storage: `plan` becomes exactly make_plan(c), reusing the vectors
// of whatever plan it held (its chunks, entries and per-rank rows go to a thread-local pool the
// next plan draws from), so a loop over cases allocates nothing once warm (the fuzzers' hot
// path). On an exception `plan` is left valid but unspecified.
void make_plan_into(const Case& c, Plan& plan);

// Plans without text (the fuzzers' hot path): while a PlanTextOffScope lives on this thread,
// make_plan records every assert as usual (stage, condition, chunk, kind, in order) but leaves
// its `detail` (the values, as text) empty and writes no notes; every other field is the same.
// A caller that needs the text plans the case again outside the scope (fuzz/common/judge.cpp
// does, for a new finding).
bool plan_text();
class PlanTextOffScope {
 public:
  PlanTextOffScope();
  ~PlanTextOffScope();
  PlanTextOffScope(const PlanTextOffScope&) = delete;
  PlanTextOffScope& operator=(const PlanTextOffScope&) = delete;

 private:
  bool saved_;
};

// The version's workspace size for an engine config (spec §1), and its init assert if any.
std::int64_t size_workspace(Version v, Platform p, std::int64_t mml, std::int64_t mns, std::int64_t block,
                            std::int64_t dcp, std::int64_t interleave);

// Limits past which a plan is refused as too large to simulate (exit 2, not a finding).
inline constexpr std::int64_t kMaxChunks = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxEntries = std::int64_t{1} << 24;

}  // namespace cp

// The invariant catalogue (DESIGN §5, spec §6): one named check per invariant, each
// returning OK or structured violations that say which chunk/request/rank/row and why.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/caseio/batch.h"
#include "reference/caseio/case.h"
#include "reference/planner/plan.h"

namespace cp {

enum class InvariantId {
  I1_workspace_div_dcp,
  I2_nonempty_chunk_width,
  I3_coverage,
  I4_global_row_budget,
  I5_page_aligned_starts,
  I6_virtual_block_alignment,
  I7_local_row_budget,
  I8_local_length_bookkeeping,
  I9_reorg_exact,
  I10_gather_start_semantics,
  I11_config_validity,
  I12_merge_preconditions,
  I13_context_prefix,
  // The other engines' own rules (other-engines.md §1.5, §2.5, §3.2, §4.4), each a rule of one
  // family (the row's .families): tags A-, G-, T-, R- as the spec numbers them.
  A3_atom_window_coverage,
  A4_atom_map_in_bounds,
  A7_atom_window_budget,
  G4_sglang_zero_kv_rows,
  G7_sglang_rank_counts,
  G10_sglang_strided_premise,
  T1_tokenspeed_counts,
  T3_tokenspeed_first_owned,
  R1_trtllm_packed_loops,
  // vllm-pcp-and-sparse.md: the sparse indexer chunker (E-, §5.4; E-1 is I-4 on its plans), the
  // gathered prefill (D-, §4.5; D-6 is I-7 on its plans) and the sparse builder's sizing (Z-, §5.7).
  E2_indexer_logits_budget,
  E3_indexer_consumer_rows,
  E4_indexer_shared_gather,
  E5_indexer_token_cover,
  E6_indexer_key_ranges,
  D5_gathered_shard_cover,
  D7_gathered_layout,
  Z1_profile_reservation,
  // vllm-pcp-and-sparse.md §1.8: the PCP virtual rows' own rules (P-3, P-10 and P-11 hold by
  // construction of the model).
  P1_pcp_row_coverage,
  P2_pcp_row_shape,
  P4_pcp_decodes_replicated,
  P9_pcp_decodes_first,
  P13_pcp_collective_symmetry,
  // vllm-pcp-and-sparse.md §3.4: the dense PCP x DCP local-shard path's own rules (mla_pcp.py).
  C1_local_replicated_queries,
  C2_local_collective_symmetry,
  C3_local_coverage,
  C4_local_workspace_rows,
  C5_local_empty_rows,
  C6_local_lengths_from_context,
  // §1.5/§1.6: the manager's gathered layout (Plan::pcp->gathered).
  P5_pcp_single_write,
  P6_pcp_restore_bijection,
  P7_pcp_padding,
  P8_pcp_limits,
  // §2.4: PCP context reuse (#57668), the spec's R- tagged CR- (R-1 is TensorRT-LLM's); R-2 is
  // I-3 on the merged batch, R-5 a numerics statement (docs/plan.md).
  CR1_reuse_tail_nonnegative,
  CR2_reuse_rows_preserved,
  CR3_reuse_causal_merge,
  CR4_reuse_cache_ready,
  CR6_reuse_saving,
};
inline constexpr int kNumInvariants = 50;
// The I- rows (the vLLM spec's §6 numbering): parse_invariant's bare numbers name these.
inline constexpr int kNumNumberedInvariants = 13;

// Whose rule an invariant is (DESIGN §9). Universal: a property of every engine's plan value —
// every context position of every request attended exactly once, each rank's rows within its
// budget, an empty span giving (0, -inf) to the merge. Family: a rule of one planner family or
// kernel that the plan must also obey (its asserts, its alignment, its gather's start semantics).
enum class Scope { universal, family };
std::string_view name(Scope s);  // "universal" | "family"

struct InvariantInfo {
  InvariantId id;
  std::string_view tag;   // "I-6"
  std::string_view name;  // "I6_virtual_block_alignment"
  std::string_view summary;
  Scope scope = Scope::universal;
  std::string_view rule;  // universal: the property it checks; family: the family or kernel whose rule it is
  // Meaningful only under DCP (W > 1): without it check() answers n/a ("no DCP (dcp=1)").
  // The one list of DCP-only invariants: every other list derives from this column.
  bool dcp_only = false;
  // The planner families (FamilyInfo::name, comma-separated) whose rule it is; empty: every
  // family. On a plan of another family check() answers n/a, saying whose rule it is.
  std::string_view families;
  // The check compares the chunk spans with the batch's context lengths: n/a on a plan whose
  // family's spans are not context (FamilyInfo::spans_are_context = false).
  bool reads_context = false;
  // The check relates global spans to local rows or budgets the all-gather layout (a global row
  // budget, virtual-block starts, the S/W slice, local gather starts): n/a on a plan whose ranks
  // attend their own rows (Plan::local_attention; C-4 of vllm-pcp-and-sparse.md §3.4).
  bool needs_span_correspondence = false;
};
bool applies_to(const InvariantInfo& row, std::string_view family);
std::span<const InvariantInfo> all_invariants();
const InvariantInfo& info(InvariantId id);
// Accepts "I-6", "I6", "6" (bare numbers: the I- rows), "A-7", or the full name.
bool parse_invariant(std::string_view s, InvariantId& out);

struct Violation {
  int chunk = -1;
  int request = -1;
  int rank = -1;
  std::int64_t row = -1;
  std::string expected;
  std::string got;
  std::string reason;
};

enum class Verdict { ok, violated, not_applicable, not_evaluated };
std::string_view name(Verdict v);

struct InvariantResult {
  InvariantId id{};
  Verdict verdict = Verdict::ok;
  std::vector<Violation> violations;  // the first few (kMaxRecorded)
  std::int64_t total_violations = 0;
  std::string note;  // why not applicable / not evaluated, or context
};
inline constexpr std::size_t kMaxRecorded = 8;

// How the two token-walking checks (I-9 reorg exactness, I-11 slot mapping) decide: token by
// token (the ground truth: the simulated gather -> all-gather -> reorg, every position of two
// virtual pages), or at interval level (closed-form ownership and local lengths, O(chunks x
// requests x W) whatever the context length; the same verdicts, counts and violation records,
// which fuzz_interval_diff holds together). `automatic` walks tokens up to 2^22 simulated rows
// and decides larger plans at interval level, saying so in the result's note. Every other
// check is interval level already and ignores the level.
enum class Level { automatic, token, interval };

// One check, on the plan and the batch it was made for (`plan` = make_plan(c), `batch` = c):
// the plan carries the geometry, the batch the context and query lengths.
InvariantResult check(InvariantId id, const Batch& batch, const Plan& plan, Level level = Level::automatic);

// Verdict-only evaluation (the fuzzers' hot path): while a VerdictOnlyScope lives on this
// thread, every check decides its verdict and counts its violations (total_violations) but
// records no Violation and no note, so no text is built. Verdicts and counts are the same as a
// full evaluation's; re-evaluate outside the scope when the text is wanted.
bool verdict_only();
class VerdictOnlyScope {
 public:
  VerdictOnlyScope();
  ~VerdictOnlyScope();
  VerdictOnlyScope(const VerdictOnlyScope&) = delete;
  VerdictOnlyScope& operator=(const VerdictOnlyScope&) = delete;

 private:
  bool saved_;
};

enum class Outcome { ok, assert_fired, crashed, violation };
std::string_view name(Outcome o);
// The verdict of a plan given whether any invariant is violated: a crash wins (asserts=off does
// not strip it), then an assert (asserts=on), then a violation. The one rule every evaluator uses.
Outcome outcome_of(const Case& c, const Plan& plan, bool any_violation);

struct Evaluation {
  Case c;
  Plan plan;
  std::vector<InvariantResult> results;  // all kNumInvariants, catalogue order
  Outcome outcome = Outcome::ok;
  bool violated(InvariantId id) const { return results[static_cast<std::size_t>(id)].verdict == Verdict::violated; }
  const AssertFailure* first_assert() const { return plan.asserts.empty() ? nullptr : &plan.asserts.front(); }
  // DESIGN §8: 0 holds, 1 finding.
  int exit_code() const { return outcome == Outcome::ok ? 0 : 1; }
};

// make_plan + every check + the outcome: an assert that fires (with asserts=on) wins over
// invariant violations, which win over ok. Throws CaseError/ArithmeticError on bad input.
Evaluation evaluate(const Case& c, Level level = Level::automatic);
// Every check and the outcome on a plan already made (`p` = make_plan(c)); `out` is reused
// (catalogue order), so a loop over cases allocates nothing once warm.
void evaluate_plan(const Case& c, const Plan& p, std::vector<InvariantResult>& out, Outcome& outcome,
                   Level level = Level::automatic);

}  // namespace cp

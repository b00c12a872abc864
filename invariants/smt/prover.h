// chunkproof's prover (DESIGN §3, §5; issue 5): for each planner version, platform and
// invariant, either a proof over a declared domain, a counterexample replayed through the
// executable planner, or an honest UNKNOWN. This header has no Z3 types (STYLE: one SMT
// room); everything that touches z3++.h lives in invariants/smt/*.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "invariants/catalogue.h"
#include "reference/arith/ops.h"
#include "reference/planner/versions.h"

namespace cp::smt {

// The declared domain. Everything not listed is unbounded (any integer the formulas accept).
struct Domain {
  std::int64_t block_max = std::int64_t{1} << 14;       // block B in [1, block_max], any value (11000 too)
  std::int64_t dcp_max = 64;                            // W in [1, dcp_max]
  std::int64_t interleave_max = std::int64_t{1} << 14;  // I in [1, min(B, interleave_max)], I | B
  std::int64_t mml_max = std::int64_t{1} << 21;         // max_model_len in [1, mml_max]
  std::int64_t mns_max = 1024;                          // max_num_seqs in [1, mns_max]
  std::int64_t workspace_max = 0;                       // 0: S sized by the version; else explicit S in [1, this]
  std::int64_t ctx_max = std::int64_t{1} << 21;         // every context length in [0, ctx_max]
  std::int64_t prefills_max = 16;                       // old planner: n prefills with context, 1..this (split)
  // Packed planner: "auto" (default) proves I-1 .. I-4, I-6 .. I-10 by closed lemma chains with
  // symbolic B, W, I (unbounded; I-3 with an explicit workspace, which gives no S >= align, on
  // the split grid; with block, dcp and interleave all pinned every row on the grid's one
  // triple); "symbolic" uses lemma chains everywhere (sliced queries where no chain
  // exists); "split" proves every (B, I, W) of the split grid concretely (every division by a
  // constant: linear arithmetic) -- the cross-check mode.
  std::string packed_mode = "auto";
  // The split grid: these blocks (<= block_max), interleave = divisors of B among
  // 1, 2, 4, ..., 64 and B itself (<= interleave_max), dcp = 1..dcp_max.
  std::vector<std::int64_t> split_blocks{1, 2, 3, 16, 64, 128, 1024, 11000, 16384};
  // Pins (`--pin key=value`, `chunkproof audit`): exact values, not upper bounds; 0 = free. A pin
  // also sets the key's upper bound (and workspace's explicit-S mode, mml/mns the sized mode),
  // the split grid keeps only pinned triples, and the batch (ctx, prefills) stays free.
  std::int64_t block_pin = 0, dcp_pin = 0, interleave_pin = 0, workspace_pin = 0, mml_pin = 0, mns_pin = 0;
  // key=value, keys: block, dcp, interleave, workspace, mml, mns. Throws std::invalid_argument.
  void pin(std::string_view key_eq_value);
  // key=value, keys: block, dcp, interleave, mml, mns, workspace (N or "sized"), ctx, prefills,
  // blocks (comma list for the split grid), packed (auto|split|symbolic).
  // Throws std::invalid_argument naming the key.
  void apply(std::string_view key_eq_value);
  std::string describe() const;
};

enum class Status { proved, counterexample, unknown, not_applicable, not_encoded };
std::string_view name(Status s);

struct ProveOptions {
  std::vector<Version> versions;
  std::vector<Platform> platforms;
  std::vector<InvariantId> invariants;  // empty: every encoded invariant
  Domain domain;
  int jobs = 2;
  double timeout_s = 30;  // per query (wall clock, besides the rlimit)
  // The whole run's deadline (`prove --max-time`): from then on no case starts and running ones
  // are stopped, as after an interrupt (their rows UNKNOWN, cases_not_run counted). None: no limit.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::uint64_t rlimit = 0;  // per query; 0 = derived from timeout_s
  unsigned seed = 1;
  std::string emit_smt2_dir;        // write every query as commented SMT-LIB2
  bool emit_only = false;           // write the queries, solve none (rows UNKNOWN): for `z3 FILE` re-checks
  std::string cache_dir;            // proved queries by content hash; "" = no cache
  std::string save_regression_dir;  // non-empty: fill ProveResult::regression
  std::function<void(const std::string&)> progress;  // one line per finished case
};

struct ProveResult {
  Version version{};
  Platform platform{};
  InvariantId invariant{};
  Status status = Status::unknown;
  double seconds = 0;  // wall time of this row's cases (summed over workers)
  int cases = 0;       // split cases of the domain
  int cases_proved = 0;
  // Cases an interrupt left unfinished (the row is UNKNOWN then, not PROVED).
  int cases_not_run = 0;
  int queries = 0;  // SMT queries (lemmas) run, cache hits included
  int cache_hits = 0;
  bool unbounded = false;           // proved for all integers of the unbounded parameters
  std::string domain;               // the domain the verdict holds on (printed with every result)
  std::string method;               // how it was proved / searched
  std::string case_line;            // COUNTEREXAMPLE: the replayed case
  std::string replay;               // what the executable planner said about the case
  bool encoding_disagrees = false;  // solver model not confirmed by the concrete planner
  std::string detail;               // UNKNOWN: the cases/lemmas that did not finish; n/a: why
  std::vector<std::string> unknown_cases;
  // COUNTEREXAMPLE with save_regression_dir set: the regression file's text and name (the
  // caller writes it, after printing the result).
  std::string regression, regression_file;
};

// Whether the prover encodes the invariant only under DCP (W >= 2): the catalogue's dcp_only
// rows (info(id).dcp_only) and I-9 (see prover.cpp).
bool encoded_only_under_dcp(InvariantId id);
// Whether (version, invariant) has an SMT encoding on domain d (default: any domain); if not,
// why (for the table). The old planner's I-8 and I-9 are encoded only where d pins block, dcp
// and interleave (the concrete entry of encode_entry.cpp).
bool encoded(Version v, InvariantId id, std::string* why = nullptr, const Domain* d = nullptr);
// Whether the invariant applies to the version at all (e.g. I-6 needs DCP).
bool applicable(Version v, InvariantId id, std::string* why = nullptr);

// The rows. A SIGINT/SIGTERM under a cp::proc::InterruptGuard (reference/proc/interrupt.h)
// stops the workers: the rows come back with what was decided, cases_not_run counting the rest.
std::vector<ProveResult> prove(const ProveOptions& opts);
// The split cases prove() would run for `opts` (its progress total; a row with a counterexample
// skips the rest of its cases, so a run may end below it).
int count_cases(const ProveOptions& opts);

// Test hook: from now on the solver terms spell the rounding formulas of reference/arith/ops.h
// as `s` says (equivalent forms; the planner's cp::Int keeps its own), in this process and the
// workers prove() forks. Returns the spelling it replaces. tests/smt/test_prove_rewrite.cpp
// shows the verdicts do not depend on it: no encoder reads back the terms a template built.
Spelling use_spelling(const Spelling& s);

// The z3 instantiation of the templates agrees with the cp::Int instantiation on `samples`
// random concrete inputs (z3 terms built from numerals and evaluated). Returns "" when they
// agree, else a description of the first disagreement.
std::string self_check_arith(std::uint64_t seed, int samples);

// The generic lemma queries with symbolic divisors (floor-division uniqueness, ring identity,
// multiple-of) as {name, "proved"|"unknown"|"refuted"}: the building blocks of the
// unbounded proofs, checked on their own.
std::vector<std::pair<std::string, std::string>> check_lemma_library(double timeout_s);

}  // namespace cp::smt

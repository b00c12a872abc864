// Internal to the prover (invariants/smt/): the pieces `prove` is assembled from, one file each.
//  * query.cpp    what one step's query is: the cone-of-influence slice, the product
//                 abstraction, the solver with its rlimit, the canonical SMT-LIB2 export;
//  * task.cpp     one task (version, platform, invariant, split case): its lemma chain, step by
//                 step (checked steps, solved steps, lcm refinement, the counterexample replay);
//  * workers.cpp  the forked workers (pipes, dynamic scheduling, the watchdog) and the cache;
//  * prover.cpp   the rows of the table: what is encoded, the tasks of a row, the verdicts;
//  * self_check.cpp  the Int-vs-z3 arithmetic check and the generic lemma library.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "invariants/smt/encode.h"
#include "invariants/smt/prover.h"

namespace cp::smt::detail {

// What one task found (travels from a worker to the parent as one line).
struct TaskOutcome {
  Status status = Status::unknown;
  double seconds = 0;
  int queries = 0, cache_hits = 0;
  std::string case_line, replay, detail, saved_to;
  bool disagrees = false;
  bool unbounded = false;  // proved by a lemma chain for every B, W, I (not a split grid case)
  std::string method;      // the encoding's method (notes a bounded step)
};

// ---- query.cpp --------------------------------------------------------------------------------
// Uninterpreted constants of a term (by declaration id).
std::set<unsigned> consts_of(const z3::expr& e);
// The facts a goal depends on (cone of influence; dropping facts only weakens: unsat stays sound).
std::vector<z3::expr> slice(const z3::expr& goal, const Encoding& enc, const Z3Scope& scope,
                            const std::vector<z3::expr>& proved);
// Every product of two or more non-numeral factors replaced by a fresh constant (a weakening).
z3::expr abstract_products(const z3::expr& e, std::map<unsigned, z3::expr>& memo, int& counter);
// How a step is asked: its own (closed, or sliced) query, or the full one (every domain fact,
// definition and earlier step) that a sat answer of the first is re-solved with.
enum class QueryForm { own, full };
z3::solver build_query(z3::context& ctx, const Step& st, const Encoding& enc, const Z3Scope& scope,
                       const std::vector<z3::expr>& proved, QueryForm form, std::uint64_t rlimit, unsigned seed);
// The export in a canonical form (let-names by first appearance, sorted declarations).
std::string canonical_smt2(const std::string& body);
void write_smt2(const std::string& dir, const TaskKey& key, int idx, const Step& st, const Encoding& enc,
                const std::string& domain, const std::string& body, const Domain& dom);

// ---- task.cpp ---------------------------------------------------------------------------------
TaskOutcome run_task(const TaskKey& key, const ProveOptions& opts);

// ---- workers.cpp ------------------------------------------------------------------------------
std::uint64_t fnv1a(const std::string& s);
std::string hex(std::uint64_t v);
// The on-disk cache of proved queries (by content hash); dir "" = no cache.
bool cache_has(const std::string& dir, const std::string& hash);
void cache_store(const std::string& dir, const std::string& hash, const std::string& step_name);
// The per-query watchdog (only inside a worker process): Z3 4.8.12 does not always stop at its
// own limits inside the nonlinear solver; SIGALRM ends the worker and the parent reports UNKNOWN.
void arm_watchdog(double timeout_s);
void disarm_watchdog();
// Runs tasks on `jobs` (>= 1) forked workers: next_task() gives the next task index (-1: none
// left), absorb(task, outcome) takes each result in the parent. obsolete(ti): a running task
// whose result is no longer needed (its row has a counterexample): its worker is stopped and
// replaced, and the task is not absorbed. False: interrupted (reference/proc/interrupt.h);
// the tasks running then and those never handed out are not absorbed.
bool run_tasks(const std::vector<TaskKey>& tasks, const ProveOptions& opts, int jobs,
               const std::function<int()>& next_task, const std::function<void(int, const TaskOutcome&)>& absorb,
               const std::function<bool(int)>& obsolete);

}  // namespace cp::smt::detail

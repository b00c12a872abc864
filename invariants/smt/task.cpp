// One task (version, platform, invariant, split case), run inside a worker process: its
// encoding's lemma chain step by step. Checked steps (lemma instances, congruence rewrites) are
// verified by substitution; closed steps may assume only domain facts, definitions and earlier
// goals; every other step is solved (cache first). A model is replayed through the executable
// planner (catalogue evaluate()) before it is reported.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <stdexcept>

#include "invariants/smt/prover_internal.h"
#include "reference/caseio/case.h"
#include "reference/caseio/regression.h"

namespace cp::smt::detail {
namespace {

// What later steps may assume, and which steps are proved.
struct ChainState {
  std::vector<z3::expr> proved;  // what later steps may assume
  std::set<unsigned> allowed;    // closed steps' hypotheses: domain facts, definitions, earlier goals
  std::vector<bool> step_proved;

  ChainState(const Encoding& enc, const Z3Scope& scope) : step_proved(enc.steps.size(), false) {
    for (const auto& e : enc.domain) allowed.insert(e.id());
    for (const auto& e : scope.defs()) allowed.insert(e.id());
  }
  void accept(std::size_t i, const z3::expr& usable) {
    proved.push_back(usable);
    allowed.insert(usable.id());
    step_proved[i] = true;
  }
};

// The definedness step: every divisor (and lcm argument) is positive wherever the plan is built.
void add_definedness_step(z3::context& ctx, const Z3Scope& scope, Encoding& enc) {
  z3::expr_vector ob(ctx);
  for (const auto& e : scope.obligations()) ob.push_back(e);
  z3::expr all = ob.empty() ? ctx.bool_val(true) : z3::mk_and(ob);
  enc.steps.push_back({"definedness", "every divisor is positive where the plan is built (floor semantics exact)",
                       enc.built ? z3::implies(*enc.built, all) : all, std::nullopt, false});
  enc.steps.back().hyps = enc.definedness_hyps;
}

// A checked (not solved) step: a congruence rewrite (instance_of == -2) or an instance of a
// proved generic lemma (instance_of >= 0). Throws when the step is not what it claims.
void check_checked_step(z3::context& ctx, const Encoding& enc, std::size_t i, const ChainState& chain) {
  const Step& st = enc.steps[i];
  z3::expr_vector from(ctx), to(ctx);
  if (st.instance_of == -2) {  // congruence: F and a == b give F[a := b]
    const bool ok = st.hyps && st.hyps->size() == 2 && st.inst_from.size() == 1 && st.inst_to.size() == 1 &&
                    chain.allowed.count((*st.hyps)[0].id()) && chain.allowed.count((*st.hyps)[1].id()) &&
                    z3::eq((*st.hyps)[1], st.inst_from[0] == st.inst_to[0]);
    from.push_back(st.inst_from.at(0));
    to.push_back(st.inst_to.at(0));
    if (!ok || !z3::eq(z3::expr((*st.hyps)[0]).substitute(from, to), st.goal))
      throw std::logic_error("step '" + st.name + "' is not a congruence rewrite of allowed facts");
    return;
  }
  const auto gi = static_cast<std::size_t>(st.instance_of);
  for (const auto& e : st.inst_from) from.push_back(e);
  for (const auto& e : st.inst_to) to.push_back(e);
  const Step& g = enc.steps.at(gi);
  if (gi >= i || !chain.step_proved[gi] || !g.hyps || !g.hyps->empty() ||
      !z3::eq(z3::expr(g.goal).substitute(from, to), st.goal))
    throw std::logic_error("step '" + st.name + "' is not an instance of a proved generic lemma");
}

// A closed step assumes only what the chain has.
void check_closed_hyps(const Step& st, const ChainState& chain) {
  if (!st.hyps) return;
  for (const auto& h : *st.hyps)
    if (!chain.allowed.count(h.id()))
      throw std::logic_error("closed step '" + st.name +
                             "' assumes something that is not a domain fact, "
                             "a definition or an earlier step: " +
                             h.to_string());
}

// check(), trying the encoding's search hints (replayable sizes) first.
z3::check_result check_with_hints(z3::solver& s, const Encoding& enc, bool& hinted) {
  hinted = false;
  if (enc.search_hints.empty()) return s.check();
  s.push();
  for (const auto& h : enc.search_hints) s.add(h);
  const z3::check_result r = s.check();
  if (r == z3::sat) {
    hinted = true;
    return r;
  }
  s.pop();
  return s.check();
}

// Refines lcm abstractions that the model instantiated with a non-least common multiple.
z3::check_result refine_lcms(z3::context& ctx, const Z3Scope& scope, z3::solver& s, z3::check_result r, bool hinted) {
  for (int round = 0; r == z3::sat && round < 64; ++round) {
    z3::model m = s.get_model();
    bool refined = false;
    for (const auto& L : scope.lcms()) {
      std::int64_t a = 0, b = 0, l = 0;
      if (!m.eval(L.a, true).is_numeral_i64(a) || !m.eval(L.b, true).is_numeral_i64(b) ||
          !m.eval(L.l, true).is_numeral_i64(l) || a <= 0 || b <= 0)
        continue;
      if (l != std::lcm(a, b)) {
        s.add(z3::implies(L.a == ctx.int_val(a) && L.b == ctx.int_val(b), L.l == ctx.int_val(std::lcm(a, b))));
        refined = true;
      }
    }
    if (!refined) break;
    r = s.check();
    if (r != z3::sat && hinted) {  // the hints may have excluded the refined model
      s.pop();
      hinted = false;
      r = s.check();
    }
  }
  return r;
}

struct Solved {
  z3::check_result r = z3::unknown;
  z3::solver s;
  bool used_full = false;  // a sat answer of the own query was re-solved with every fact
};

// Solves one step: its own query; a sat answer is re-solved with the full query (a model of a
// sliced query may break a dropped fact), then lcm abstractions are refined.
Solved solve_step(z3::context& ctx, const Encoding& enc, const Z3Scope& scope, const Step& st, const ChainState& chain,
                  z3::solver own, std::uint64_t rlimit, unsigned seed) {
  Solved out{z3::unknown, own, false};
  bool hinted = false;
  out.r = check_with_hints(out.s, enc, hinted);
  if (out.r == z3::sat) {
    out.used_full = true;
    out.s = build_query(ctx, st, enc, scope, chain.proved, QueryForm::full, rlimit, seed);
    out.r = check_with_hints(out.s, enc, hinted);
  }
  out.r = refine_lcms(ctx, scope, out.s, out.r, hinted);
  return out;
}

std::string replay_summary(const Evaluation& ev, InvariantId id, bool& agrees) {
  std::string s = std::string(name(ev.outcome));
  if (const AssertFailure* a = ev.first_assert()) s += ": assert fired: " + a->which + " (" + a->detail + ")";
  std::string viol;
  for (const auto& r : ev.results)
    if (r.verdict == Verdict::violated) viol += (viol.empty() ? "" : ",") + std::string(info(r.id).tag);
  if (!viol.empty()) s += "; violated " + viol;
  agrees = ev.violated(id) || ev.outcome == Outcome::assert_fired;
  if (!ev.violated(id) && ev.outcome == Outcome::assert_fired)
    s += " (the assert stops the run before " + std::string(info(id).tag) + " can be observed)";
  return s;
}

// The regression file of a replayed counterexample (the parent writes it after printing).
std::string regression_record(const TaskKey& key, const Step& st, const Evaluation& ev, const std::string& line,
                              const Domain& dom) {
  CaseRecord rec;
  rec.header = {{"bug", "found by `chunkproof prove`: " + std::string(info(key.invariant).summary) + " (" +
                            split_label(key.version, key.invariant, key.split, dom) + ", step " + st.name + ")"},
                {"invariant", std::string(info(key.invariant).tag)}};
  rec.expects.push_back({key.version,
                         ev.outcome == Outcome::assert_fired ? ExpectedOutcome::assert_fired
                         : ev.outcome == Outcome::crashed    ? ExpectedOutcome::crashed
                                                             : ExpectedOutcome::violation,
                         {}});
  if (rec.expects.back().outcome == ExpectedOutcome::violation)
    rec.expects.back().invariants.emplace_back(info(key.invariant).tag);
  rec.line = line;
  std::string text = print_case_record(rec);
  std::replace(text.begin(), text.end(), '\n', '\x1f');  // travels on one line
  return text;
}

// A sat answer: a counterexample (replayed through the planner) for a direct step, else the
// lemma chain is broken (UNKNOWN).
void report_model(const TaskKey& key, const Step& st, const Encoding& enc, const z3::model& m, const ProveOptions& opts,
                  TaskOutcome& out) {
  std::string model_text;
  for (const auto& [n, e] : enc.shown) {
    std::int64_t v = 0;
    if (m.eval(e, true).is_numeral_i64(v)) model_text += (model_text.empty() ? "" : " ") + n + "=" + std::to_string(v);
  }
  if (!st.direct || !enc.to_case) {
    out.status = Status::unknown;
    out.detail =
        "step '" + st.name + "' refuted by the solver (lemma does not hold as stated; model " + model_text + ")";
    return;
  }
  out.status = Status::counterexample;
  try {
    Case c = enc.to_case(m);
    validate_case(c);
    out.case_line = print_case(c);
    const Evaluation ev = evaluate(c);
    bool agrees = false;
    out.replay = replay_summary(ev, key.invariant, agrees);
    out.disagrees = !agrees;
    out.detail = "model: " + model_text;
    if (agrees && !opts.save_regression_dir.empty())
      out.saved_to = regression_record(key, st, ev, out.case_line, opts.domain);
  } catch (const std::exception& e) {
    out.disagrees = true;
    out.replay = std::string("replay failed: ") + e.what();
    out.detail = "model: " + model_text;
  }
}

// A witness step: the domain (and every proved step) with the case's condition is satisfiable.
// False (out says why) when it is not: the task's proofs would hold of no case.
bool witness_holds(z3::context& ctx, const TaskKey& key, int idx, const Step& st, const Encoding& enc,
                   const Z3Scope& scope, const ChainState& chain, const ProveOptions& opts, std::uint64_t rlimit,
                   const std::string& domain, TaskOutcome& out) {
  arm_watchdog(opts.timeout_s);
  z3::solver s = build_query(ctx, st, enc, scope, chain.proved, QueryForm::full, rlimit, opts.seed);
  ++out.queries;
  if (!opts.emit_smt2_dir.empty()) write_smt2(opts.emit_smt2_dir, key, idx, st, enc, domain, s.to_smt2(), opts.domain);
  if (opts.emit_only) return true;
  const z3::check_result r = s.check();
  if (r == z3::sat) return true;
  out.status = Status::unknown;
  out.detail = "step '" + st.name + "': " +
               (r == z3::unsat ? std::string("vacuous: no case of the domain has it, the proofs would be about nothing")
                               : "solver unknown (" + s.reason_unknown() + ")");
  return false;
}

}  // namespace

TaskOutcome run_task(const TaskKey& key, const ProveOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();
  TaskOutcome out;
  z3::context ctx;
  Z3Scope scope(ctx, /*allow_lcm_abstraction=*/true);
  Encoding enc;
  try {
    enc = encode(ctx, scope, key, opts.domain);
  } catch (const std::exception& e) {
    out.detail = std::string("encoding error: ") + e.what();
    return out;
  }
  out.unbounded = enc.unbounded;
  out.method = enc.method;
  if (!enc.na.empty()) {
    out.status = Status::not_applicable;
    out.detail = enc.na;
    return out;
  }
  add_definedness_step(ctx, scope, enc);
  const std::string domain = opts.domain.describe();
  const std::uint64_t rlimit = opts.rlimit ? opts.rlimit : static_cast<std::uint64_t>(opts.timeout_s * 4.0e6);
  out.status = Status::proved;
  ChainState chain(enc, scope);
  for (std::size_t i = 0; i < enc.steps.size(); ++i) {
    const Step& st = enc.steps[i];
    if (st.instance_of != -1) {
      check_checked_step(ctx, enc, i, chain);
      chain.accept(i, st.goal);
      continue;
    }
    if (st.witness) {
      if (!witness_holds(ctx, key, static_cast<int>(i), st, enc, scope, chain, opts, rlimit, domain, out)) break;
      continue;
    }
    check_closed_hyps(st, chain);
    arm_watchdog(opts.timeout_s);
    z3::solver own = build_query(ctx, st, enc, scope, chain.proved, QueryForm::own, rlimit, opts.seed);
    const std::string body = own.to_smt2();
    const std::string hash = hex(fnv1a(body));
    ++out.queries;
    if (!opts.emit_smt2_dir.empty())
      write_smt2(opts.emit_smt2_dir, key, static_cast<int>(i), st, enc, domain, body, opts.domain);
    if (opts.emit_only) {  // exported, not solved: later steps may list it (the CLI re-check decides)
      chain.accept(i, st.later ? *st.later : st.goal);
      continue;
    }
    if (cache_has(opts.cache_dir, hash)) {
      ++out.cache_hits;
      chain.accept(i, st.later ? *st.later : st.goal);
      continue;
    }
    Solved sv = solve_step(ctx, enc, scope, st, chain, own, rlimit, opts.seed);
    if (sv.r == z3::unsat && sv.used_full && st.hyps) {
      // A closed step that needed the whole domain: sound, but not over its own hypotheses, so
      // the result is bounded by the domain; the export shows the query that was proved.
      out.unbounded = false;
      out.method += "; closed step '" + st.name + "' needed the whole domain";
      if (!opts.emit_smt2_dir.empty())
        write_smt2(opts.emit_smt2_dir, key, static_cast<int>(i), st, enc, domain, sv.s.to_smt2(), opts.domain);
    }
    if (sv.r == z3::unsat) {
      cache_store(opts.cache_dir, hash, st.name);
      chain.accept(i, st.later ? *st.later : st.goal);
      continue;
    }
    if (sv.r == z3::unknown) {
      out.status = Status::unknown;
      out.detail = "step '" + st.name + "': solver unknown (" + sv.s.reason_unknown() + ")";
      break;
    }
    report_model(key, st, enc, sv.s.get_model(), opts, out);
    break;
  }
  disarm_watchdog();
  if (opts.emit_only && out.status == Status::proved) {
    out.status = Status::unknown;
    out.detail = "not solved (--emit-only): " + std::to_string(out.queries) + " queries exported";
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace cp::smt::detail

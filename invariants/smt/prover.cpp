// The prover: runs the encodings' lemma chains (invariants/smt/encode.cpp) in forked worker
// processes, caches proved queries on disk by content hash, exports SMT-LIB2, and replays
// every model through the executable planner (catalogue evaluate()) before reporting it.
#include "invariants/smt/prover.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include "invariants/smt/encode.h"
#include "reference/caseio/case.h"
#include "reference/caseio/regression.h"
#include "reference/dcp/ownership.h"
#include "reference/planner/arith.h"

namespace cp::smt {

std::string_view name(Status s) {
  switch (s) {
    case Status::proved: return "PROVED";
    case Status::counterexample: return "COUNTEREXAMPLE";
    case Status::unknown: return "UNKNOWN";
    case Status::not_applicable: return "n/a";
    case Status::not_encoded: return "not encoded";
  }
  return "?";
}

// ---- domain ---------------------------------------------------------------------------

void Domain::apply(std::string_view kv) {
  const auto eq = kv.find('=');
  if (eq == std::string_view::npos)
    throw std::invalid_argument("--domain expects key=value, got '" + std::string(kv) + "'");
  const std::string key(kv.substr(0, eq)), val(kv.substr(eq + 1));
  if (key == "packed") {
    if (val != "auto" && val != "split" && val != "symbolic")
      throw std::invalid_argument("--domain packed: auto, split or symbolic");
    packed_mode = val;
    return;
  }
  if (key == "blocks") {
    split_blocks.clear();
    std::stringstream ss(val);
    for (std::string item; std::getline(ss, item, ',');) {
      try {
        split_blocks.push_back(std::stoll(item));
      } catch (const std::exception&) {
        throw std::invalid_argument("--domain blocks: not a number: '" + item + "'");
      }
      if (split_blocks.back() < 1) throw std::invalid_argument("--domain blocks: must be >= 1");
    }
    return;
  }
  if (key == "workspace" && val == "sized") {
    workspace_max = 0;
    return;
  }
  std::int64_t v = 0;
  try {
    std::size_t pos = 0;
    v = std::stoll(val, &pos, 0);
    if (pos != val.size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw std::invalid_argument("--domain " + key + ": not a number: '" + val + "'");
  }
  auto need = [&](std::int64_t lo, std::int64_t hi) {
    if (v < lo || v > hi)
      throw std::invalid_argument("--domain " + key + ": " + std::to_string(v) + " out of range [" +
                                  std::to_string(lo) + ", " + std::to_string(hi) + "]");
  };
  if (key == "block")
    need(1, std::int64_t{1} << 20), block_max = v;
  else if (key == "dcp")
    need(1, 1024), dcp_max = v;
  else if (key == "interleave")
    need(1, std::int64_t{1} << 20), interleave_max = v;
  else if (key == "mml")
    need(1, std::int64_t{1} << 26), mml_max = v;
  else if (key == "mns")
    need(1, std::int64_t{1} << 16), mns_max = v;
  else if (key == "workspace")
    need(1, std::int64_t{1} << 30), workspace_max = v;
  else if (key == "ctx")
    need(1, (std::int64_t{1} << 31) - 1), ctx_max = v;
  else if (key == "prefills")
    need(1, 256), prefills_max = v;
  else
    throw std::invalid_argument("--domain: unknown key '" + key +
                                "' (block, dcp, interleave, mml, mns, workspace, ctx, prefills)");
}

std::string Domain::describe() const {
  std::ostringstream o;
  o << "block 1.." << block_max << ", dcp 1.." << dcp_max << ", interleave | block";
  if (interleave_max < block_max) o << " (<= " << interleave_max << ")";
  if (workspace_max == 0)
    o << ", S sized from max_model_len 1.." << mml_max << " and max_num_seqs 1.." << mns_max;
  else
    o << ", workspace 1.." << workspace_max;
  o << ", ctx 0.." << ctx_max << "; old planner: n = 1.." << prefills_max << " prefills with context";
  if (packed_mode != "symbolic") {
    o << "; packed planner " << (packed_mode == "auto" ? "(I-3 only) " : "") << "split grid: block in {";
    bool first = true;
    for (auto b : split_blocks)
      if (b <= block_max) o << (first ? "" : ",") << b, first = false;
    o << "} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1.." << dcp_max;
  }
  return o.str();
}

// ---- what is encoded --------------------------------------------------------------------

bool applicable(Version v, InvariantId id, std::string* why) {
  using enum InvariantId;
  const VersionInfo& vi = info(v);
  auto no = [&](const char* w) {
    if (why) *why = w;
    return false;
  };
  const bool dcp_only = id == I1_workspace_div_dcp || id == I6_virtual_block_alignment || id == I7_local_row_budget ||
                        id == I8_local_length_bookkeeping || id == I9_reorg_exact || id == I10_gather_start_semantics;
  if (dcp_only && !vi.supports_dcp) return no("no DCP in this version");
  if (id == I5_page_aligned_starts && vi.gather_without_dcp != GatherKind::page_rounding)
    return no("token-major / cp_gather kernel: arbitrary starts are exact");
  return true;
}

bool encoded(Version v, InvariantId id, std::string* why) {
  using enum InvariantId;
  auto no = [&](const char* w) {
    if (why) *why = w;
    return false;
  };
  switch (id) {
    case I8_local_length_bookkeeping:
      if (info(v).packed) break;  // per-rank form (b); (a) needs a sum over W ranks
      return no("not encoded for the old planner (packed planner only: per-rank lemma chain)");
    case I9_reorg_exact:
      if (info(v).packed) break;  // count level, per rank
      return no("not encoded for the old planner (packed planner only: count level, per rank)");
    case I11_config_validity: return no("a rule of the case format (interleave | block), enforced on input");
    case I12_merge_preconditions: return no("about merge kernels' NaN rules and batch order, not planner arithmetic");
    case I13_context_prefix: return no("about batch order (context-free prefills first), not planner arithmetic");
    default: break;
  }
  if (info(v).packed && id == I5_page_aligned_starts) return no("n/a");
  return true;
}

namespace {

// ---- one task (runs in a worker process) ---------------------------------------------------

struct TaskOutcome {
  Status status = Status::unknown;
  double seconds = 0;
  int queries = 0, cache_hits = 0;
  std::string case_line, replay, detail, saved_to;
  bool disagrees = false;
  bool unbounded = false;  // proved by a lemma chain for every B, W, I (not a split grid case)
  std::string method;      // the encoding's method (notes a bounded step)
};

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}
std::string hex(std::uint64_t v) {
  std::ostringstream o;
  o << std::hex << v;
  return o.str();
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

// The export in a canonical form, so it is a function of the query alone (tests/smt/golden):
// Z3 names let-bound terms after AST ids (?x276, $x280), which depend on what the context built
// before; they are renamed ?t1, $t2, ... in order of first appearance. The declarations are sorted.
std::string canonical_smt2(const std::string& body) {
  std::vector<std::string> decls;
  std::string out, rest;  // out: the lines before the first declaration
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("(declare-fun ", 0) == 0)
      decls.push_back(line);
    else
      (decls.empty() ? out : rest) += line + "\n";
  }
  std::sort(decls.begin(), decls.end());
  for (const auto& d : decls) out += d + "\n";
  std::map<std::string, std::string> names;
  for (std::size_t i = 0; i < rest.size();) {
    const char ch = rest[i];
    if ((ch == '?' || ch == '$') && i + 1 < rest.size() && rest[i + 1] == 'x') {
      std::size_t j = i + 2;
      while (j < rest.size() && rest[j] >= '0' && rest[j] <= '9') ++j;
      if (j > i + 2) {
        const std::string tok = rest.substr(i, j - i);
        auto it = names.find(tok);
        if (it == names.end())
          it = names.emplace(tok, std::string(1, ch) + "t" + std::to_string(names.size() + 1)).first;
        out += it->second;
        i = j;
        continue;
      }
    }
    out += ch;
    ++i;
  }
  return out;
}

void write_smt2(const std::string& dir, const TaskKey& key, int idx, const Step& st, const Encoding& enc,
                const std::string& domain, const std::string& body, const Domain& dom) {
  std::filesystem::create_directories(dir);
  std::string file = std::string(name(key.version)) + "." + std::string(name(key.platform)) + "." +
                     std::string(info(key.invariant).tag) + "." +
                     split_label(key.version, key.invariant, key.split, dom) + "." + std::to_string(idx) + "-" +
                     st.name + ".smt2";
  for (char& ch : file)
    if (ch == '/' || ch == ' ' || ch == '>' || ch == '<' || ch == '=' || ch == ',') ch = ch == '=' ? '_' : '-';
  std::ofstream o(std::filesystem::path(dir) / file);
  o << "; chunkproof prove: " << name(key.version) << " / " << name(key.platform) << " / " << info(key.invariant).tag
    << " (" << info(key.invariant).summary << ")\n"
    << "; split: " << split_label(key.version, key.invariant, key.split, dom) << "; method: " << enc.method << "\n"
    << "; step " << idx << " '" << st.name << "': " << st.comment << "\n"
    << "; domain: " << domain << "\n"
    << "; the query asserts the domain, the arithmetic's witness definitions (floor division:\n"
    << ";   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:\n"
    << ";   unsat = the step holds; sat = a model violating it"
    << (st.direct ? " (a counterexample to the invariant)" : " (the lemma chain is broken)") << "\n"
    << "; inputs:";
  for (const auto& [n, e] : enc.shown) o << " " << n;
  o << "\n" << canonical_smt2(body);
}

// Uninterpreted constants of a term.
void collect_consts(const z3::expr& e, std::set<unsigned>& seen, std::set<unsigned>& out) {
  if (!seen.insert(e.id()).second) return;
  if (e.is_const() && e.decl().decl_kind() == Z3_OP_UNINTERPRETED) {
    out.insert(e.decl().id());
    return;
  }
  if (e.is_app())
    for (unsigned i = 0; i < e.num_args(); ++i) collect_consts(e.arg(i), seen, out);
}
std::set<unsigned> consts_of(const z3::expr& e) {
  std::set<unsigned> seen, out;
  collect_consts(e, seen, out);
  return out;
}

// Cone of influence: the facts a goal depends on. A domain fact or witness definition is kept
// when it is about (defines) a symbol the goal or a kept fact mentions; an earlier step is
// kept when it mentions such a symbol. Dropping a fact only weakens the assumptions, so an
// unsat (proved) answer stays sound; a sat answer is re-checked with every fact (below).
std::vector<z3::expr> slice(const z3::expr& goal, const Encoding& enc, const Z3Scope& scope,
                            const std::vector<z3::expr>& proved) {
  struct F {
    const z3::expr* e;
    std::set<unsigned> about, mentions;
    bool hint;
  };
  std::vector<F> fs;
  auto ids = [](const std::vector<z3::expr>& v) {
    std::set<unsigned> s;
    for (const auto& x : v) s.insert(x.decl().id());
    return s;
  };
  for (std::size_t i = 0; i < enc.domain.size(); ++i)
    fs.push_back({&enc.domain[i], ids(enc.domain_defines[i]), consts_of(enc.domain[i]), false});
  for (std::size_t i = 0; i < scope.defs().size(); ++i)
    fs.push_back({&scope.defs()[i], ids(scope.defined()[i]), consts_of(scope.defs()[i]), false});
  // Parameters (B, W, I) appear everywhere: they do not pull an earlier step into the cone.
  std::set<unsigned> params;
  for (const auto& [n, e] : enc.shown)
    if (n == "block" || n == "dcp" || n == "interleave") params.insert(e.decl().id());
  for (const auto& p : proved) {
    auto m = consts_of(p);
    std::set<unsigned> about;
    for (unsigned x : m)
      if (!params.count(x)) about.insert(x);
    fs.push_back({&p, about, m, true});
  }
  std::set<unsigned> need = consts_of(goal);
  std::vector<bool> in(fs.size(), false);
  for (bool grew = true; grew;) {
    grew = false;
    for (std::size_t i = 0; i < fs.size(); ++i) {
      if (in[i]) continue;
      const bool hit = std::any_of(fs[i].about.begin(), fs[i].about.end(), [&](unsigned x) { return need.count(x); });
      if (!hit) continue;
      in[i] = true;
      grew = true;
      need.insert(fs[i].mentions.begin(), fs[i].mentions.end());
    }
  }
  std::vector<z3::expr> out;
  for (std::size_t i = 0; i < fs.size(); ++i)
    if (in[i]) out.push_back(*fs[i].e);
  return out;
}

// Replaces each product of two or more non-numeral factors by a fresh constant (memoised by
// term): a weakening, so an unsat answer about the abstraction is one about the original.
z3::expr abstract_products(const z3::expr& e, std::map<unsigned, z3::expr>& memo, int& counter) {
  if (auto it = memo.find(e.id()); it != memo.end()) return it->second;
  z3::expr out = e;
  if (e.is_app() && e.num_args() > 0) {
    int symbolic = 0;
    for (unsigned i = 0; i < e.num_args(); ++i)
      if (!e.arg(i).is_numeral()) ++symbolic;
    if (e.decl().decl_kind() == Z3_OP_MUL && symbolic >= 2) {
      out = e.ctx().int_const(("product!" + std::to_string(counter++)).c_str());
    } else {
      z3::expr_vector args(e.ctx());
      for (unsigned i = 0; i < e.num_args(); ++i) args.push_back(abstract_products(e.arg(i), memo, counter));
      out = e.decl()(args);
    }
  }
  memo.emplace(e.id(), out);
  return out;
}

// Worker processes arm a wall-clock watchdog per step: Z3 4.8.12 does not always honour its own
// timeout inside the nonlinear solver. SIGALRM's default action ends the worker; the parent
// reports the task UNKNOWN ("watchdog") and starts a replacement worker.
bool g_in_worker = false;

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
  // The definedness step: every divisor (and lcm argument) is positive wherever the plan is built.
  {
    z3::expr_vector ob(ctx);
    for (const auto& e : scope.obligations()) ob.push_back(e);
    z3::expr all = ob.empty() ? ctx.bool_val(true) : z3::mk_and(ob);
    enc.steps.push_back({"definedness", "every divisor is positive where the plan is built (floor semantics exact)",
                         enc.built ? z3::implies(*enc.built, all) : all, std::nullopt, false});
    enc.steps.back().hyps = enc.definedness_hyps;
  }
  const std::string domain = opts.domain.describe();
  const double timeout = opts.timeout_s;
  const std::uint64_t rlimit = opts.rlimit ? opts.rlimit : static_cast<std::uint64_t>(timeout * 4.0e6);
  out.status = Status::proved;
  std::vector<z3::expr> proved;  // what later steps may assume
  std::set<unsigned> allowed;    // closed steps' hypotheses: domain facts, definitions, earlier goals
  for (const auto& e : enc.domain) allowed.insert(e.id());
  for (const auto& e : scope.defs()) allowed.insert(e.id());
  std::vector<bool> step_proved(enc.steps.size(), false);
  for (std::size_t i = 0; i < enc.steps.size(); ++i) {
    const Step& st = enc.steps[i];
    if (st.instance_of == -2) {  // congruence: F and a == b give F[a := b]
      const bool ok = st.hyps && st.hyps->size() == 2 && st.inst_from.size() == 1 && st.inst_to.size() == 1 &&
                      allowed.count((*st.hyps)[0].id()) && allowed.count((*st.hyps)[1].id()) &&
                      z3::eq((*st.hyps)[1], st.inst_from[0] == st.inst_to[0]);
      z3::expr_vector from(ctx), to(ctx);
      from.push_back(st.inst_from.at(0));
      to.push_back(st.inst_to.at(0));
      if (!ok || !z3::eq(z3::expr((*st.hyps)[0]).substitute(from, to), st.goal))
        throw std::logic_error("step '" + st.name + "' is not a congruence rewrite of allowed facts");
      step_proved[i] = true;
      proved.push_back(st.goal);
      allowed.insert(st.goal.id());
      continue;
    }
    if (st.instance_of >= 0) {  // instance of a proved generic lemma: check the substitution
      const auto gi = static_cast<std::size_t>(st.instance_of);
      z3::expr_vector from(ctx), to(ctx);
      for (const auto& e : st.inst_from) from.push_back(e);
      for (const auto& e : st.inst_to) to.push_back(e);
      const Step& g = enc.steps.at(gi);
      if (gi >= i || !step_proved[gi] || !g.hyps || !g.hyps->empty() ||
          !z3::eq(z3::expr(g.goal).substitute(from, to), st.goal))
        throw std::logic_error("step '" + st.name + "' is not an instance of a proved generic lemma");
      step_proved[i] = true;
      proved.push_back(st.goal);
      allowed.insert(st.goal.id());
      continue;
    }
    if (st.hyps)
      for (const auto& h : *st.hyps)
        if (!allowed.count(h.id()))
          throw std::logic_error("closed step '" + st.name +
                                 "' assumes something that is not a domain fact, "
                                 "a definition or an earlier step: " +
                                 h.to_string());
    auto make_solver = [&](bool full) {
      z3::solver s(ctx);
      z3::params p(ctx);
      // No Z3 "timeout": its timer thread can deadlock under load (Z3 4.8.12); the rlimit bounds
      // the work deterministically and the worker's alarm() watchdog bounds the wall time.
      p.set("rlimit", static_cast<unsigned>(std::min<std::uint64_t>(rlimit, 4000000000ull)));
      p.set("random_seed", opts.seed);
      s.set(p);
      if (st.hyps && !full && st.abstract_products) {
        std::map<unsigned, z3::expr> memo;
        int counter = 0;
        for (const auto& e : *st.hyps) s.add(abstract_products(e, memo, counter));
        s.add(!abstract_products(st.goal, memo, counter));
        return s;
      }
      if (st.hyps && !full) {  // closed step: exactly its hypotheses; a sat answer is re-solved with all
        for (const auto& e : *st.hyps) s.add(e);
      } else if (full) {
        for (const auto& e : enc.domain) s.add(e);
        for (const auto& e : scope.defs()) s.add(e);
        for (const auto& e : proved) s.add(e);
      } else {
        for (const auto& e : slice(st.goal, enc, scope, proved)) s.add(e);
      }
      s.add(!st.goal);
      return s;
    };
    if (g_in_worker) ::alarm(static_cast<unsigned>(3 * timeout + 10));
    z3::solver s = make_solver(false);
    const std::string body = s.to_smt2();
    const std::string hkey = hex(fnv1a(body));
    ++out.queries;
    if (!opts.emit_smt2_dir.empty())
      write_smt2(opts.emit_smt2_dir, key, static_cast<int>(i), st, enc, domain, body, opts.domain);
    const auto cache_file =
        opts.cache_dir.empty() ? std::filesystem::path() : std::filesystem::path(opts.cache_dir) / (hkey + ".proved");
    if (!opts.cache_dir.empty() && std::filesystem::exists(cache_file)) {
      ++out.cache_hits;
      proved.push_back(st.later ? *st.later : st.goal);
      allowed.insert(proved.back().id());
      step_proved[i] = true;
      continue;
    }
    z3::check_result r = z3::unknown;
    bool hinted = false;
    if (!enc.search_hints.empty()) {  // try replayable sizes first
      s.push();
      for (const auto& h : enc.search_hints) s.add(h);
      r = s.check();
      if (r == z3::sat)
        hinted = true;
      else
        s.pop();
      if (r != z3::sat) r = s.check();
    } else {
      r = s.check();
    }
    // A model of the sliced query may break a dropped fact: re-solve the full query.
    bool used_full = false;
    if (r == z3::sat) {
      used_full = true;
      s = make_solver(true);
      hinted = false;
      if (!enc.search_hints.empty()) {
        s.push();
        for (const auto& h : enc.search_hints) s.add(h);
        r = s.check();
        if (r == z3::sat)
          hinted = true;
        else
          s.pop();
        if (r != z3::sat) r = s.check();
      } else {
        r = s.check();
      }
    }
    // Refine lcm abstractions that the model instantiated with a non-least common multiple.
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
    if (r == z3::unsat && used_full && st.hyps) {
      // A closed step that needed the whole domain: sound, but not over its own hypotheses, so
      // the result is bounded by the domain; the export shows the query that was proved.
      out.unbounded = false;
      out.method += "; closed step '" + st.name + "' needed the whole domain";
      if (!opts.emit_smt2_dir.empty())
        write_smt2(opts.emit_smt2_dir, key, static_cast<int>(i), st, enc, domain, s.to_smt2(), opts.domain);
    }
    if (r == z3::unsat) {
      if (!opts.cache_dir.empty()) {
        std::filesystem::create_directories(opts.cache_dir);
        std::ofstream(cache_file) << st.name << "\n";
      }
      proved.push_back(st.later ? *st.later : st.goal);
      allowed.insert(proved.back().id());
      step_proved[i] = true;
      continue;
    }
    if (r == z3::unknown) {
      out.status = Status::unknown;
      out.detail = "step '" + st.name + "': solver unknown (" + s.reason_unknown() + ")";
      break;
    }
    // sat
    z3::model m = s.get_model();
    std::string model_text;
    for (const auto& [n, e] : enc.shown) {
      std::int64_t v = 0;
      if (m.eval(e, true).is_numeral_i64(v))
        model_text += (model_text.empty() ? "" : " ") + n + "=" + std::to_string(v);
    }
    if (!st.direct || !enc.to_case) {
      out.status = Status::unknown;
      out.detail =
          "step '" + st.name + "' refuted by the solver (lemma does not hold as stated; model " + model_text + ")";
      break;
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
      if (agrees && !opts.save_regression_dir.empty()) {
        // The record travels to the parent (workers race); the CLI writes it after printing.
        CaseRecord rec;
        rec.header = {
            {"bug", "found by `chunkproof prove`: " + std::string(info(key.invariant).summary) + " (" +
                        split_label(key.version, key.invariant, key.split, opts.domain) + ", step " + st.name + ")"},
            {"invariant", std::string(info(key.invariant).tag)}};
        rec.expects.push_back(
            {key.version,
             ev.outcome == Outcome::assert_fired ? ExpectedOutcome::assert_fired
             : ev.outcome == Outcome::crashed    ? ExpectedOutcome::crashed
                                                 : ExpectedOutcome::violation,
             {}});
        if (rec.expects.back().outcome == ExpectedOutcome::violation)
          rec.expects.back().invariants.emplace_back(info(key.invariant).tag);
        rec.line = out.case_line;
        out.saved_to = print_case_record(rec);
        std::replace(out.saved_to.begin(), out.saved_to.end(), '\n', '\x1f');
      }
    } catch (const std::exception& e) {
      out.disagrees = true;
      out.replay = std::string("replay failed: ") + e.what();
      out.detail = "model: " + model_text;
    }
    break;
  }
  if (g_in_worker) ::alarm(0);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

// ---- worker protocol --------------------------------------------------------------------

std::string clean(std::string s) {
  for (char& ch : s)
    if (ch == '\t' || ch == '\n') ch = ' ';
  return s;
}
std::string serialize(const TaskOutcome& o) {
  std::ostringstream w;
  w << static_cast<int>(o.status) << '\t' << o.seconds << '\t' << o.queries << '\t' << o.cache_hits << '\t'
    << (o.disagrees ? 1 : 0) << '\t' << clean(o.case_line) << '\t' << clean(o.replay) << '\t' << clean(o.detail) << '\t'
    << clean(o.saved_to) << '\t' << (o.unbounded ? 1 : 0) << '\t' << clean(o.method) << '\n';
  return w.str();
}
TaskOutcome deserialize(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  for (char ch : line) {
    if (ch == '\t')
      f.push_back(cur), cur.clear();
    else if (ch != '\n')
      cur += ch;
  }
  f.push_back(cur);
  TaskOutcome o;
  if (f.size() < 11) {
    o.detail = "worker protocol error";
    return o;
  }
  o.status = static_cast<Status>(std::stoi(f[0]));
  o.seconds = std::stod(f[1]);
  o.queries = std::stoi(f[2]);
  o.cache_hits = std::stoi(f[3]);
  o.disagrees = f[4] == "1";
  o.case_line = f[5];
  o.replay = f[6];
  o.detail = f[7];
  o.saved_to = f[8];
  o.unbounded = f[9] == "1";
  o.method = f[10];
  return o;
}

bool write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

struct Worker {
  pid_t pid = -1;
  int to = -1, from = -1;
  int task = -1;  // running task, -1 idle
  std::string buf;
};

[[noreturn]] void worker_main(int in, int out, const std::vector<TaskKey>& tasks, const ProveOptions& opts) {
  g_in_worker = true;
  std::string buf;
  char tmp[256];
  for (;;) {
    const ssize_t n = ::read(in, tmp, sizeof tmp);
    if (n <= 0) _exit(0);
    buf.append(tmp, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      const int idx = std::stoi(buf.substr(0, nl));
      buf.erase(0, nl + 1);
      TaskOutcome o;
      try {
        o = run_task(tasks[static_cast<std::size_t>(idx)], opts);
      } catch (const std::exception& e) {
        o.status = Status::unknown;
        o.detail = std::string("error: ") + e.what();
      }
      if (!write_all(out, std::to_string(idx) + '\t' + serialize(o))) _exit(1);
    }
  }
}

}  // namespace

std::vector<ProveResult> prove(const ProveOptions& opts) {
  // Rows (version, platform, invariant) and their split tasks.
  std::vector<ProveResult> rows;
  std::vector<TaskKey> tasks;
  std::vector<int> task_row;
  std::vector<InvariantId> invs = opts.invariants;
  if (invs.empty())
    for (const auto& i : all_invariants()) invs.push_back(i.id);
  for (Version v : opts.versions)
    for (Platform p : opts.platforms)
      for (InvariantId id : invs) {
        ProveResult r;
        r.version = v;
        r.platform = p;
        r.invariant = id;
        r.domain = opts.domain.describe();
        std::string why;
        if (!applicable(v, id, &why)) {
          r.status = Status::not_applicable;
          r.detail = why;
        } else if (!encoded(v, id, &why)) {
          r.status = Status::not_encoded;
          r.detail = why;
        } else {
          r.status = Status::proved;  // until a case says otherwise
          r.cases = num_splits(v, id, opts.domain);
          for (int s = 0; s < r.cases; ++s) {
            tasks.push_back({v, p, id, s});
            task_row.push_back(static_cast<int>(rows.size()));
          }
        }
        rows.push_back(std::move(r));
      }
  std::vector<int> na_cases(rows.size(), 0), bounded_cases(rows.size(), 0);
  std::vector<std::set<std::string>> methods(rows.size());
  auto absorb = [&](int ti, const TaskOutcome& o) {
    ProveResult& r = rows[static_cast<std::size_t>(task_row[static_cast<std::size_t>(ti)])];
    const TaskKey& k = tasks[static_cast<std::size_t>(ti)];
    r.seconds += o.seconds;
    r.queries += o.queries;
    r.cache_hits += o.cache_hits;
    const std::string label = split_label(k.version, k.invariant, k.split, opts.domain);
    const auto ri = static_cast<std::size_t>(&r - rows.data());
    if (o.status == Status::proved) {
      if (!o.unbounded) ++bounded_cases[ri];
      methods[ri].insert(label + ": " + o.method);
    }
    switch (o.status) {
      case Status::proved: ++r.cases_proved; break;
      case Status::not_applicable: ++na_cases[static_cast<std::size_t>(&r - rows.data())]; break;
      case Status::counterexample:
        if (r.status != Status::counterexample) {
          r.status = Status::counterexample;
          r.case_line = o.case_line;
          r.replay = o.replay;
          r.encoding_disagrees = o.disagrees;
          r.detail = label + ": " + o.detail;
          if (!o.saved_to.empty() && !opts.save_regression_dir.empty()) {
            r.regression_file = "smt-" + std::string(name(k.version)) + "-" + std::string(name(k.platform)) + "-" +
                                std::string(info(k.invariant).tag) + ".case";
            r.regression = o.saved_to;
            std::replace(r.regression.begin(), r.regression.end(), '\x1f', '\n');
          }
        }
        break;
      default:
        r.unknown_cases.push_back(label + ": " + o.detail);
        if (r.status == Status::proved) r.status = Status::unknown;
        break;
    }
    if (opts.progress) {
      std::ostringstream line;
      line << name(k.version) << "/" << name(k.platform) << " " << info(k.invariant).tag << " [" << label << "] "
           << name(o.status) << " " << o.queries << " queries " << std::fixed;
      line.precision(2);
      line << o.seconds << " s";
      if (o.status == Status::counterexample) line << (o.disagrees ? "  ENCODING DISAGREES" : "  replayed");
      opts.progress(line.str());
    }
  };

  const int jobs = std::max(1, std::min<int>(opts.jobs, static_cast<int>(tasks.size())));
  std::size_t next = 0;
  auto next_task = [&]() -> int {
    while (next < tasks.size()) {
      const int ti = static_cast<int>(next++);
      const int ri = task_row[static_cast<std::size_t>(ti)];
      if (rows[static_cast<std::size_t>(ri)].status == Status::counterexample) continue;  // found already
      return ti;
    }
    return -1;
  };
  if (jobs <= 1 || tasks.size() <= 1) {
    for (int ti; (ti = next_task()) >= 0;) absorb(ti, run_task(tasks[static_cast<std::size_t>(ti)], opts));
  } else {
    std::vector<Worker> ws(static_cast<std::size_t>(jobs));
    auto spawn = [&](Worker& w) {
      int a[2], b[2];
      if (::pipe(a) != 0 || ::pipe(b) != 0) throw std::runtime_error("pipe failed");
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error("fork failed");
      if (pid == 0) {
        ::close(a[1]);
        ::close(b[0]);
        for (const auto& o : ws)  // the other workers' pipe ends: else they never see EOF
          if (o.pid > 0 && &o != &w) ::close(o.to), ::close(o.from);
        worker_main(a[0], b[1], tasks, opts);
      }
      ::close(a[0]);
      ::close(b[1]);
      w.pid = pid;
      w.to = a[1];
      w.from = b[0];
      w.buf.clear();
    };
    for (auto& w : ws) spawn(w);
    auto dispatch = [&](Worker& w) {
      const int ti = next_task();
      w.task = ti;
      if (ti >= 0) write_all(w.to, std::to_string(ti) + "\n");
    };
    for (auto& w : ws) dispatch(w);
    for (;;) {
      std::vector<pollfd> fds;
      std::vector<Worker*> who;
      for (auto& w : ws)
        if (w.task >= 0) fds.push_back({w.from, POLLIN, 0}), who.push_back(&w);
      if (fds.empty()) break;
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error("poll failed");
      }
      for (std::size_t i = 0; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        Worker& w = *who[i];
        char tmp[4096];
        const ssize_t n = ::read(w.from, tmp, sizeof tmp);
        if (n <= 0) {  // the worker died (watchdog, out of memory, signal): its task is unknown
          int st = 0;
          ::close(w.to);
          ::close(w.from);
          ::waitpid(w.pid, &st, 0);
          TaskOutcome o;
          o.detail = WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM
                         ? "a query ran past the watchdog (3 x timeout + 10 s): Z3 did not stop"
                         : "worker process died";
          absorb(w.task, o);
          w.task = -1;
          w.pid = -1;
          spawn(w);
          dispatch(w);
          continue;
        }
        w.buf.append(tmp, static_cast<std::size_t>(n));
        std::size_t nl;
        while ((nl = w.buf.find('\n')) != std::string::npos) {
          const std::string line = w.buf.substr(0, nl);
          w.buf.erase(0, nl + 1);
          const auto tab = line.find('\t');
          absorb(std::stoi(line.substr(0, tab)), deserialize(line.substr(tab + 1)));
          dispatch(w);
        }
      }
    }
    for (auto& w : ws) {
      ::close(w.to);
      ::close(w.from);
      int st = 0;
      ::waitpid(w.pid, &st, 0);
    }
  }

  for (std::size_t i = 0; i < rows.size(); ++i) {
    ProveResult& r = rows[i];
    if (r.cases == 0) continue;
    if (na_cases[i] == r.cases) {
      r.status = Status::not_applicable;
      r.detail = "no split case applies";
      continue;
    }
    const bool chain = info(r.version).packed && bounded_cases[i] < r.cases_proved;
    r.unbounded =
        info(r.version).packed && r.status == Status::proved && bounded_cases[i] == 0 && opts.domain.workspace_max == 0;
    if (chain) {
      r.method.clear();
      for (const auto& m : methods[i]) r.method += (r.method.empty() ? "" : " | ") + m;
    } else if (info(r.version).packed)
      r.method = "split grid, " + std::to_string(r.cases) +
                 " concrete (B, W, I) cases, one arbitrary greedy step (induction), symbolic S/ctx/start/rows";
    else
      r.method = "split n (prefills with context) 1.." + std::to_string(r.cases) +
                 ", symbolic B/W/I/S/ctx, arbitrary chunk index";
    if (r.status == Status::unknown) {
      r.detail = std::to_string(r.unknown_cases.size()) + " of " + std::to_string(r.cases) + " case(s) undecided";
    }
    if (r.status == Status::proved && na_cases[i] > 0)
      r.detail = std::to_string(na_cases[i]) + " split case(s) not applicable";
  }
  return rows;
}

// ---- self checks -------------------------------------------------------------------------

std::string self_check_arith(std::uint64_t seed, int samples) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  z3::context ctx;
  auto val = [&](const z3::expr& e) {
    std::int64_t v = 0;
    if (!e.simplify().is_numeral_i64(v)) throw std::logic_error("not a numeral: " + e.to_string());
    return v;
  };
  for (int s = 0; s < samples; ++s) {
    const std::int64_t B = pick(1, 1 << 14), W = pick(1, 64);
    std::int64_t I = pick(1, B);
    while (B % I) --I;
    const std::int64_t mml = pick(1, 1 << 21), mns = pick(1, 1024), n = pick(1, 16);
    const std::int64_t S = pick(1, 1 << 24), ctxv = pick(0, 1 << 21), c = pick(0, 64), p = pick(0, 1 << 22),
                       r = pick(0, W - 1);
    const Int iB = B, iW = W, iI = I, imml = mml, imns = mns, iS = S, ictx = ctxv, ic = c, ip = p, ir = r, in = n;
    const z3::expr zB = ctx.int_val(B), zW = ctx.int_val(W), zI = ctx.int_val(I), zmml = ctx.int_val(mml),
                   zmns = ctx.int_val(mns), zS = ctx.int_val(S), zctx = ctx.int_val(ctxv), zc = ctx.int_val(c),
                   zp = ctx.int_val(p), zr = ctx.int_val(r), zn = ctx.int_val(n);
    struct Pair {
      const char* what;
      std::int64_t a, b;
    };
    const Int M = arith::old_chunk_width(iS, in, iB);
    const z3::expr zM = arith::old_chunk_width(zS, zn, zB);
    const Int PL = arith::old_local_chunk(M.get() > 0 ? M : Int(1), iI, iW);
    const z3::expr zPL = arith::old_local_chunk(val(zM) > 0 ? zM : ctx.int_val(1), zI, zW);
    const Pair pairs[] = {
        {"workspace_v0", arith::workspace_v0(imml, imns, iB).get(), val(arith::workspace_v0(zmml, zmns, zB))},
        {"workspace_legacy", arith::workspace_legacy(imml, imns, iB).get(),
         val(arith::workspace_legacy(zmml, zmns, zB))},
        {"workspace_pr41229", arith::workspace_pr41229(imml, imns, iB, iW).get(),
         val(arith::workspace_pr41229(zmml, zmns, zB, zW))},
        {"workspace_v5", arith::workspace_v5(imml, imns, iB, iW, iI).get(),
         val(arith::workspace_v5(zmml, zmns, zB, zW, zI))},
        {"workspace_v6", arith::workspace_v6(imml, imns, iB, iW, iI).get(),
         val(arith::workspace_v6(zmml, zmns, zB, zW, zI))},
        {"old_chunk_width", M.get(), val(zM)},
        {"old_span_len", arith::old_span_len(ictx, ic, M).get(), val(arith::old_span_len(zctx, zc, zM))},
        {"old_local_len", arith::old_local_len(ictx, ic, PL, iI, iW).get(),
         val(arith::old_local_len(zctx, zc, zPL, zI, zW))},
        {"owner_rank", owner_rank(ip, iI, iW).get(), val(owner_rank(zp, zI, zW))},
        {"local_index", local_index(ip, iI, iW).get(), val(local_index(zp, zI, zW))},
        {"dcp_local_len", dcp_local_len(ip, iW, ir, iI).get(), val(dcp_local_len(zp, zW, zr, zI))},
        {"padded_local_rows", padded_local_rows(ip, iI, iW).get(), val(padded_local_rows(zp, zI, zW))},
        {"packed_rows_needed", arith::packed_rows_needed(ip, ictx, iI, iW, W > 1).get(),
         val(arith::packed_rows_needed(zp, zctx, zI, zW, W > 1))},
        {"packed_split_cap", arith::packed_split_cap(ictx + 1, iB, iS).get(),
         val(arith::packed_split_cap(zctx + 1, zB, zS))},
        {"packed_alignment", arith::packed_alignment(iB, iW, iI).get(), val(arith::packed_alignment(zB, zW, zI))},
        {"reorg_kept_rows", arith::reorg_kept_rows(ictx, ip, ic).get(), val(arith::reorg_kept_rows(zctx, zp, zc))},
    };
    for (const auto& pr : pairs)
      if (pr.a != pr.b) {
        std::ostringstream o;
        o << pr.what << ": Int " << pr.a << " vs z3 " << pr.b << " at B=" << B << " W=" << W << " I=" << I
          << " mml=" << mml << " mns=" << mns << " S=" << S << " ctx=" << ctxv << " c=" << c << " p=" << p << " r=" << r
          << " n=" << n;
        return o.str();
      }
    // Symbolic divisors through the witness encoding: the solver must agree with Int as well.
    {
      Z3Scope scope(ctx);
      const z3::expr x = ctx.int_const("x"), d = ctx.int_const("d");
      const z3::expr q = cp::floordiv(x, d);
      z3::solver sol(ctx);
      for (const auto& e : scope.defs()) sol.add(e);
      const std::int64_t xv = pick(-(1 << 20), 1 << 22), dv = pick(1, 1 << 14);
      sol.add(x == ctx.int_val(xv) && d == ctx.int_val(dv));
      if (sol.check() != z3::sat) return "witness floordiv: no model";
      std::int64_t qv = 0;
      sol.get_model().eval(q, true).is_numeral_i64(qv);
      if (qv != floordiv(Int(xv), Int(dv)).get())
        return "witness floordiv(" + std::to_string(xv) + ", " + std::to_string(dv) + ") = " + std::to_string(qv);
    }
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> check_lemma_library(double timeout_s) {
  std::vector<std::pair<std::string, std::string>> out;
  z3::context ctx;
  auto run = [&](const std::string& nm, const std::function<z3::expr(Z3Scope&)>& build) {
    Z3Scope scope(ctx);
    z3::expr goal = build(scope);
    z3::solver s(ctx);
    z3::params p(ctx);
    // rlimit, not "timeout": Z3 4.8.12's scoped_timer can deadlock under load (seen here: the
    // main thread blocked on the timer pool's mutex for 20 minutes); rlimit is deterministic.
    p.set("rlimit", static_cast<unsigned>(timeout_s * 4.0e6));
    s.set(p);
    for (const auto& e : scope.defs()) s.add(e);
    s.add(!goal);
    const auto r = s.check();
    out.emplace_back(nm, r == z3::unsat ? "proved" : r == z3::sat ? "refuted" : "unknown");
  };
  const z3::expr w = ctx.int_const("w"), L = ctx.int_const("L"), t = ctx.int_const("t"), K = ctx.int_const("K"),
                 d = ctx.int_const("d"), i = ctx.int_const("i"), m = ctx.int_const("m"), Q = ctx.int_const("Q");
  run("round_down names its quotient: w - w mod L = L*(w div L)",
      [&](Z3Scope&) { return z3::implies(L >= 1 && w >= 0, cp::round_down(w, L) == w - cp::floormod(w, L)); });
  run("multiple-of with a fresh factor: (d*K) mod d = 0",
      [&](Z3Scope&) { return z3::implies(d >= 1, cp::floormod(d * K, d) == 0); });
  run("ring identity: (d*i*m)*Q = d*(i*m*Q)", [&](Z3Scope&) { return (d * i * m) * Q == d * (i * m * Q); });
  run("division of an exact multiple: cdiv(D*t, D) = t",
      [&](Z3Scope&) { return z3::implies(d >= 1 && t >= 0, cp::cdiv(d * t, d) == t); });
  run("padded local rows at a virtual-block boundary: cdiv(I*W*t, I*W)*I*W = I*W*t", [&](Z3Scope&) {
    return z3::implies(i >= 1 && w >= 1 && t >= 0, padded_local_rows((i * w) * t, i, w) * w == (i * w) * t);
  });
  return out;
}

}  // namespace cp::smt

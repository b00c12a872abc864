// The prover's rows: the declared domain (--domain), what is encoded, the tasks (split cases)
// of each (version, platform, invariant) row, and the row verdicts assembled from the tasks'
// outcomes. The tasks themselves run in task.cpp, on the workers of workers.cpp; the queries
// are built in query.cpp (prover_internal.h).
#include "invariants/smt/prover.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

#include "invariants/smt/prover_internal.h"
#include "reference/proc/interrupt.h"

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

void Domain::pin(std::string_view kv) {
  const auto eq = kv.find('=');
  if (eq == std::string_view::npos)
    throw std::invalid_argument("--pin expects key=value, got '" + std::string(kv) + "'");
  const std::string key(kv.substr(0, eq));
  if (key != "block" && key != "dcp" && key != "interleave" && key != "workspace" && key != "mml" && key != "mns")
    throw std::invalid_argument("--pin: unknown key '" + key + "' (block, dcp, interleave, workspace, mml, mns)");
  apply(std::string(kv));  // the bound, range-checked; then the exact value
  const std::int64_t v = std::stoll(std::string(kv.substr(eq + 1)), nullptr, 0);
  if (key == "block") block_pin = v, split_blocks = {v};
  if (key == "dcp") dcp_pin = v;
  if (key == "interleave") interleave_pin = v;
  if (key == "workspace") workspace_pin = v;
  if (key == "mml") mml_pin = v, workspace_max = 0, workspace_pin = 0;
  if (key == "mns") mns_pin = v, workspace_max = 0, workspace_pin = 0;
}

std::string Domain::describe() const {
  std::ostringstream o;
  std::string pins;
  auto add = [&](const char* k, std::int64_t v) {
    if (v) pins += (pins.empty() ? "" : " ") + std::string(k) + "=" + std::to_string(v);
  };
  add("block", block_pin), add("dcp", dcp_pin), add("interleave", interleave_pin), add("workspace", workspace_pin);
  add("mml", mml_pin), add("mns", mns_pin);
  if (!pins.empty()) o << "pinned " << pins << "; ";
  o << "block 1.." << block_max << ", dcp 1.." << dcp_max << ", interleave | block";
  if (interleave_max < block_max) o << " (<= " << interleave_max << ")";
  if (workspace_max == 0)
    o << ", S sized from max_model_len 1.." << mml_max << " and max_num_seqs 1.." << mns_max;
  else
    o << ", workspace 1.." << workspace_max;
  o << ", ctx 0.." << ctx_max << "; old planner: n = 1.." << prefills_max << " prefills with context";
  if (packed_mode != "symbolic") {
    const bool every_row = packed_mode == "split" || (block_pin && dcp_pin && interleave_pin);
    o << "; packed planner " << (every_row ? "" : "(I-3 with an explicit workspace only) ") << "split grid";
    if (every_row && packed_mode == "auto") o << " (block, dcp, interleave pinned: every row)";
    o << ": block in {";
    bool first = true;
    for (auto b : split_blocks)
      if (b <= block_max) o << (first ? "" : ",") << b, first = false;
    o << "} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1.." << dcp_max;
  }
  return o.str();
}

// ---- what is encoded --------------------------------------------------------------------

Spelling use_spelling(const Spelling& s) {
  Spelling& cur = NumOps<z3::expr>::spelling();
  const Spelling prev = cur;
  cur = s;
  return prev;
}

bool encoded_only_under_dcp(InvariantId id) {
  // I-9 applies without DCP in the catalogue (the token check runs on every plan), but its
  // encoding is the DCP reorg (the kept rows per rank and the ownership bijection of
  // gather -> all-gather -> reorg): without DCP there is no reorg, and the rows a request
  // receives are its spans, which I-3 proves.
  return info(id).dcp_only || id == InvariantId::I9_reorg_exact;
}

bool applicable(Version v, InvariantId id, std::string* why) {
  using enum InvariantId;
  const VersionInfo& vi = info(v);
  auto no = [&](const char* w) {
    if (why) *why = w;
    return false;
  };
  if (!applies_to(cp::info(id), vi.family->name)) return no("a rule of another planner family");
  if (encoded_only_under_dcp(id) && !vi.supports_dcp) return no("no DCP in this version");
  if (id == I5_page_aligned_starts && vi.gather_without_dcp != GatherKind::page_rounding)
    return no("token-major / cp_gather kernel: arbitrary starts are exact");
  return true;
}

bool encoded(Version v, InvariantId id, std::string* why, const Domain* d) {
  using enum InvariantId;
  auto no = [&](const char* w) {
    if (why) *why = w;
    return false;
  };
  if (engine_rule(v, id)) return engine_encoded(v, id, why);
  // The old planner's entry with B, W, I concrete (encode_entry.cpp); symbolic, its sums over
  // ranks and its reorg are nonlinear in W and I.
  const bool old_pinned = d && pins_triple(*d, v);
  switch (id) {
    case I8_local_length_bookkeeping:
      if (info(v).is_packed() || old_pinned) break;  // (a) the sum over ranks, (b) per rank
      return no("not encoded for the old planner unless block, dcp and interleave are pinned");
    case I9_reorg_exact:
      if (info(v).is_packed() || old_pinned) break;  // count level per rank, then token level (the bijection)
      return no("not encoded for the old planner unless block, dcp and interleave are pinned");
    case I11_config_validity: return no("a rule of the case format (interleave | block), enforced on input");
    case I12_merge_preconditions: return no("about merge kernels' NaN rules and batch order, not planner arithmetic");
    case I13_context_prefix: return no("about batch order (context-free prefills first), not planner arithmetic");
    default: break;
  }
  if (info(v).is_packed() && id == I5_page_aligned_starts) return no("n/a");
  return true;
}

namespace {

using detail::TaskOutcome;

// The table being filled: one row per (version, platform, invariant), its split tasks, and
// what the tasks' outcomes say about the row.
class RowTable {
 public:
  explicit RowTable(const ProveOptions& opts) : opts_(opts) {
    std::vector<InvariantId> invs = opts.invariants;
    if (invs.empty())
      for (const auto& i : all_invariants()) invs.push_back(i.id);
    for (Version v : opts.versions)
      for (Platform p : opts.platforms)
        for (InvariantId id : invs) add_row(v, p, id);
    na_cases_.assign(rows_.size(), 0);
    absorbed_.assign(rows_.size(), 0);
    bounded_cases_.assign(rows_.size(), 0);
    methods_.resize(rows_.size());
  }

  const std::vector<TaskKey>& tasks() const { return tasks_; }

  // The next task to run; a row stops scheduling cases once it has a counterexample.
  int next_task() {
    while (next_ < tasks_.size()) {
      const int ti = static_cast<int>(next_++);
      if (row_of(ti).status == Status::counterexample) continue;  // found already
      return ti;
    }
    return -1;
  }

  // A task whose row already has its counterexample (the workers stop it; never absorbed).
  bool obsolete(int ti) { return row_of(ti).status == Status::counterexample; }

  void absorb(int ti, const TaskOutcome& o) {
    ProveResult& r = row_of(ti);
    const std::size_t ri = task_row_[static_cast<std::size_t>(ti)];
    const TaskKey& k = tasks_[static_cast<std::size_t>(ti)];
    ++absorbed_[ri];
    r.seconds += o.seconds;
    r.queries += o.queries;
    r.cache_hits += o.cache_hits;
    const std::string label = split_label(k.version, k.invariant, k.split, opts_.domain);
    switch (o.status) {
      case Status::proved:
        ++r.cases_proved;
        if (!o.unbounded) ++bounded_cases_[ri];
        // The engines' batch cases share one method (finish_row names the split once).
        methods_[ri].insert(engine_rule(k.version, k.invariant) ? o.method : label + ": " + o.method);
        break;
      case Status::not_applicable: ++na_cases_[ri]; break;
      case Status::counterexample:
        if (r.status != Status::counterexample) take_counterexample(r, k, label, o);
        break;
      default:
        r.unknown_cases.push_back(label + ": " + o.detail);
        if (r.status == Status::proved) r.status = Status::unknown;
        break;
    }
    if (opts_.progress) opts_.progress(progress_line(k, label, o));
  }

  // The row verdicts, once every task is absorbed or an interrupt stopped the workers.
  std::vector<ProveResult> finish(bool interrupted) {
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      // A counterexample stands; its row's other cases were skipped on purpose, not interrupted.
      if (interrupted && rows_[i].status != Status::counterexample)
        rows_[i].cases_not_run = rows_[i].cases - absorbed_[i];
      finish_row(i);
    }
    return std::move(rows_);
  }

 private:
  void add_row(Version v, Platform p, InvariantId id) {
    ProveResult r;
    r.version = v;
    r.platform = p;
    r.invariant = id;
    r.domain = engine_family(v) ? engine_describe(opts_.domain) : opts_.domain.describe();
    std::string why;
    if (!applicable(v, id, &why)) {
      r.status = Status::not_applicable;
      r.detail = why;
    } else if (!encoded(v, id, &why, &opts_.domain)) {
      r.status = Status::not_encoded;
      r.detail = why;
    } else {
      r.status = Status::proved;  // until a case says otherwise
      r.cases = num_splits(v, id, opts_.domain);
      if (r.cases == 0) {  // e.g. a split grid without a block of the domain: nothing was proved
        r.status = Status::unknown;
        r.detail = "the domain has no split case (no block of the split grid in it)";
      }
      for (int s = 0; s < r.cases; ++s) {
        tasks_.push_back({v, p, id, s});
        task_row_.push_back(rows_.size());
      }
    }
    rows_.push_back(std::move(r));
  }

  ProveResult& row_of(int ti) { return rows_[task_row_[static_cast<std::size_t>(ti)]]; }

  void take_counterexample(ProveResult& r, const TaskKey& k, const std::string& label, const TaskOutcome& o) {
    r.status = Status::counterexample;
    r.case_line = o.case_line;
    r.replay = o.replay;
    r.encoding_disagrees = o.disagrees;
    r.detail = label + ": " + o.detail;
    if (!o.saved_to.empty() && !opts_.save_regression_dir.empty()) {
      r.regression_file = "smt-" + std::string(name(k.version)) + "-" + std::string(name(k.platform)) + "-" +
                          std::string(info(k.invariant).tag) + ".case";
      r.regression = o.saved_to;
      std::replace(r.regression.begin(), r.regression.end(), '\x1f', '\n');
    }
  }

  static std::string progress_line(const TaskKey& k, const std::string& label, const TaskOutcome& o) {
    std::ostringstream line;
    line << name(k.version) << "/" << name(k.platform) << " " << info(k.invariant).tag << " [" << label << "] "
         << name(o.status) << " " << o.queries << " queries " << std::fixed;
    line.precision(2);
    line << o.seconds << " s";
    if (o.status == Status::counterexample) line << (o.disagrees ? "  ENCODING DISAGREES" : "  replayed");
    return line.str();
  }

  void finish_row(std::size_t i) {
    ProveResult& r = rows_[i];
    if (r.cases == 0) return;
    if (r.cases_not_run > 0 && r.status == Status::proved) r.status = Status::unknown;
    if (na_cases_[i] == r.cases) {
      r.status = Status::not_applicable;
      r.detail = "no split case applies";
      return;
    }
    const bool packed = info(r.version).is_packed();
    const bool chain = std::any_of(methods_[i].begin(), methods_[i].end(),
                                   [](const std::string& m) { return m.find("lemma chain") != std::string::npos; });
    r.unbounded = r.status == Status::proved && bounded_cases_[i] == 0 && opts_.domain.workspace_max == 0;
    if (chain || engine_rule(r.version, r.invariant)) {
      r.method.clear();
      for (const auto& m : methods_[i]) r.method += (r.method.empty() ? "" : " | ") + m;
      if (engine_rule(r.version, r.invariant) && r.cases > 1)
        r.method += "; split " + split_label(r.version, r.invariant, 0, opts_.domain) + " .. " +
                    split_label(r.version, r.invariant, r.cases - 1, opts_.domain);
    } else if (packed)
      r.method = "split grid, " + std::to_string(r.cases) +
                 " concrete (B, W, I) cases, one arbitrary greedy step (induction), symbolic S/start/rows, any ctx "
                 "(no upper bound on ctx assumed)";
    else
      r.method = "split n (prefills with context) 1.." + std::to_string(r.cases) +
                 (pins_triple(opts_.domain, r.version) && (r.invariant == InvariantId::I8_local_length_bookkeeping ||
                                                           r.invariant == InvariantId::I9_reorg_exact)
                      ? ", pinned B/W/I (numerals), symbolic S/ctx, arbitrary chunk index"
                      : ", symbolic B/W/I/S/ctx, arbitrary chunk index");
    if (r.status == Status::unknown)
      r.detail = std::to_string(r.unknown_cases.size()) + " of " + std::to_string(r.cases) + " case(s) undecided";
    if (r.status == Status::unknown && r.cases_not_run > 0)
      r.detail = std::string(proc::interrupted() ? "interrupted" : "the run's time budget ran out") + ": " +
                 std::to_string(r.cases_not_run) + " of " + std::to_string(r.cases) + " case(s) not run" +
                 (r.unknown_cases.empty() ? "" : ", " + std::to_string(r.unknown_cases.size()) + " undecided");
    if (r.status == Status::proved && na_cases_[i] > 0)
      r.detail = std::to_string(na_cases_[i]) + " split case(s) not applicable";
  }

  const ProveOptions& opts_;
  std::vector<ProveResult> rows_;
  std::vector<TaskKey> tasks_;
  std::vector<std::size_t> task_row_;
  std::size_t next_ = 0;
  std::vector<int> na_cases_, bounded_cases_, absorbed_;
  std::vector<std::set<std::string>> methods_;
};

}  // namespace

int count_cases(const ProveOptions& opts) { return static_cast<int>(RowTable(opts).tasks().size()); }

std::vector<ProveResult> prove(const ProveOptions& opts) {
  RowTable table(opts);
  const int jobs = std::max(1, std::min<int>(opts.jobs, static_cast<int>(table.tasks().size())));
  const bool complete = detail::run_tasks(
      table.tasks(), opts, jobs, [&] { return table.next_task(); },
      [&](int ti, const TaskOutcome& o) { table.absorb(ti, o); }, [&](int ti) { return table.obsolete(ti); });
  return table.finish(!complete);
}

}  // namespace cp::smt

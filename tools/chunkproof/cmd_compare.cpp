// chunkproof compare: production-kernel results (python/chunkproof_runner) against an export's
// exact reference, and against each other: chunked vs unchunked with one kernel set, plan A vs
// plan B, kernel set vs kernel set. A plan that corrupts outputs is a finding on its own (its
// exact chunked reference differs from the unchunked one), and every chunked result is put
// against its own set's unchunked run by the chunk-corruption detector. The stages run top to
// bottom over one Run (compare_run.h); compare_report.cpp writes report.md, report.json, SVGs.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "reference/io/export.h"
#include "tools/chunkproof/cli.h"
#include "tools/chunkproof/compare_run.h"
#include "tools/chunkproof/json.h"

namespace cp::cli {

namespace cmd_compare {  // one per file: the unity build puts several files in one TU
namespace {

using compare::Loaded;
using compare::PlanCheck;
using compare::ResultRow;
using compare::Run;

constexpr const char* kCompareHelp =
    R"(usage: chunkproof compare EXPORT RESULT... [--out DIR] [--bound-rel X] [--bound-lse X] [--detector-ratio X]

EXPORT is a directory written by `chunkproof export`, each RESULT one written by the Python
runner (python3 -m chunkproof_runner run ...). Results may come from other exports of the same
batch (same ctx, q, seed, dims; another version, platform or DCP setting): every one is
measured against EXPORT's exact unchunked reference, which does not depend on the plan.

Plans: every export's plan (EXPORT's and each result's) is checked on its own: when its exact
chunked reference differs from the exact unchunked one (or its vLLM-style merge path yields
NaN), the plan corrupts outputs, a finding whatever the kernels' errors; the report names the
requests and tokens.

Per result: fp32 bit-equal and bf16-equal fractions, a bf16 ULP histogram, max/mean abs and
row-scaled rel error of out, LSE errors (finite pairs; -inf on both sides agrees; inf
mismatches and NaN counted), NaN/Inf counts, the kernel alone (each chunk's (out, lse) against
the CPU partial of the same workspace rows), and a pass/fail line against the kernel bound
(docs/kernels.md), and the kernel contracts K-1... (docs/kernels.md "Kernel contracts"): one
line per contract per result, holds / violated / not exercised by this export. Chunk-corruption detector: each chunked result against the unchunked result
of the same kernel set (run both modes: --mode chunked,unchunked), in units of that set's own
noise (its unchunked run against the exact reference), out and LSE; flagged past the ratio.
Pairs (found automatically; A is always a result on EXPORT's plan): chunked vs unchunked of one
kernel set, plan A vs plan B of one kernel set, kernel set vs kernel set.

  --out DIR            where report.md, report.json and the SVGs go (default compare-report)
  --bound-rel X        row-scaled relative bound on out (default 2^-6)
  --bound-lse X        absolute bound on the LSE (default 2^-6)
  --detector-ratio X   the detector's threshold, in units of the set's own noise (default 8)
  --format F           stdout: md (default), json (= --json), csv (one row per result and contract)

exit: 0 every plan exact, every result within the bound, not flagged, no contract violated; 1 a
finding (a plan that corrupts outputs, a result out of bound, flagged by the detector or
violating a kernel contract); 2 bad input
(unreadable files, a result of another batch, tensors of the wrong size).
)";

// The batch a result's outputs belong to: requests, seed and shape (not the plan).
nlohmann::json batch_of(const nlohmann::json& m) {
  nlohmann::json reqs = nlohmann::json::array();
  for (const auto& r : m.at("requests")) reqs.push_back({r.at("ctx"), r.at("q")});
  return {{"requests", reqs}, {"seed", m.at("seed")}, {"shape", m.at("shape")}};
}

std::string where_of(const nlohmann::json& m) {
  const auto& g = m.at("geometry");
  return m.value("version", "?") + " " + m.value("platform", "?") + " dcp=" + std::to_string(g.value("dcp", 0)) +
         " I=" + std::to_string(g.value("interleave", 0)) + (m.value("asserts", true) ? "" : " asserts=off");
}

// Stage 1: options. std::nullopt when help was printed.
std::optional<compare::Options> parse_options(Args args) {
  CLI::App app{kCompareHelp, "chunkproof compare"};
  configure(app);
  compare::Options o;
  app.add_option("dirs", o.dirs, "EXPORT then RESULT...")->required()->expected(2, 1 << 20);
  app.add_option("--out", o.outdir, "report folder")->capture_default_str();
  app.add_flag("--json", o.json, "one chunkproof.compare/2 object on stdout instead of the summary (docs/json.md)");
  app.add_option("--format", o.format, "stdout: md (the summary), json (as --json), csv (one row per result/contract)")
      ->check(CLI::IsMember({"md", "json", "csv"}));
  app.add_option("--bound-rel", o.bound.rel, "max relative error bound")->check(CLI::PositiveNumber);
  app.add_option("--bound-lse", o.bound.lse_abs, "max LSE abs error bound")->check(CLI::PositiveNumber);
  app.add_option("--detector-ratio", o.detector, "chunk-corruption threshold (x the set's noise)")
      ->check(CLI::PositiveNumber);
  if (!parse(app, args)) return std::nullopt;
  if (o.format == "json") o.json = true;
  if (o.json) o.format = "json";
  return o;
}

// The plan index of export `dir`, read once.
std::size_t plan_of(Run& run, const std::string& dir) {
  const auto canon = [](const std::string& d) { return std::filesystem::weakly_canonical(d).string(); };
  for (std::size_t i = 0; i < run.plans.size(); ++i)
    if (canon(run.plans[i].ex.dir) == canon(dir)) return i;
  io::Export ex = io::read_export(dir);
  for (std::size_t i = 0; i < run.plans.size(); ++i)  // the same case exported twice: one plan
    if (run.plans[i].case_line() == ex.manifest.value("case", "")) return i;
  run.plans.push_back({std::move(ex), {}});
  return run.plans.size() - 1;
}

std::vector<float> sized(const io::SafetensorsFile& f, const std::string& name, std::size_t n, const std::string& dir) {
  auto v = f.at(name).to_f32();
  if (v.size() != n)
    throw io::IoError(dir + ": '" + name + "' holds " + std::to_string(v.size()) + " values, the export's shape " +
                      std::to_string(n));
  return v;
}

// Stage 2: the reference export, every result and the export it ran on. Throws IoError.
void load(Run& run) {
  run.plans.push_back({io::read_export(run.opt.dirs[0]), {}});
  const auto& ref = run.ref();
  if (!ref.reference.has("out")) throw io::IoError(ref.dir + ": the export holds no reference (its assert fired)");
  run.heads = ref.manifest.at("shape").value("heads", 0);
  run.v_dim = ref.manifest.at("shape").value("v_dim", 0);
  const auto rows =
      static_cast<std::size_t>(ref.manifest.value("prefill_tokens", 0)) * static_cast<std::size_t>(run.heads);
  for (std::size_t i = 1; i < run.opt.dirs.size(); ++i) {
    Loaded l{io::read_result(run.opt.dirs[i]), 0, {}, {}, {}, {}};
    const std::string ed = l.r.info.value("export", "");
    if (!ed.empty() && std::filesystem::exists(ed + "/" + io::kManifestFile))
      l.plan = plan_of(run, ed);
    else if (l.r.info.value("case", "") == ref.manifest.value("case", ""))
      l.plan = 0;
    else
      throw io::IoError(l.r.dir + ": its export '" + ed + "' is not readable here");
    const auto& m = run.plans[l.plan].ex.manifest;
    if (batch_of(m) != batch_of(run.ref().manifest))
      throw io::IoError(l.r.dir + ": a result of another batch (requests, seed or shape differ from " + run.ref().dir +
                        ")");
    l.out = sized(l.r.tensors, "out", rows * static_cast<std::size_t>(run.v_dim), l.r.dir);
    l.lse = sized(l.r.tensors, "lse", rows, l.r.dir);
    l.where = where_of(m);
    l.label = l.set() + " " + l.mode() + ", " + m.value("version", "?") + " " + m.value("platform", "?") +
              " dcp=" + std::to_string(m.at("geometry").value("dcp", 0)) +
              " I=" + std::to_string(m.at("geometry").value("interleave", 0));
    run.res.push_back(std::move(l));
  }
}

// Stage 3: every export's plan on its own (exact chunked vs unchunked reference).
void check_plans(Run& run) {
  for (auto& p : run.plans) p.corruption = io::plan_corruption(p.ex);
}

// Stage 4: every result against the exact reference, the kernel alone, the bound.
void measure_results(Run& run) {
  const auto want = run.ref().reference.at("out").to_f32();
  const auto want_lse = run.ref().reference.at("lse").to_f32();
  for (const auto& l : run.res) {
    ResultRow row;
    row.out = io::compare_out(l.out, want, run.heads, run.v_dim);
    row.lse = io::compare_lse(l.lse, want_lse, run.heads);
    const auto& ex = run.plans[l.plan].ex;
    for (std::size_t c = 0; l.mode() == "chunked"; ++c) {
      const std::string on = "chunk." + std::to_string(c) + ".out", ln = "chunk." + std::to_string(c) + ".lse";
      if (!l.r.tensors.has(on) || !ex.reference.has(on)) break;
      if (!row.kernel_out) row.kernel_out.emplace();
      io::accumulate(*row.kernel_out,
                     io::compare_out(l.r.tensors.at(on).to_f32(), ex.reference.at(on).to_f32(), run.heads, run.v_dim));
      io::accumulate(row.kernel_lse,
                     io::compare_lse(l.r.tensors.at(ln).to_f32(), ex.reference.at(ln).to_f32(), run.heads));
    }
    row.within = io::within(row.out, row.lse, run.opt.bound);
    row.contracts = io::judge_contracts(
        {ex.manifest, l.r, ex.reference, l.out, l.lse, want, want_lse, run.heads, run.v_dim, run.opt.bound});
    row.plan_corrupts = l.mode() == "chunked" && run.plans[l.plan].corruption.corrupts();  // unchunked runs no plan
    run.rows.push_back(std::move(row));
  }
}

// The unchunked result a chunked one is measured against: the same kernel set on the same
// device, preferably on the same export (any export of the batch fetches the same rows).
std::optional<std::size_t> partner_of(const Run& run, std::size_t i) {
  const Loaded& c = run.res[i];
  std::optional<std::size_t> best;
  for (std::size_t j = 0; j < run.res.size(); ++j) {
    const Loaded& u = run.res[j];
    if (u.mode() != "unchunked" || u.set() != c.set() || u.device() != c.device()) continue;
    if (!best || (u.plan == c.plan && run.res[*best].plan != c.plan)) best = j;
  }
  return best;
}

// Stage 5: the chunk-corruption detector for every chunked result with a partner.
void detect(Run& run) {
  const auto& ref = run.ref().reference;
  const auto exact_out = ref.at("out").to_f32(), exact_lse = ref.at("lse").to_f32();
  const auto owners = io::token_owners(run.ref().manifest);
  for (std::size_t i = 0; i < run.res.size(); ++i) {
    if (run.res[i].mode() != "chunked") continue;
    const auto j = partner_of(run, i);
    if (!j) continue;
    const auto& c = run.res[i];
    const auto& u = run.res[*j];
    auto& row = run.rows[i];
    row.partner = j;
    row.det = io::detect_chunk_corruption({c.out, c.lse}, {u.out, u.lse}, {exact_out, exact_lse}, owners, run.heads,
                                          run.v_dim);
    row.flagged = row.det->flagged(run.opt.detector);
  }
}

// Stage 6: the verdict column: the worst thing first, every reason in parentheses.
void name_verdicts(Run& run) {
  for (std::size_t i = 0; i < run.rows.size(); ++i) {
    auto& row = run.rows[i];
    std::vector<std::string> why;
    if (row.plan_corrupts) why.push_back("exact reference differs");
    if (row.flagged) why.push_back("detector flags it");
    if (!row.within) why.push_back("out of bound");
    for (const auto& c : row.contracts)
      if (c.verdict == io::ContractVerdict::violated) why.push_back(c.id + " violated");
    std::string head = row.plan_corrupts         ? "CORRUPTING PLAN"
                       : row.flagged             ? "CHUNK CORRUPTION"
                       : !row.within             ? "OUT OF BOUND (kernel)"
                       : row.contract_violated() ? "KERNEL CONTRACT VIOLATED"
                                                 : "within bound";
    if (row.plan_corrupts || row.flagged || row.contract_violated()) {
      head += " (";
      for (std::size_t k = 0; k < why.size(); ++k) head += (k ? ", " : "") + why[k];
      head += ")";
    }
    row.verdict = head;
  }
}

// The runner's boundary options and merge kernel of a result: pairs put like against like.
std::string run_options(const Loaded& l) {
  const auto b = l.r.info.value("boundary", nlohmann::json::object());
  return b.value("empty_lse", "kernel") + "|" + b.value("v_layout", "dense") + "|" +
         l.r.info.value("merge_kernel", nlohmann::json::object()).value("id", "");
}

// Stage 7: pairs. Pairs across plans or sets start from the reference export's plan (one
// page, not n^2 rows), and pair only results run with the same boundary options and merge kernel.
void measure_pairs(Run& run) {
  for (std::size_t a = 0; a < run.res.size(); ++a)
    for (std::size_t b = a + 1; b < run.res.size(); ++b) {
      const Loaded &A = run.res[a], &B = run.res[b];
      if (A.plan != 0 || run_options(A) != run_options(B)) continue;
      const bool same_set = A.set() == B.set(), same_plan = A.plan == B.plan, same_mode = A.mode() == B.mode();
      std::string kind;
      if (same_set && same_plan && !same_mode)
        kind = "chunked vs unchunked";
      else if (same_set && same_mode && !same_plan)
        kind = "plan A vs plan B";
      else if (!same_set && same_plan && same_mode)
        kind = "kernel set vs kernel set";
      else
        continue;
      run.pairs.push_back({kind, a, b, io::compare_out(A.out, B.out, run.heads, run.v_dim),
                           io::compare_lse(A.lse, B.lse, run.heads),
                           "pair-" + std::to_string(a) + "-" + std::to_string(b) + ".svg"});
    }
}

}  // namespace
}  // namespace cmd_compare

std::string compare::Loaded::device() const {
  const auto env = r.info.value("environment", nlohmann::json::object());
  return env.is_object() ? env.value("device", "") : "";
}

bool compare::Run::finding() const {
  for (const auto& p : plans)
    if (p.corruption.corrupts()) return true;
  for (const auto& r : rows)
    if (r.finding()) return true;
  return false;
}

namespace cmd_compare {

// An unreadable or malformed export/result: exit 2, and the chunkproof.error/1 object under --json.
int input_error(const compare::Options& o, const std::string& what) {
  std::cerr << "chunkproof compare: " << what << "\n";
  if (o.json)
    print_json(std::cout, Json{{"schema", "chunkproof.error/1"},
                               {"command", "compare"},
                               {"exit_code", kExitUsage},
                               {"kind", "error"},
                               {"error", what}});
  return kExitUsage;
}

int compare_main(Args args) {
  Run run;
  auto opt = parse_options(args);
  if (!opt) return kExitOk;
  run.opt = std::move(*opt);
  require_writable_dir(run.opt.outdir, "--out");
  std::filesystem::create_directories(run.opt.outdir);
  try {
    load(run);
    check_plans(run);
    measure_results(run);
    detect(run);
    name_verdicts(run);
    measure_pairs(run);
    compare::write_report(run);
  } catch (const io::IoError& e) {
    return input_error(run.opt, e.what());
  } catch (const nlohmann::json::exception& e) {  // a manifest or result.json without a key we read
    return input_error(run.opt, std::string("malformed manifest or result.json: ") + e.what());
  }
  const int rc = run.finding() ? kExitFinding : kExitOk;
  if (run.opt.json) {
    compare::print_json_summary(run, rc);
    return rc;
  }
  if (run.opt.format == "csv") {
    compare::print_csv(run);
    return rc;
  }
  compare::print_summary(run);
  return rc;
}

namespace {
const RegisterCommand reg{"compare", "production-kernel results against an export's exact reference", compare_main};
}  // namespace
}  // namespace cmd_compare

}  // namespace cp::cli

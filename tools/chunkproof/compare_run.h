// The state `chunkproof compare`'s stages share (cmd_compare.cpp runs them top to bottom,
// compare_report.cpp writes what they found): the exports and results, each export's plan
// verdict, each result's numbers against the exact reference, the chunk-corruption detector of
// each chunked result against its own unchunked run, and the pairs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "reference/io/chunk_detector.h"
#include "reference/io/compare.h"
#include "reference/io/export.h"
#include "reference/io/kernel_contracts.h"
#include "reference/io/plan_corruption.h"

namespace cp::cli::compare {

struct Options {
  std::vector<std::string> dirs;  // EXPORT then RESULT...
  io::KernelBound bound;
  double detector = io::kDetectorThreshold;
  std::string outdir = "compare-report";
  bool json = false;          // --json: one chunkproof.compare/2 object instead of the summary
  std::string format = "md";  // --format md | json | csv: what goes to stdout (csv: one row per result/contract)
};

// An export and its plan's own verdict (plan_corruption): one per distinct export.
struct PlanCheck {
  io::Export ex;
  io::PlanCorruption corruption;
  std::string case_line() const { return ex.manifest.value("case", ""); }
};

// One result, the export it ran on and its outputs.
struct Loaded {
  io::RunResult r;
  std::size_t plan = 0;  // index into Run::plans
  std::vector<float> out, lse;
  std::string label;  // "<set> <mode>, <version> <platform> dcp=W I=I"
  std::string where;  // "<version> <platform> dcp=W I=I[ asserts=off]"
  std::string set() const { return r.info.value("kernel_set", "?"); }
  std::string mode() const { return r.info.value("mode", "?"); }
  std::string device() const;  // environment.device, "" when absent
};

struct ResultRow {
  io::OutStats out;
  io::LseStats lse;
  std::optional<io::OutStats> kernel_out;  // the kernel alone (chunked results)
  io::LseStats kernel_lse;
  bool within = true;                  // the kernel bound
  bool plan_corrupts = false;          // a chunked result whose plan corrupts outputs
  std::optional<io::Detection> det;    // chunked results with an unchunked run of the same set
  std::optional<std::size_t> partner;  // that unchunked result
  bool flagged = false;                // the detector flags its chunking
  std::string verdict;
  std::vector<io::ContractResult> contracts;  // the kernel contracts (kernel_contracts.h), one per row
  bool contract_violated() const {
    for (const auto& c : contracts)
      if (c.verdict == io::ContractVerdict::violated) return true;
    return false;
  }
  bool finding() const { return !within || plan_corrupts || flagged || contract_violated(); }
};

struct PairRow {
  std::string kind;
  std::size_t a = 0, b = 0;
  io::OutStats out;
  io::LseStats lse;
  std::string svg;
};

struct Run {
  Options opt;
  std::vector<PlanCheck> plans;  // plans[0]: EXPORT, the reference; then each result's export once
  std::vector<Loaded> res;
  std::vector<ResultRow> rows;  // one per result
  std::vector<PairRow> pairs;
  int heads = 0, v_dim = 0;
  const io::Export& ref() const { return plans.front().ex; }
  bool finding() const;  // any plan corrupts, any result out of bound or flagged
};

// compare_report.cpp: report.md, report.json, the SVGs into opt.outdir; the stdout summary
// (results table, pairs, one line per finding).
void write_report(const Run& run);
void print_summary(const Run& run);
// --json: schema chunkproof.compare/2 (docs/json.md): the findings, the report folder and the
// report.json document itself.
void print_json_summary(const Run& run, int exit_code);
// --format csv: one row per (result, contract) and one per result for the bound (issue 24).
void print_csv(const Run& run);

}  // namespace cp::cli::compare

// Shared pieces of the chunkproof CLI: the subcommand table, option parsing (CLI11), the flag
// vocabulary every command shares, case input, folders and resource limits.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "invariants/catalogue.h"
#include "reference/caseio/regression.h"
#include "reference/mla/check.h"
#include "tools/chunkproof/json.h"

namespace cp::cli {

// Exit codes, everywhere (DESIGN §8, README).
inline constexpr int kExitOk = 0;            // checked and holds
inline constexpr int kExitFinding = 1;       // a finding
inline constexpr int kExitUsage = 2;         // bad input or usage
inline constexpr int kExitInconclusive = 3;  // inconclusive (unknown, budget spent, interrupted)
inline constexpr int kExitCannotRun = 4;     // this machine cannot run it (no GPU, fuzzer build, solver)

// The worst of two exit codes: usage/cannot-run errors first, then a finding, inconclusive, ok.
int worst(int a, int b);

using Args = std::span<const std::string>;

struct Command {
  std::string_view name;
  std::string_view summary;
  std::function<int(Args)> run;
};
// Subcommands register themselves (one cmd_*.cpp per subcommand, compiled into the
// executable), so adding one touches no shared file.
std::vector<Command>& commands();
struct RegisterCommand {
  RegisterCommand(std::string_view name, std::string_view summary, std::function<int(Args)> run) {
    commands().push_back({name, summary, std::move(run)});
  }
};

// Bad input or usage: printed with a pointer to --help, exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// This machine cannot run the request (no GPU, no fuzzer build, no solver): exit 4.
struct CannotRun : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A subcommand's parser: `CLI::App app{description, "chunkproof <command>"}; configure(app,
// footer);`. CLI11 rejects unknown options, a single-valued option given twice and positional
// arguments nobody declared; -h/--help prints the generated help with `footer` below it.
void configure(CLI::App& app, std::string footer = {});
// Parses `args`. Returns false when help was printed (the command returns kExitOk); throws
// UsageError on any parse error.
bool parse(CLI::App& app, Args args);

// ---- the flag vocabulary -------------------------------------------------------------------
// Options that take versions / platforms / invariants take comma lists, may be repeated, accept
// `all` (platforms: `both` too); duplicates are removed in first-seen order; an empty selection
// is a usage error naming the option.
std::vector<Version> parse_versions(const std::vector<std::string>& words, std::string_view option);
std::vector<Platform> parse_platforms(const std::vector<std::string>& words, std::string_view option);
std::vector<InvariantId> parse_invariants(const std::vector<std::string>& words, std::string_view option);
// A repeatable option with one value per occurrence (`--case A --case B`): every value kept,
// in order; a stray word after it is an error, not a second value.
CLI::Option* add_list(CLI::App& app, const std::string& name, std::vector<std::string>& values, std::string what);
// "--jobs,--threads" (the alias kept), a positive count.
CLI::Option* add_jobs(CLI::App& app, int& jobs, std::string what);
// --progress (a live line on stderr even when stderr is not a terminal); without it progress is
// shown only on a terminal.
bool show_progress(bool forced);

// ---- cases ---------------------------------------------------------------------------------
struct CaseArgs {
  std::vector<std::string> cases;  // --case, repeatable
  std::string cases_file;          // --cases FILE|-
};
void add_case_options(CLI::App& app, CaseArgs& a);
// One input: the line, where it came from ("--case 2", "file.case:7"), its `# expect` lines.
struct CaseInput {
  std::string line;
  std::string origin;
  std::vector<Expectation> expects;
};
// Every case of --case and --cases, in order. Throws UsageError when none was given
// (`required`) or a file cannot be read; CaseError for a malformed expect line.
std::vector<CaseInput> collect_cases(const CaseArgs& a, bool required = true);
// One run of a case: the parsed case (version substituted for an expectation) and what it
// must give, if its input had `# expect` lines (one job per expect line).
struct CaseJob {
  Case c;
  std::string origin;
  std::optional<Expectation> expect;
};
// Parses every input up front (bad input exits 2 before any work), naming the origin of a bad
// line when there are several.
std::vector<CaseJob> parse_jobs(const std::vector<CaseInput>& inputs);
// Records of case files (`chunkproof replay`); "-" is stdin.
std::vector<CaseRecord> read_case_file(const std::string& path);

// ---- folders -------------------------------------------------------------------------------
// $XDG_CACHE_HOME/chunkproof/<sub>, else ~/.cache/chunkproof/<sub>; "" (and *warning set)
// when neither can be created and written.
std::string default_cache_dir(std::string_view sub, std::string* warning);
// Creates `dir` and checks that a file can be written in it; UsageError naming `option` if not.
void require_writable_dir(const std::string& dir, std::string_view option);
// Whether `dir` can be created and written (no exception).
bool writable_dir(const std::string& dir);

// ---- resources -----------------------------------------------------------------------------
// --max-memory BYTES (suffixes K, M, G accepted); default a quarter of physical memory.
CLI::Option* add_max_memory(CLI::App& app, std::uint64_t& bytes);
// Estimated peak bytes of running a case: the plan and token-level simulation, plus the
// numerics when `numerics`. Over `limit`: UsageError naming the keys that make it large.
void check_memory(const Case& c, bool numerics, std::uint64_t limit);

// ---- GPU -----------------------------------------------------------------------------------
// The GPU backend's entry points, installed by tools/chunkproof/stage_gpu.cpp when the build has
// one; empty otherwise (`--device gpu` then exits 4).
struct GpuCheckOptions {
  std::vector<Case> cases;
  bool quiet = false;
  bool json = false;
  int ranks = 0;             // > 0: DCP over this many GPUs (kernels/multi), one process per GPU
  double rank_timeout = 60;  // seconds a collective / a rank may stay silent
  long long random = 0;      // --random N with --ranks draws cases with dcp = ranks
  std::uint64_t seed = 1;
  int sample_heads = 0;  // sampled verification (the CPU reference for K heads)
  bool fast = false;     // --mode fast: up-projection on the matrix units, CPU compared within a bound
};
// What `export` takes from the GPU (kernels/harness/harness.h ExportReference, through the hook).
struct GpuExport {
  bool agree = true;
  std::string line;         // what was compared, or the first disagreement
  std::string device;       // the GPU's name and arch
  mla::CheckResult result;  // every head, the GPU's tensors (CheckResult layout, keep_outputs)
  std::vector<int> checked_heads;
  std::int64_t compared = 0;
  double cpu_seconds = 0, gpu_seconds = 0;
};
struct GpuHooks {
  std::function<int(const GpuCheckOptions&)> check;
  std::function<int(Args)> bench;
  // export's reference from the GPU exact path, cross-checked on sample_heads heads by the CPU.
  std::function<GpuExport(const Case&, int threads, int sample_heads)> export_reference;
  // Whether a usable GPU is present; *why says why not.
  std::function<bool(std::string* why)> available;
  std::string backend;  // "CUDA" / "HIP", or "" without a backend
};
GpuHooks& gpu_hooks();
[[noreturn]] void no_gpu_backend(std::string_view command);

}  // namespace cp::cli

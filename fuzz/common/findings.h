// What a fuzz target does with a planner finding: the finding's signature (the key the
// campaign runner de-duplicates by), the run-time choice between "expected correct" (a
// violation is a crash) and "under investigation" (a violation is a recorded finding), and
// the on-disk record the campaign runner collects.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "invariants/catalogue.h"

namespace cp::fuzz {

// "v1-dcp/rocm assert[plan]: max_context_chunk % dcp_world_size == 0" or
// "v2-interleave/cuda violation: I-6,I-9" — version, platform, kind and cause. Empty when
// the evaluation is ok.
std::string signature(const Evaluation& ev);
// The invariant a finding is filed under: the assert's invariant family is not known to the
// planner, so asserts report "assert"; violations report their first violated invariant.
std::string primary_invariant(const Evaluation& ev);
// A file-name-safe form of a signature, with a short hash so distinct signatures never collide.
std::string slug(std::string_view signature);
std::uint64_t fnv1a(std::string_view s);

// Run-time configuration of the planner target, from the environment:
//   CHUNKPROOF_FUZZ_EXPECT_CORRECT  versions whose violations crash (default v5-packed,v6-current;
//                                   "none" for none)
//   CHUNKPROOF_FUZZ_FINDINGS_DIR    where findings of versions under investigation are written
//   CHUNKPROOF_PRINT_CASE=1         print every input's case line and verdict (stdout)
//   CHUNKPROOF_FUZZ_QUIET=1         do not print findings to stderr
//   CHUNKPROOF_FUZZ_DIFFERENTIAL=1  also run every expected-correct version on each case
//   CHUNKPROOF_FUZZ_STOP_ON         crash on the first finding whose tags contain these
//                                   '&'-separated substrings (judge.h), e.g. "I-6&interleave>1"
struct TargetConfig {
  std::vector<Version> expect_correct;
  std::string findings_dir;
  bool print_case = false;
  bool quiet = false;
  bool differential = false;
  std::string stop_on;
  bool expected_correct(Version v) const;
  static TargetConfig from_env();
};

// Records each signature once per process: one stderr line and, with a findings directory,
// one file <dir>/<slug>.case (written to a temporary name and renamed, so a killed run never
// leaves half a file). The file holds "# signature: ..." and the case line.
class FindingSink {
 public:
  explicit FindingSink(const TargetConfig& cfg) : cfg_(cfg) {}
  void record(const std::string& sig, const std::string& case_line, const std::string& detail);
  std::size_t distinct() const { return seen_.size(); }
  bool seen(const std::string& sig) const { return seen_.count(sig) != 0; }

 private:
  const TargetConfig& cfg_;
  std::set<std::string> seen_;
};

// Aborts with a stack frame that depends on the signature, so libFuzzer's crash
// de-duplication (by the top frames) keeps distinct findings apart. Prints the case line first.
[[noreturn]] void crash_for(const std::string& sig, const std::string& case_line, const std::string& detail);

// Counts one execution. With CHUNKPROOF_FUZZ_EXEC_LOG set, every 1024 executions and at exit
// the process appends "<count>\n" to that file (one short O_APPEND write: atomic between
// processes), so the campaign runner can sum executions over libFuzzer's fork-mode jobs, whose
// parent reports them only now and then.
void count_execution();

// Writes `data` to `path` atomically (temporary file in the same directory + rename).
bool write_file_atomic(const std::string& path, std::string_view data);

}  // namespace cp::fuzz

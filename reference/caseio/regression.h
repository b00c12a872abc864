// Case files: the one reader and writer of the `.case` format that regression files, fuzz
// findings, prover counterexamples and `--cases FILE` share.
//
//   # bug: <what broke>
//   # invariant: I-6
//   # expect v2-interleave: ok | assert | crash | violation I-6,I-9
//   version=v2-interleave platform=rocm ... ctx=30000,100,100 q=16,16,16
//
// A file holds one or more records: '#' header lines, then one case line that closes the
// record. `# expect <version>: ...` lines are expectations for the case line with `version=`
// replaced; other `# key: value` lines are kept as the header. Blank lines and '#' lines that
// are neither are ignored. Expectations are text here; invariants/expect.h matches them
// against an evaluation.
#pragma once

#include <istream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/caseio/case.h"

namespace cp {

enum class ExpectedOutcome { ok, assert_fired, crashed, violation };

struct Expectation {
  Version version = Version::v6_current;
  ExpectedOutcome outcome = ExpectedOutcome::ok;
  std::vector<std::string> invariants;  // tags ("I-6") for ExpectedOutcome::violation
  friend bool operator==(const Expectation&, const Expectation&) = default;
};

struct CaseRecord {
  std::vector<std::pair<std::string, std::string>> header;  // "# key: value", in file order
  std::vector<Expectation> expects;
  std::string line;                                      // the case line, trimmed
  std::string origin;                                    // "<file>:<line number>" of the case line
  std::string header_value(std::string_view key) const;  // "" when absent
  // The case line with `version=` replaced (validated).
  Case case_for(Version v) const;
};

// "# expect v6-current: violation I-6,I-9" -> Expectation. Throws CaseError naming `expect`.
Expectation parse_expect_line(std::string_view text);
// The inverse: "# expect v6-current: violation I-6,I-9".
std::string print_expect_line(const Expectation& e);

// Every record of a case file or stream. `name` is used in origins and messages. Throws
// CaseError on a malformed `# expect` line (the case line itself is parsed by the caller).
std::vector<CaseRecord> read_case_records(std::istream& in, const std::string& name);
std::vector<CaseRecord> read_case_records_text(const std::string& text, const std::string& name);
// One record from the whole text: every header and expect line, the case line ("" when the
// text has none). Throws CaseError on a malformed expect line or a second case line.
CaseRecord read_case_record_text(const std::string& text, const std::string& name);
// A regression file: exactly one record. Throws std::runtime_error when the file cannot be
// read or holds no or several case lines.
CaseRecord read_regression_file(const std::string& path);

// The text of one record: header lines, expect lines, the case line, newline-terminated.
std::string print_case_record(const CaseRecord& r);

}  // namespace cp

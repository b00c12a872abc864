// The one case-file module (reference/caseio/regression.h) and its matcher (invariants/expect.h).
#include <gtest/gtest.h>

#include "invariants/expect.h"
#include "reference/caseio/regression.h"

namespace cp {
namespace {

constexpr const char* kMi300x =
    "version=v1-dcp platform=rocm workspace=65536 block=64 dcp=8 interleave=1 ctx=30000,30000,30000 q=16,16,16";

TEST(CaseRecords, ExpectLinesRoundTrip) {
  for (const char* line :
       {"# expect v1-dcp: assert", "# expect v6-current: ok", "# expect v2-interleave: violation I-6,I-9"})
    EXPECT_EQ(print_expect_line(parse_expect_line(line)), line);
  const Expectation e = parse_expect_line("#   expect v2-interleave:  violation I-6, I-9 ");
  EXPECT_EQ(e.outcome, ExpectedOutcome::violation);
  EXPECT_EQ(e.invariants, (std::vector<std::string>{"I-6", "I-9"}));
}

TEST(CaseRecords, MalformedExpectNamesTheKey) {
  for (const char* line : {"# expect v9-nope: ok", "# expect v1-dcp ok", "# expect v1-dcp: maybe"}) {
    try {
      parse_expect_line(line);
      ADD_FAILURE() << line;
    } catch (const CaseError& e) {
      EXPECT_EQ(e.key, "expect") << line;
    }
  }
}

TEST(CaseRecords, ManyRecordsAttachHeadersToTheNextCaseLine) {
  const auto rs = read_case_records_text(std::string("# bug: one\n# expect v1-dcp: assert\n") + kMi300x +
                                             "\n\n# a plain comment\n" + kMi300x + "\n# trailing\n",
                                         "f");
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].header_value("bug"), "one");
  EXPECT_EQ(rs[0].expects.size(), 1u);
  EXPECT_EQ(rs[0].origin, "f:3");
  EXPECT_TRUE(rs[1].expects.empty());
  EXPECT_EQ(rs[1].origin, "f:6");
}

TEST(CaseRecords, OneRecordKeepsATrailingBlockAndPrintsBack) {
  const CaseRecord r = read_case_record_text(std::string("# bug: x\n") + kMi300x + "\n# expect v6-current: ok\n", "f");
  EXPECT_EQ(r.line, kMi300x);
  ASSERT_EQ(r.expects.size(), 1u);
  EXPECT_EQ(print_case_record(r), std::string("# bug: x\n# expect v6-current: ok\n") + kMi300x + "\n");
  EXPECT_TRUE(read_case_record_text("# kind: crash\n", "f").line.empty());
  EXPECT_THROW(read_case_record_text(std::string(kMi300x) + "\n" + kMi300x + "\n", "f"), CaseError);
}

TEST(CaseRecords, ExpectationsMatchEvaluations) {
  const CaseRecord r =
      read_case_record_text(std::string("# expect v1-dcp: assert\n# expect v6-current: ok\n") + kMi300x, "f");
  for (const auto& e : r.expects) {
    const Evaluation ev = evaluate(r.case_for(e.version));
    EXPECT_TRUE(meets(ev, e)) << verdict_text(e);
    EXPECT_EQ(expectation_of(ev), e);
  }
  EXPECT_FALSE(meets(evaluate(r.case_for(Version::v1_dcp)), parse_expect_line("# expect v1-dcp: ok")));
  EXPECT_THROW(meets(evaluate(r.case_for(Version::v1_dcp)), parse_expect_line("# expect v1-dcp: violation I-99")),
               CaseError);
}

}  // namespace
}  // namespace cp

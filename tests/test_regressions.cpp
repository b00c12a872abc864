// Replays corpus/regressions/*.case: every known bug, with the verdict each planner version
// must give (legacy versions still fail where they fail; v5/v6 pass).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "invariants/catalogue.h"
#include "invariants/expect.h"
#include "reference/caseio/regression.h"

namespace cp {
namespace {

std::vector<std::filesystem::path> regression_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(CHUNKPROOF_SOURCE_DIR) / "corpus" / "regressions"))
    if (e.path().extension() == ".case") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

class Regression : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(Regression, EveryVersionGivesItsExpectedVerdict) {
  const CaseRecord rf = read_regression_file(GetParam().string());
  ASSERT_FALSE(rf.expects.empty()) << GetParam() << " has no '# expect' line";
  for (const auto& ex : rf.expects) {
    const Evaluation ev = evaluate(rf.case_for(ex.version));
    const std::string where = GetParam().filename().string() + " [" + std::string(name(ex.version)) + "] " +
                              print_case(ev.c);
    EXPECT_TRUE(meets(ev, ex)) << where << ": expected " << verdict_text(ex) << ", got "
                               << verdict_text(expectation_of(ev));
  }
}

// The '# invariant:' header names the invariant the bug breaks: it must be violated for at
// least one expected version (whatever the outcome: an assert that fires still leaves the plan
// checked), or the header says 'none' (with the reason after it).
TEST_P(Regression, InvariantHeaderIsViolatedByAnExpectedVersion) {
  const CaseRecord rf = read_regression_file(GetParam().string());
  std::string header;
  for (const auto& [k, v] : rf.header)
    if (k == "invariant") header = v;
  while (!header.empty() && std::isspace(static_cast<unsigned char>(header.front()))) header.erase(header.begin());
  ASSERT_FALSE(header.empty()) << GetParam() << " has no '# invariant:' header";
  if (header.rfind("none", 0) == 0) return;
  const std::string tag = header.substr(0, header.find_first_of(" \t(,"));
  InvariantId id{};
  ASSERT_TRUE(parse_invariant(tag, id)) << GetParam() << ": unknown invariant '" << tag << "'";
  bool seen = false;
  for (const auto& ex : rf.expects) seen = seen || evaluate(rf.case_for(ex.version)).violated(id);
  EXPECT_TRUE(seen) << GetParam() << ": no expected version violates " << tag;
}

INSTANTIATE_TEST_SUITE_P(Corpus, Regression, ::testing::ValuesIn(regression_files()), [](const auto& param_info) {
  std::string n = param_info.param.stem().string();
  for (auto& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});

}  // namespace
}  // namespace cp

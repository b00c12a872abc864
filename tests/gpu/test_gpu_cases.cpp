// `check --device gpu` stopped by Ctrl-C or SIGTERM (issue 24 item 4): the host loop the GPU
// path runs (tools/chunkproof/gpu_cases.h) reports the cases so far and exits 3. No GPU here:
// a stand-in runner plays the GPU case and raises the signal; the CPU-reference leg inside a
// case is the real mla::run_check with the same stop poll as kernels/harness/check.cpp.
#include <gtest/gtest.h>

#include <csignal>
#include <sstream>

#include "reference/caseio/case.h"
#include "reference/mla/check.h"
#include "reference/proc/interrupt.h"
#include "tools/chunkproof/gpu_cases.h"

namespace cp::cli {
namespace {

GpuCheckOptions four_cases(bool json = false) {
  GpuCheckOptions o;
  for (int i = 0; i < 4; ++i)
    o.cases.push_back(
        parse_case("version=v6-current platform=cuda workspace=4096 block=16 dcp=2 interleave=1 ctx=40,30 q=3,2"));
  o.json = json;
  return o;
}
const GpuDevice kDevice{"stand-in", "none", "test"};
GpuCaseOutcome identical() { return {true, "exact: chunked == unchunked (bits), GPU == CPU"}; }

TEST(GpuCheckInterrupt, SigintDuringACaseStopsBeforeTheNextAndExits3) {
  std::ostringstream out;
  int calls = 0;
  const int rc = run_gpu_cases(
      four_cases(), kDevice,
      [&](const Case&, std::size_t i) {
        ++calls;
        if (i == 1) std::raise(SIGINT);  // Ctrl-C while case 2 runs
        return identical();
      },
      out);
  EXPECT_EQ(rc, 3) << out.str();
  EXPECT_EQ(calls, 2);  // case 2 finished, cases 3 and 4 never started
  EXPECT_NE(out.str().find("interrupted (SIGINT) after 2 of 4 cases"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("gpu check: 2 cases, 2 chunked == unchunked"), std::string::npos) << out.str();
}

TEST(GpuCheckInterrupt, SigtermInsideTheCpuReferenceDropsThatCase) {
  std::ostringstream out;
  const int rc = run_gpu_cases(
      four_cases(), kDevice,
      [&](const Case& c, std::size_t i) {
        if (i == 0) return identical();
        std::raise(SIGTERM);
        // check_one's CPU leg: the same options kernels/harness/check.cpp sets.
        mla::CheckOptions co;
        co.stop = [] { return proc::interrupted(); };
        (void)mla::run_check(c, co);  // throws mla::CheckStopped
        ADD_FAILURE() << "run_check did not see the interrupt";
        return identical();
      },
      out);
  EXPECT_EQ(rc, 3) << out.str();
  EXPECT_NE(out.str().find("interrupted (SIGTERM) after 1 of 4 cases"), std::string::npos) << out.str();
}

TEST(GpuCheckInterrupt, ADisagreementBeforeTheInterruptStaysAFinding) {
  std::ostringstream out;
  const int rc = run_gpu_cases(
      four_cases(true), kDevice,
      [&](const Case&, std::size_t i) {
        if (i == 0) return GpuCaseOutcome{false, "exact: GPU != CPU at element 7"};
        std::raise(SIGINT);
        return identical();
      },
      out);
  EXPECT_EQ(rc, 1) << out.str();
  const std::string s = out.str();
  EXPECT_NE(s.find("\"checked\":2"), std::string::npos) << s;
  EXPECT_NE(s.find("\"interrupted\":true"), std::string::npos) << s;
  EXPECT_NE(s.find("\"disagreements\":1"), std::string::npos) << s;
}

TEST(GpuCheckInterrupt, NoSignalRunsEveryCaseAndExits0) {
  std::ostringstream out;
  int calls = 0;
  const int rc = run_gpu_cases(
      four_cases(), kDevice,
      [&](const Case&, std::size_t) {
        ++calls;
        return identical();
      },
      out);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(out.str().find("interrupted"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace cp::cli

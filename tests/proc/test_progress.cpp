// The progress line's text (reference/proc/progress.h, issue 24 item 4): the estimate is the rate
// so far applied to what is left, capped by a time budget; a finished count estimates nothing.
#include <gtest/gtest.h>

#include "reference/proc/progress.h"

namespace cp::proc {
namespace {

TEST(ProgressText, EstimateIsTheRateSoFarAppliedToWhatIsLeft) {
  // 10 of 40 in 5 s: 2 per second, 30 left -> 15 s.
  EXPECT_EQ(progress_text(10, 40, "cases", 5.0), "10/40 cases (25%), 5.0 s, about 15 s left");
  EXPECT_EQ(progress_text(1, 121, "cases", 1.0), "1/121 cases (0%), 1.0 s, about 2 min 0 s left");
}

TEST(ProgressText, ABudgetCapsTheEstimate) {
  // The rate says 15 s, the budget leaves 3 s: the work stops there.
  EXPECT_EQ(progress_text(10, 40, "cases", 5.0, 8.0), "10/40 cases (25%), 5.0 s, at most 3.0 s left");
  // The rate is sooner than the budget: the rate.
  EXPECT_EQ(progress_text(10, 40, "cases", 5.0, 600.0), "10/40 cases (25%), 5.0 s, about 15 s left");
  // Nothing done yet: only the budget can say anything.
  EXPECT_EQ(progress_text(0, 40, "cases", 0.5, 600.0), "0/40 cases (0%), 0.5 s, at most 9 min 59 s left");
  EXPECT_EQ(progress_text(0, 40, "cases", 0.5), "0/40 cases (0%), 0.5 s");
}

TEST(ProgressText, AFinishedCountEstimatesNothingEvenWithABudget) {
  EXPECT_EQ(progress_text(40, 40, "cases", 12.0, 600.0), "40/40 cases (100%), 12 s");
}

TEST(ProgressText, UnknownTotalShowsTheCountOnly) {
  EXPECT_EQ(progress_text(7, 0, "batches", 2.0), "7 batches, 2.0 s");
  EXPECT_EQ(progress_text(7, 0, "batches", 2.0, 10.0), "7 batches, 2.0 s, at most 8.0 s left");
}

}  // namespace
}  // namespace cp::proc

#include "pipeline/budget.h"

#include <gtest/gtest.h>

namespace kforge::pipeline {
namespace {

TEST(Budget, NoLimitsNeverStop) {
  Budget budget({}, [] { return 0.0; });
  budget.add_tokens(1'000'000);
  budget.add_candidate();
  EXPECT_FALSE(budget.exhausted());
  EXPECT_FALSE(budget.candidates_exhausted());
}

TEST(Budget, EachLimitSaysWhy) {
  double now = 100;
  Budget budget(
      {1000, 2, 60}, [&] { return now; }, 10);
  budget.add_tokens(999);
  EXPECT_FALSE(budget.exhausted());
  budget.add_tokens(1);
  EXPECT_EQ(budget.exhausted(), "token budget of 1000 spent (1000 used)");

  Budget timed(
      {0, 0, 60}, [&] { return now; }, 10);
  now = 149;
  EXPECT_FALSE(timed.exhausted());
  now = 150;  // 10 s from an earlier process + 50 s now
  EXPECT_EQ(timed.exhausted(), "time limit of 60 s reached (60 s elapsed)");

  Budget counted({0, 2, 0}, [] { return 0.0; });
  counted.add_candidate();
  EXPECT_FALSE(counted.candidates_exhausted());
  counted.add_candidate();
  EXPECT_FALSE(counted.exhausted());  // model calls that make no candidate may still run
  EXPECT_EQ(counted.candidates_exhausted(), "candidate limit of 2 reached");
}

}  // namespace
}  // namespace kforge::pipeline

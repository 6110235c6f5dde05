#include "suite/suite_progress.h"

#include <gtest/gtest.h>

namespace kforge::suite {
namespace {

TEST(SuiteProgress, CountsEtaAndSpend) {
  double now = 100;
  std::vector<std::string> lines;
  SuiteProgress progress(
      nullptr, false, 10, 2, 1, 2, [&] { return now; },
      [&](std::string_view line) { lines.emplace_back(line); });
  EXPECT_LT(progress.eta_s(), 0);  // nothing finished here yet
  progress.task_started("a");
  progress.task_started("b");
  EXPECT_EQ(progress.status_line(),
            "suite: 2/10 done, 2 running, 1 failed, 6 left | elapsed 0s | ETA ?");
  now = 130;
  progress.task_finished("a", "ok", true, 30, 0, 0);
  progress.task_finished("b", "wrong_output", false, 10, 0, 0);
  progress.add_spend(12000, 0.42);
  // 20 s per task on average, 6 left over 2 slots: 60 s.
  EXPECT_DOUBLE_EQ(progress.eta_s(), 60);
  EXPECT_EQ(progress.status_line(),
            "suite: 4/10 done, 0 running, 2 failed, 6 left | elapsed 30s | ETA 1m00s | spent "
            "12000 tokens, $0.42");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "[   30.0s] b: wrong_output (10.0 s) [4/10]");
}

TEST(FormatDuration, Units) {
  EXPECT_EQ(format_duration(12.4), "12s");
  EXPECT_EQ(format_duration(245), "4m05s");
  EXPECT_EQ(format_duration(3720), "1h02m");
  EXPECT_EQ(format_duration(-1), "?");
}

}  // namespace
}  // namespace kforge::suite

#include "pipeline/console_view.h"

#include <gtest/gtest.h>

#include <vector>

namespace kforge::pipeline {
namespace {

TEST(ConsoleView, LogsWithElapsedTimeAndTracksTheStatus) {
  std::vector<std::string> lines;
  double now = 10;
  ConsoleView view(
      nullptr, false, [&](std::string_view line) { lines.emplace_back(line); },
      [&] { return now; });
  now = 22.5;
  view.log("#3 repair: ok");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "[   12.5s] #3 repair: ok");
  view.set_phase("seeds");
  view.model_started();
  view.model_started();
  view.eval_started();
  view.set_best("#3 score 1.37");
  view.set_tokens(1234);
  EXPECT_EQ(view.status_line(),
            "seeds | model calls 2 | evaluations 1 | best #3 score 1.37 | tokens 1234");
  view.streaming(300, 42);
  EXPECT_NE(view.status_line().find("streaming 300 tok at 42 tok/s"), std::string::npos);
  view.model_finished();
  view.eval_finished();
  EXPECT_EQ(view.status_line(),
            "seeds | model calls 1 | evaluations 0 | best #3 score 1.37 | tokens 1234");
}

}  // namespace
}  // namespace kforge::pipeline

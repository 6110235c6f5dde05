#include "suite/fast_p.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kforge::suite {
namespace {

TaskResult timed(std::string id, double best, double eager, std::optional<double> compile) {
  TaskResult t;
  t.id = std::move(id);
  t.status = "ok";
  t.best_ms = best;
  t.eager_ms = eager;
  t.compile_ms = compile;
  return t;
}

TaskResult failed(std::string id, std::string status) {
  TaskResult t;
  t.id = std::move(id);
  t.status = std::move(status);
  return t;
}

/// Five tasks: speed-ups over eager 2.0, 0.5, 1.2 (correct); a wrong one; a missing one.
std::vector<TaskResult> synthetic() {
  return {timed("a", 5, 10, 4), timed("b", 10, 5, 5), timed("c", 10, 12, std::nullopt),
          failed("d", "wrong_output"), failed("e", "missing")};
}

TEST(FastP, CountsCorrectAndFasterOverAllTasks) {
  auto tasks = synthetic();
  EXPECT_EQ(fast_p(tasks, "eager", 0).count, 3);
  EXPECT_DOUBLE_EQ(*fast_p(tasks, "eager", 0).fraction, 0.6);
  EXPECT_DOUBLE_EQ(*fast_p(tasks, "eager", 1).fraction, 0.4);    // 2.0 and 1.2
  EXPECT_DOUBLE_EQ(*fast_p(tasks, "eager", 1.5).fraction, 0.2);  // 2.0
  EXPECT_DOUBLE_EQ(*fast_p(tasks, "eager", 2).fraction, 0.0);    // strictly greater than p
  EXPECT_DOUBLE_EQ(*fast_p(tasks, "eager", 4).fraction, 0.0);
  EXPECT_EQ(fast_p(tasks, "eager", 1).total, 5);
}

TEST(FastP, ABaselineNotTimedForATaskDoesNotCountItAboveZero) {
  auto tasks = synthetic();
  // compile: a 4/5 = 0.8 (slower), b 5/10 = 0.5, c has no compile time.
  EXPECT_DOUBLE_EQ(*fast_p(tasks, "compile", 0).fraction, 0.6);
  EXPECT_DOUBLE_EQ(*fast_p(tasks, "compile", 0.7).fraction, 0.2);
  EXPECT_DOUBLE_EQ(*fast_p(tasks, "compile", 1).fraction, 0.0);
  // No task was timed against CUDA graphs: unranked above 0, never a made-up 0.
  EXPECT_FALSE(fast_p(tasks, "cuda_graph", 1).fraction.has_value());
  EXPECT_DOUBLE_EQ(*fast_p(tasks, "cuda_graph", 0).fraction, 0.6);
}

TEST(FastP, WithoutTimingsOnlyFastZeroIsANumber) {
  std::vector<TaskResult> cpu = {failed("a", "ok"), failed("b", "ok"), failed("c", "rejected")};
  EXPECT_FALSE(has_timings(cpu));
  EXPECT_NEAR(*fast_p(cpu, "eager", 0).fraction, 2.0 / 3, 1e-12);
  for (double p : {1.0, 1.5, 2.0, 4.0}) EXPECT_FALSE(fast_p(cpu, "eager", p).fraction);
  EXPECT_FALSE(geomean_speedup(cpu, "eager").value);
  EXPECT_TRUE(fast_p_curve(cpu, "eager").empty());
}

TEST(FastP, GeometricMeanOverCorrectTimedTasks) {
  auto tasks = synthetic();
  GeoMean g = geomean_speedup(tasks, "eager");
  EXPECT_EQ(g.tasks, 3);
  EXPECT_NEAR(*g.value, std::cbrt(2.0 * 0.5 * 1.2), 1e-12);
  EXPECT_EQ(geomean_speedup(tasks, "compile").tasks, 2);
}

TEST(FastP, CurveStepsDownAtEachSpeedup) {
  auto curve = fast_p_curve(synthetic(), "eager");
  ASSERT_FALSE(curve.empty());
  EXPECT_EQ(curve.front(), (std::pair<double, double>{0.0, 0.6}));
  EXPECT_EQ(curve.back(), (std::pair<double, double>{4.0, 0.0}));
  // The curve agrees with fast_p between its steps.
  for (double p : {0.25, 0.75, 1.1, 1.6, 3.0}) {
    double expected = *fast_p(synthetic(), "eager", p).fraction;
    double value = curve.front().second;
    for (const auto& [x, y] : curve)
      if (x <= p) value = y;
    EXPECT_DOUBLE_EQ(value, expected) << "p = " << p;
  }
}

TEST(TaskResultSpeedup, NeedsCorrectnessAndBothTimes) {
  TaskResult t = timed("a", 5, 10, std::nullopt);
  EXPECT_DOUBLE_EQ(*t.speedup("eager"), 2.0);
  EXPECT_FALSE(t.speedup("compile"));
  EXPECT_FALSE(t.speedup("nonsense"));
  t.status = "wrong_output";
  EXPECT_FALSE(t.speedup("eager"));
}

}  // namespace
}  // namespace kforge::suite

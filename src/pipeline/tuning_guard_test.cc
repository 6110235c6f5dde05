#include "pipeline/tuning_guard.h"

#include <gtest/gtest.h>

namespace kforge::pipeline {
namespace {

Candidate with(bool persistent, std::string complexity, std::string grid_rule = "") {
  Candidate c;
  c.id = 5;
  c.report = analysis::Report{};
  c.report->persistent = persistent;
  if (!grid_rule.empty())
    c.report->diagnostics.push_back({grid_rule, analysis::Severity::kWarning, {}, "m", "h"});
  if (!complexity.empty()) {
    c.diagnosis = AnalysisDiagnosis{};
    c.diagnosis->implementation_complexity = complexity == "high"         ? Complexity::kHigh
                                             : complexity == "persistent" ? Complexity::kPersistent
                                                                          : Complexity::kLow;
    c.diagnosis->optimisation_method = "Winograd F(2x2,3x3)";
  }
  return c;
}

TEST(DecideTuning, PlainKernelsGetAllThreeStages) {
  GuardDecision d = decide_tuning(with(false, "low"), true);
  EXPECT_EQ(d.run, tuning_stages());
  EXPECT_TRUE(d.reason.empty());
}

TEST(DecideTuning, PersistentKernelsGetParameterOnlyTuning) {
  GuardDecision d = decide_tuning(with(true, ""), true);
  EXPECT_EQ(d.run, (std::vector<std::string>{"tune_grid", "tune_tiling"}));
  EXPECT_TRUE(d.adapt);
  EXPECT_EQ(d.reason,
            "#5 is a persistent kernel (kernel analysis: persistent): tuning parameters only "
            "(launch configuration, block sizes, num_warps, num_stages) with the time loop kept "
            "inside the kernel; skipping memory tuning, which rewrites the design");
  GuardDecision by_diagnosis = decide_tuning(with(false, "persistent"), true);
  EXPECT_EQ(by_diagnosis.run, (std::vector<std::string>{"tune_grid", "tune_tiling"}));
  EXPECT_TRUE(by_diagnosis.adapt);
}

TEST(DecideTuning, HighComplexitySkipsEverything) {
  GuardDecision d = decide_tuning(with(false, "high"), true);
  EXPECT_TRUE(d.run.empty());
  EXPECT_NE(d.reason.find("Winograd"), std::string::npos);
}

TEST(DecideTuning, APersistentKernelWithAGridProblemNamesIt) {
  GuardDecision d = decide_tuning(with(true, "", "batch-only-grid"), true);
  EXPECT_EQ(d.run, (std::vector<std::string>{"tune_grid", "tune_tiling"}));
  EXPECT_TRUE(d.adapt);
  EXPECT_NE(d.reason.find("and analysis reports batch-only-grid: tuning parameters only"),
            std::string::npos)
      << d.reason;
}

TEST(DecideTuning, DisabledGuardTunesAnyway) {
  EXPECT_EQ(decide_tuning(with(true, "high"), false).run, tuning_stages());
}

}  // namespace
}  // namespace kforge::pipeline

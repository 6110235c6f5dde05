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
    c.diagnosis = llm::AnalysisDiagnosis{};
    c.diagnosis->implementation_complexity = complexity == "high" ? llm::Complexity::kHigh
                                             : complexity == "persistent"
                                                 ? llm::Complexity::kPersistent
                                                 : llm::Complexity::kLow;
    c.diagnosis->optimisation_method = "Winograd F(2x2,3x3)";
  }
  return c;
}

TEST(DecideTuning, PlainKernelsGetAllThreeStages) {
  GuardDecision d = decide_tuning(with(false, "low"), true);
  EXPECT_EQ(d.run, tuning_stages());
  EXPECT_TRUE(d.reason.empty());
}

TEST(DecideTuning, PersistentKernelsSkipTuning) {
  GuardDecision d = decide_tuning(with(true, ""), true);
  EXPECT_TRUE(d.run.empty());
  EXPECT_NE(d.reason.find("#5 is a persistent kernel (kernel analysis: persistent)"),
            std::string::npos)
      << d.reason;
  EXPECT_TRUE(decide_tuning(with(false, "persistent"), true).run.empty());
}

TEST(DecideTuning, HighComplexitySkipsEverything) {
  GuardDecision d = decide_tuning(with(false, "high"), true);
  EXPECT_TRUE(d.run.empty());
  EXPECT_NE(d.reason.find("Winograd"), std::string::npos);
}

TEST(DecideTuning, APersistentKernelWithAGridProblemKeepsAnAdaptedGridStage) {
  GuardDecision d = decide_tuning(with(true, "", "batch-only-grid"), true);
  EXPECT_EQ(d.run, std::vector<std::string>{"tune_grid"});
  EXPECT_TRUE(d.adapt);
}

TEST(DecideTuning, DisabledGuardTunesAnyway) {
  EXPECT_EQ(decide_tuning(with(true, "high"), false).run, tuning_stages());
}

}  // namespace
}  // namespace kforge::pipeline

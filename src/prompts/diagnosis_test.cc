#include "prompts/diagnosis.h"

#include <gtest/gtest.h>

namespace kforge::prompts {
namespace {

TEST(ParseDiagnosis, ReadsAFencedObjectWithTheSeedsSpelling) {
  std::string reply = R"(Analysis:
```json
{"worth_optimizing": "yes", "reason": "launch bound",
 "bottleneck": "6150 launches", "optimisation method": "persistent kernel",
 "modification_plan": "move the time loop into the kernel", "expected_speedup": "5-10x",
 "implementation_complexity": "Persistent", "kernel_type": "persistent_recurrent"}
```)";
  auto diagnosis = parse_diagnosis(reply);
  ASSERT_TRUE(diagnosis.has_value()) << diagnosis.error().message;
  EXPECT_TRUE(diagnosis->worth_optimizing);
  EXPECT_EQ(diagnosis->optimisation_method, "persistent kernel");
  EXPECT_EQ(diagnosis->implementation_complexity, "persistent");
  EXPECT_EQ(diagnosis->kernel_type, "persistent_recurrent");
}

TEST(ParseDiagnosis, AcceptsAnObjectForWorthOptimizing) {
  auto diagnosis = parse_diagnosis(
      R"({"worth_optimizing": {"answer": "no", "reason": "at roofline"}, "bottleneck": "b",
          "optimisation_method": "m", "modification_plan": "p", "expected_speedup": "1x",
          "implementation_complexity": "low", "kernel_type": "elementwise"})");
  ASSERT_TRUE(diagnosis.has_value()) << diagnosis.error().message;
  EXPECT_FALSE(diagnosis->worth_optimizing);
  EXPECT_EQ(diagnosis->reason, "at roofline");
}

TEST(ParseDiagnosis, ListsEveryProblemAtOnce) {
  auto diagnosis = parse_diagnosis(
      R"({"worth_optimizing": "maybe", "reason": "r", "optimisation_method": "m",
          "expected_speedup": "2x", "implementation_complexity": "huge",
          "kernel_type": "gemm"})");
  ASSERT_FALSE(diagnosis.has_value());
  EXPECT_EQ(diagnosis.error().message,
            "failed to parse the analysis: missing bottleneck, modification_plan; "
            "worth_optimizing must be yes or no (got \"maybe\"); implementation_complexity must "
            "be one of low, medium, high, persistent (got \"huge\")");
}

TEST(ParseDiagnosis, LocatesSyntaxErrors) {
  auto diagnosis = parse_diagnosis("{\"bottleneck\": \"x\",\n \"reason\" 3}");
  ASSERT_FALSE(diagnosis.has_value());
  EXPECT_NE(diagnosis.error().message.find("reply:2:"), std::string::npos)
      << diagnosis.error().message;
  EXPECT_EQ(parse_diagnosis("no json here").error().message,
            "failed to parse the analysis: the reply holds no JSON object");
}

}  // namespace
}  // namespace kforge::prompts

#include "eval/eval_settings.h"

#include <gtest/gtest.h>

#include <limits>

namespace kforge::eval {
namespace {

TEST(ParseDevice, ReadsCudaAndCpuOnly) {
  EXPECT_EQ(parse_device("cuda"), Device::kCuda);
  EXPECT_EQ(parse_device("cpu"), Device::kCpu);
  auto bad = parse_device("gpu");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "expected cuda or cpu, got gpu");
  EXPECT_EQ(device_name(Device::kCpu), "cpu");
}

TEST(ParsePrecision, ReadsBothPolicies) {
  EXPECT_EQ(parse_precision("kernelbench"), Precision::kKernelBench);
  EXPECT_EQ(precision_name(*parse_precision("calibrated")), "calibrated");
  EXPECT_EQ(parse_precision("loose").error().message,
            "expected calibrated or kernelbench, got loose");
}

TEST(EvalSettingsValidate, AcceptsTheDefaults) {
  EXPECT_TRUE(kDefaultEvalSettings.validate());
}

TEST(EvalSettingsValidate, NamesTheFlagOfTheFirstBadValue) {
  EvalSettings settings;
  settings.trials = 0;
  EXPECT_EQ(settings.validate().error().message,
            "failed to read --trials: expected at least 1, got 0");
  settings = {};
  settings.timeout_s = -1;
  EXPECT_EQ(settings.validate().error().message,
            "failed to read --timeout: expected a positive number of seconds, got -1");
  settings.timeout_s = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(settings.validate());
  settings = {};
  settings.warmup = -1;
  EXPECT_EQ(settings.validate().error().message,
            "failed to read --warmup: expected 0 or more, got -1");
  settings = {};
  settings.input_sets = 0;
  EXPECT_EQ(settings.validate().error().message,
            "failed to read --input-sets: expected at least 1, got 0");
}

TEST(EvalSettings, BaselineGetsAtLeastItsMinimumLimit) {
  EvalSettings settings;
  EXPECT_EQ(settings.baseline_timeout_s(), settings.min_baseline_timeout_s);
  settings.timeout_s = 5000;
  EXPECT_EQ(settings.baseline_timeout_s(), 5000);
}

}  // namespace
}  // namespace kforge::eval

#include "cli/eval_flags.h"

#include <gtest/gtest.h>

namespace kforge::cli {
namespace {

TEST(ReadEvalSettings, TakesEveryFlag) {
  Options options;
  options.device = "cpu";
  options.shrink = true;
  options.precision = "kernelbench";
  options.input_sets = 3;
  options.trials = 7;
  options.warmup = 0;
  options.no_l2_flush = true;
  options.timeout_s = 42;
  options.allow_pytorch_only = true;
  auto settings = read_eval_settings(options);
  ASSERT_TRUE(settings) << settings.error().message;
  EXPECT_EQ(settings->device, eval::Device::kCpu);
  EXPECT_TRUE(settings->shrink);
  EXPECT_EQ(settings->precision, eval::Precision::kKernelBench);
  EXPECT_EQ(settings->input_sets, 3);
  EXPECT_EQ(settings->trials, 7);
  EXPECT_EQ(settings->warmup, 0);
  EXPECT_FALSE(settings->flush_l2);
  EXPECT_EQ(settings->timeout_s, 42);
  EXPECT_TRUE(settings->allow_pytorch_only);
}

TEST(ReadEvalSettings, DefaultsAreTheSettingsDefaults) {
  auto settings = read_eval_settings(Options{});
  ASSERT_TRUE(settings) << settings.error().message;
  const eval::EvalSettings& d = eval::kDefaultEvalSettings;
  EXPECT_EQ(settings->device, d.device);
  EXPECT_EQ(settings->precision, d.precision);
  EXPECT_EQ(settings->trials, d.trials);
  EXPECT_EQ(settings->warmup, d.warmup);
  EXPECT_EQ(settings->input_sets, d.input_sets);
  EXPECT_EQ(settings->timeout_s, d.timeout_s);
  EXPECT_EQ(settings->flush_l2, d.flush_l2);
}

TEST(ReadEvalSettings, ErrorsNameTheFlag) {
  Options options;
  options.device = "gpu";
  EXPECT_EQ(read_eval_settings(options).error().message,
            "failed to read --device: expected cuda or cpu, got gpu");
  options = {};
  options.precision = "loose";
  EXPECT_EQ(read_eval_settings(options).error().message,
            "failed to read --precision: expected calibrated or kernelbench, got loose");
  options = {};
  options.trials = 0;
  EXPECT_EQ(read_eval_settings(options).error().message,
            "failed to read --trials: expected at least 1, got 0");
  options = {};
  options.timeout_s = -1;
  EXPECT_EQ(read_eval_settings(options).error().message,
            "failed to read --timeout: expected a positive number of seconds, got -1");
}

}  // namespace
}  // namespace kforge::cli

#include "suite/suite_record.h"

#include <gtest/gtest.h>

namespace kforge::suite {
namespace {

TEST(DecodeConfig, KeepsEveryEvaluationSetting) {
  SuiteConfig c;
  c.mode = "eval";
  c.task_ids = {"a"};
  c.task_paths = {"/t/a.py"};
  c.settings.device = eval::Device::kCpu;
  c.settings.shrink = true;
  c.settings.precision = eval::Precision::kKernelBench;
  c.settings.numerics = eval::NumericsPolicy::kStrict;
  c.settings.input_sets = 3;
  c.settings.trials = 7;
  c.settings.warmup = 0;
  c.settings.flush_l2 = false;
  c.settings.timeout_s = 42;
  c.settings.allow_pytorch_only = true;
  auto back = decode_config(encode_config(c));
  ASSERT_TRUE(back) << back.error().message;
  const eval::EvalSettings& s = back->settings;
  EXPECT_EQ(s.device, eval::Device::kCpu);
  EXPECT_TRUE(s.shrink);
  EXPECT_EQ(s.precision, eval::Precision::kKernelBench);
  EXPECT_EQ(s.numerics, eval::NumericsPolicy::kStrict);
  EXPECT_EQ(s.input_sets, 3);
  EXPECT_EQ(s.trials, 7);
  EXPECT_EQ(s.warmup, 0);
  EXPECT_FALSE(s.flush_l2);
  EXPECT_EQ(s.timeout_s, 42);
  EXPECT_TRUE(s.allow_pytorch_only);
}

TEST(DecodeConfig, AnOlderJournalKeepsTheDefaults) {
  auto c = decode_config(
      R"({"mode":"eval","task_ids":["a"],"task_paths":["/t/a.py"],"device":"cpu","shrink":true,)"
      R"("precision":"calibrated"})");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->settings.device, eval::Device::kCpu);
  EXPECT_TRUE(c->settings.shrink);
  EXPECT_EQ(c->settings.numerics, eval::kDefaultEvalSettings.numerics);
  EXPECT_EQ(c->settings.trials, eval::kDefaultEvalSettings.trials);
  EXPECT_EQ(c->settings.timeout_s, eval::kDefaultEvalSettings.timeout_s);
}

TEST(DecodeConfig, AnUnknownSettingIsAnError) {
  auto c = decode_config(R"({"mode":"eval","task_ids":[],"task_paths":[],"numerics":"loose"})");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message,
            "failed to parse suite config: numerics: expected tolerance or strict, got loose");
}

}  // namespace
}  // namespace kforge::suite

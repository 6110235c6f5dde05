#include "cli/eval_summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

eval::LatencyStats stats(double median) {
  return {median, median + 0.1, 0.05, median - 0.1, 100};
}

eval::Evaluation passing() {
  eval::Evaluation e;
  e.status = eval::Status::kOk;
  e.correctness = eval::Correctness{.precision = "calibrated",
                                    .input_sets = 5,
                                    .pass_calibrated = true,
                                    .pass_kernelbench = false,
                                    .max_abs_err = 2.5e-4,
                                    .mean_abs_err = 1e-5,
                                    .max_abs_err_fp64 = 1.2e-6,
                                    .mean_abs_err_fp64 = 1e-7,
                                    .reference_err_fp64 = 2.5e-4,
                                    .tolerance = 2.5e-3};
  e.candidate = stats(15.14);
  e.eager = stats(20.7);
  e.cuda_graph = stats(8.7);
  e.score = 1.367;
  e.speedup_vs_best_baseline = 0.575;
  e.launches_per_forward = 6;
  e.kernels = {{"gru_layer_kernel", 6, 0.97, true}};
  e.device = {{"name", "NVIDIA H100 80GB HBM3"}, {"sm_count", "132"}};
  e.versions = {{"torch", "2.13.0"}, {"triton", "3.6.0"}, {"cuda", "12.8"}};
  e.shapes = {{"batch_size", 10}, {"seq_len", 512}};
  e.wall_s = 12.5;
  e.timed_s = 8.25;
  return e;
}

TEST(FormatEvaluation, GpuSummaryHasVerdictsTimingAndScore) {
  std::string text = format_evaluation(passing(), {.task = "tasks/39_GRU.py", .candidate = "c.py"});
  EXPECT_THAT(text, HasSubstr("status        ok\n"));
  EXPECT_THAT(text, HasSubstr("PASS under the calibrated policy (5 input sets)"));
  EXPECT_THAT(text, HasSubstr("calibrated pass, kernelbench fail"));
  EXPECT_THAT(text, HasSubstr("vs fp32 ref max_abs_err 2.50e-04  mean_abs_err 1.00e-05"));
  EXPECT_THAT(text, HasSubstr("vs fp64 ref max_abs_err 1.20e-06"));
  EXPECT_THAT(text,
              HasSubstr("  candidate       15.140     15.240     0.050     15.040     100\n"));
  EXPECT_THAT(text, HasSubstr("  compile              -\n"));
  EXPECT_THAT(text,
              HasSubstr("score         1.367x vs eager, 0.575x vs the best baseline (cuda_graph)"));
  EXPECT_THAT(text, HasSubstr("launches      6 per forward"));
  EXPECT_THAT(text, HasSubstr("gru_layer_kernel  x6 per forward, 97% of time, own"));
  EXPECT_THAT(text, HasSubstr("NVIDIA H100 80GB HBM3 (132 SMs) · torch 2.13.0 · triton 3.6.0"));
  EXPECT_THAT(text, HasSubstr("CUDA 12.8"));
  EXPECT_THAT(text, HasSubstr("shapes        batch_size=10 seq_len=512"));
}

TEST(FormatEvaluation, CpuModeNeverPrintsASpeedUp) {
  // Even if a worker sent timings and a score in CPU mode, none of it is shown.
  std::string text = format_evaluation(
      passing(), {.task = "t.py", .candidate = "c.py", .device = eval::Device::kCpu});
  EXPECT_THAT(text, HasSubstr("not measured in CPU mode"));
  EXPECT_THAT(text, Not(HasSubstr("score")));
  EXPECT_THAT(text, Not(HasSubstr("speed")));
  EXPECT_THAT(text, Not(HasSubstr("x vs")));
  EXPECT_THAT(text, Not(HasSubstr("median")));
  EXPECT_THAT(text, Not(HasSubstr("% of time")));
  EXPECT_THAT(text, HasSubstr("CPU (Triton interpreter, correctness only)"));
}

TEST(FormatEvaluation, FailureShowsIndentedErrorAndLocation) {
  eval::Evaluation e;
  e.status = eval::Status::kCompileError;
  e.error = "ValueError: arange's arguments must be of type tl.constexpr\n  at line 12";
  e.error_location = "cand.py:12";
  e.reasons = {"launches no kernel of its own"};
  std::string text = format_evaluation(e, {.task = "t.py", .candidate = "cand.py"});
  EXPECT_THAT(text, HasSubstr("status        compile_error\n"));
  EXPECT_THAT(text, HasSubstr("error         ValueError: arange's arguments must be of type "
                              "tl.constexpr\n                at line 12\n"));
  EXPECT_THAT(text, HasSubstr("location      cand.py:12\n"));
  EXPECT_THAT(text, HasSubstr("rejected      launches no kernel of its own\n"));
  EXPECT_THAT(text, Not(HasSubstr("score")));
}

TEST(FormatEvaluation, BaselineErrorsNotesAndPrintedOutput) {
  eval::Evaluation e = passing();
  e.compiled.reset();
  e.baseline_errors = {{"compile", "torch.compile failed: no Triton for RNNs"}};
  e.notes = {"the candidate changed global numerics: allow_tf32"};
  std::string text = format_evaluation(e, {.task = "t.py", .candidate = "c.py"});
  EXPECT_THAT(text,
              HasSubstr("  compile              -  (torch.compile failed: no Triton for RNNs)\n"));
  EXPECT_THAT(text, HasSubstr("note          the candidate changed global numerics: allow_tf32\n"));
  EXPECT_THAT(text, Not(HasSubstr("printed")));  // a passing candidate's prints are noise

  e.status = eval::Status::kRuntimeError;
  e.output_tail =
      "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline "
      "10\nline 11\n";
  text = format_evaluation(e, {.task = "t.py", .candidate = "c.py"});
  EXPECT_THAT(text, HasSubstr("printed       line 2\n              line 3\n"));
  EXPECT_THAT(text, HasSubstr("line 11\n"));
  EXPECT_THAT(text, Not(HasSubstr("line 1\n")));
}

TEST(FormatEvaluation, NonFiniteErrorsPrintAsWords) {
  eval::Evaluation e = passing();
  e.status = eval::Status::kWrongOutput;
  e.correctness->max_abs_err = std::numeric_limits<double>::quiet_NaN();
  e.correctness->mean_abs_err = std::numeric_limits<double>::infinity();
  std::string text = format_evaluation(e, {.task = "t.py", .candidate = "c.py"});
  EXPECT_THAT(text, HasSubstr("max_abs_err nan  mean_abs_err inf"));
}

TEST(FormatBaseline, BestBaselineAndRatio) {
  eval::BaselineResult b;
  b.eager = stats(42.0);
  b.compiled = stats(41.5);
  b.cuda_graph = stats(8.7);
  std::string text = format_baseline(b, {.task = "tasks/39_GRU.py"});
  EXPECT_THAT(text, HasSubstr("  eager           42.000"));
  EXPECT_THAT(text, HasSubstr("best          cuda_graph 8.700 ms (4.83x faster than eager)"));
  b.compiled.reset();
  b.errors = {{"compile", "torch.compile failed"}};
  text = format_baseline(b, {.task = "tasks/39_GRU.py"});
  EXPECT_THAT(text, HasSubstr("  compile              -  (torch.compile failed)\n"));
}

TEST(FormatBaseline, CpuModeHasNoRatio) {
  eval::BaselineResult b;
  b.eager = stats(3.0);
  std::string text = format_baseline(b, {.task = "t.py", .device = eval::Device::kCpu});
  EXPECT_THAT(text, Not(HasSubstr("faster")));
  EXPECT_THAT(text, Not(HasSubstr("best")));
  EXPECT_THAT(text, HasSubstr("no speed-ups in CPU mode"));
}

}  // namespace
}  // namespace kforge::cli

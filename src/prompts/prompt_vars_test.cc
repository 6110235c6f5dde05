#include "prompts/prompt_vars.h"

#include <gtest/gtest.h>

namespace kforge::prompts {
namespace {

TEST(TrimForPrompt, KeepsHeadAndTailOfLongTracebacks) {
  std::string text;
  for (int i = 1; i <= 100; ++i) text += "line " + std::to_string(i) + "\n";
  std::string out = trim_for_prompt(text, 9, 10000);
  EXPECT_EQ(out,
            "line 1\nline 2\nline 3\n... (91 lines left out) ...\nline 95\nline 96\nline 97\n"
            "line 98\nline 99\nline 100");
}

TEST(CandidateVars, DescribeTheEvaluationOnce) {
  eval::Evaluation e;
  e.status = eval::Status::kWrongOutput;
  e.error = "output 0 of 1: 3 of 4 elements outside tolerance\nmax abs err 0.02";
  e.correctness = eval::Correctness{};
  e.correctness->max_abs_err = 0.02;
  e.correctness->first_failure = "output 0 of 1: 3 of 4 elements outside tolerance";
  e.kernels.push_back({"gelu_kernel", 1, 0, true});
  Vars vars = candidate_vars("class ModelNew: ...", e, std::nullopt);
  EXPECT_EQ(vars["status"], "wrong_output");
  EXPECT_EQ(vars["failed"], "yes");
  EXPECT_EQ(vars["first_failure"], "");  // already in the error text
  EXPECT_EQ(vars["max_abs_err"], "0.020000");
  EXPECT_EQ(vars["score"], "");
  EXPECT_EQ(vars["kernels"], "  - gelu_kernel (candidate's own): 1 calls per forward\n");
}

TEST(GpuVars, FourWavesOfTheSmCount) {
  eval::WorkerInfo info;
  info.device_name = "NVIDIA H100 80GB HBM3";
  info.sm_count = 132;
  Vars vars = gpu_vars(info);
  EXPECT_EQ(vars["min_blocks"], "528");
  EXPECT_EQ(vars["sm_count"], "132");
}

}  // namespace
}  // namespace kforge::prompts

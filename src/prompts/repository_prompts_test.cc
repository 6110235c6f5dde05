// The repository's prompts/ rendered as the pipeline renders them: the guidance each stage must
// carry reaches the text the model receives.

#include <gtest/gtest.h>

#include <string>

#include "prompts/prompt_set.h"
#include "prompts/prompt_vars.h"

namespace kforge::prompts {
namespace {

/// The variables of a stage as pipeline.cc sets them: a recurrent task, a correct candidate
/// without a timing, and every stage-specific variable present.
Vars stage_vars(bool cpu) {
  Vars vars = task_vars({"39_GRU", "class Model(nn.Module): ...", true, cpu});
  eval::WorkerInfo info;
  info.torch = "2.5.0";
  info.triton = "3.1.0";
  if (!cpu) {
    info.device_name = "NVIDIA H100";
    info.sm_count = 132;
  }
  merge(vars, gpu_vars(info));
  eval::Evaluation evaluation;
  evaluation.status = eval::Status::kOk;
  merge(vars, candidate_vars("class ModelNew(nn.Module): ...", evaluation, std::nullopt));
  for (const char* name :
       {"seed_index", "attempt", "origin_stage", "validation_error", "previous_reply",
        "adapt_persistent", "guard_reason", "best_id", "candidate_id", "candidate_stage",
        "library_example_source", "library_example_name", "worth_optimizing"})
    vars[name] = "";
  // the model's analysis (pipeline::diagnosis_vars)
  for (const char* name :
       {"diagnosis_reason", "bottleneck", "optimisation_method", "modification_plan",
        "expected_speedup", "implementation_complexity", "diagnosis_kernel_type"})
    vars[name] = "";
  vars["seeds_total"] = "2";
  vars["max_attempts"] = "2";
  vars["seed_index"] = "1";
  vars["candidate_id"] = "1";
  return vars;
}

class RepositoryPrompts : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = PromptSet::load(std::string(KFORGE_SOURCE_DIR) + "/prompts");
    ASSERT_TRUE(loaded) << loaded.error().message;
    set_ = std::move(*loaded);
  }
  std::string render(std::string_view stage, const Vars& vars) {
    auto text = set_.render(stage, vars);
    EXPECT_TRUE(text) << text.error().message;
    return text ? *text : "";
  }
  PromptSet set_ = PromptSet::from_texts({});
};

TEST_F(RepositoryPrompts, CpuRunsSayHowTheCheckRunsAndWhatItCannotProve) {
  std::string seed = render("seed", stage_vars(true));
  EXPECT_NE(seed.find("the interpreter runs the programs of a launch one after another"),
            std::string::npos)
      << seed;
  EXPECT_NE(seed.find("A cross-program barrier (a program spinning until the others arrive) "
                      "deadlocks\nthere"),
            std::string::npos);
  EXPECT_NE(seed.find("cross-program synchronisation is not checked on the CPU at all: a "
                      "max_abs_err of 0 on\nthe CPU does not prove the kernel free of races"),
            std::string::npos);
  EXPECT_EQ(render("seed", stage_vars(false)).find("the interpreter runs the programs"),
            std::string::npos);
}

TEST_F(RepositoryPrompts, EveryStageStatesTheTolerancePolicy) {
  for (std::string_view stage :
       {"seed", "repair", "analysis", "optimise", "tune_grid", "tune_tiling", "tune_memory"}) {
    std::string text = render(stage, stage_vars(true));
    EXPECT_NE(text.find("## How correctness is judged"), std::string::npos) << stage;
    EXPECT_NE(text.find("calibrated against a float64 run of the reference"), std::string::npos)
        << stage;
    EXPECT_NE(text.find("within 4 times the error the fp32 reference itself makes against float64"),
              std::string::npos)
        << stage;
    EXPECT_NE(text.find("KernelBench's own verdict\n(`torch.allclose` against the fp32 reference, "
                        "atol = rtol = 1e-4) is reported beside it"),
              std::string::npos)
        << stage;
  }
}

TEST_F(RepositoryPrompts, TheLargeInputGemmIsOneOptionNotARule) {
  std::string seed = render("seed", stage_vars(false));
  EXPECT_NE(seed.find("2. One option, not a rule: compute the input projection for ALL time "
                      "steps as ONE large GEMM"),
            std::string::npos)
      << seed;
  EXPECT_NE(seed.find("Choose and say why."), std::string::npos);
  EXPECT_EQ(seed.find("Hybrid strategy"), std::string::npos);
  EXPECT_EQ(seed.find("where the strategy below says so"), std::string::npos);
}

TEST_F(RepositoryPrompts, PersistentTuningIsParameterOnly) {
  Vars vars = stage_vars(false);
  vars["adapt_persistent"] = "yes";
  vars["guard_reason"] = "#1 is a persistent kernel";
  for (std::string_view stage : {"tune_grid", "tune_tiling"}) {
    std::string text = render(stage, vars);
    EXPECT_NE(text.find("Tune PARAMETERS ONLY: the launch configuration (grid size, as long as "
                        "every program that waits\non another stays resident), block sizes, "
                        "`num_warps` and `num_stages`. Keep the algorithm: the\ntime loop inside "
                        "the kernel"),
              std::string::npos)
        << text;
  }
}

TEST_F(RepositoryPrompts, AnalysisWithoutTimingsAsksForEstimatesAndCompleteTexts) {
  std::string text = render("analysis", stage_vars(true));
  EXPECT_NE(text.find("No timings exist for this candidate"), std::string::npos) << text;
  EXPECT_NE(text.find("is an estimate: mark it as one\n(\"estimated\", \"~\"), and never present "
                      "it as measured."),
            std::string::npos);
  EXPECT_NE(text.find("Each text is complete\nsentences (none cut off with \"...\"), at most 1500 "
                      "characters (the plan at most 4000)"),
            std::string::npos);
  Vars timed = stage_vars(false);
  timed["score"] = "0.5500";
  EXPECT_EQ(render("analysis", timed).find("No timings exist"), std::string::npos);
}

}  // namespace
}  // namespace kforge::prompts

// The repository's prompts/ rendered as the pipeline renders them: the guidance each stage must
// carry reaches the text the model receives.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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

/// The stages whose prompt states the correctness and numerics policies (analysis_retry only
/// re-asks for the JSON of the analysis the model just saw).
constexpr std::string_view kStages[] = {"seed",      "repair",      "analysis",   "optimise",
                                        "tune_grid", "tune_tiling", "tune_memory"};

/// A real task of the repository: its file and whether it is recurrent.
struct RealTask {
  std::string name;
  bool recurrent;
};

std::string read_task(const std::string& name) {
  std::ifstream in(std::string(KFORGE_SOURCE_DIR) + "/tasks/" + name + ".py");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The stage variables of a CPU run on `task` under `numerics`, as pipeline.cc sets them.
Vars real_task_vars(const RealTask& task, eval::NumericsPolicy numerics) {
  Vars vars = stage_vars(true);
  merge(vars, task_vars({task.name, read_task(task.name), task.recurrent, true, numerics,
                         eval::Precision::kCalibrated}));
  eval::WorkerInfo info;
  info.torch = "2.5.0";
  info.triton = "3.1.0";
  merge(vars, gpu_vars(info, "H100"));
  return vars;
}

/// The "## Numerics policy" section of a rendered prompt (up to the next heading), "" if none.
std::string policy_section(const std::string& text) {
  std::size_t start = text.find("## Numerics policy");
  if (start == std::string::npos) return "";
  std::size_t end = text.find("\n## ", start + 1);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

const std::vector<RealTask>& real_tasks() {
  static const std::vector<RealTask> tasks = {
      {"matmul", false}, {"conv2d_relu_bias", false}, {"softmax", false}, {"39_GRU", true}};
  return tasks;
}

TEST_F(RepositoryPrompts, EveryStageStatesOneNumericsPolicyForEveryKindOfTask) {
  for (eval::NumericsPolicy numerics :
       {eval::NumericsPolicy::kTolerance, eval::NumericsPolicy::kStrict}) {
    std::string first;
    for (const RealTask& task : real_tasks()) {
      ASSERT_FALSE(read_task(task.name).empty()) << task.name;
      for (std::string_view stage : kStages) {
        std::string text = render(stage, real_task_vars(task, numerics));
        std::string policy = policy_section(text);
        ASSERT_FALSE(policy.empty()) << task.name << " " << stage << "\n" << text;
        if (first.empty()) first = policy;
        EXPECT_EQ(policy, first) << task.name << " " << stage;
        // the tolerance and how it is measured, in the same prompt
        EXPECT_NE(text.find("1e-4 absolute + 1e-4 relative for fp32) of the float64 result"),
                  std::string::npos)
            << task.name << " " << stage;
        // no stage contradicts the policy
        EXPECT_EQ(text.find("no fp16/bf16 where the reference is fp32"), std::string::npos);
      }
    }
    if (numerics == eval::NumericsPolicy::kStrict) {
      EXPECT_NE(first.find("## Numerics policy: strict"), std::string::npos) << first;
      EXPECT_NE(first.find("a candidate in lower precision is REJECTED"), std::string::npos);
    } else {
      EXPECT_NE(first.find("## Numerics policy: tolerance"), std::string::npos) << first;
      EXPECT_NE(first.find("Any precision is allowed as long as the output passes the "
                           "correctness check"),
                std::string::npos);
    }
  }
}

TEST_F(RepositoryPrompts, NoRecurrentWordsOutsideRecurrentTasks) {
  const std::vector<std::string> words = {"gru",
                                          "lstm",
                                          "rnn",
                                          "recurren",
                                          "hidden",
                                          "time loop",
                                          "time step",
                                          "gate",
                                          "h_{t-1}",
                                          "h_prev",
                                          "persistent_recurrent"};
  for (const RealTask& task : real_tasks()) {
    for (std::string_view stage : {"seed", "repair", "analysis", "analysis_retry", "optimise",
                                   "tune_grid", "tune_tiling", "tune_memory"}) {
      Vars vars = real_task_vars(task, eval::NumericsPolicy::kTolerance);
      std::string text = render(stage, vars);
      // the task's own source is the user's text, not ours
      if (std::size_t at = text.find(vars["task_source"]); at != std::string::npos)
        text.erase(at, vars["task_source"].size());
      text = lower(text);
      for (const std::string& word : words) {
        bool found = text.find(word) != std::string::npos;
        if (!task.recurrent) {
          EXPECT_FALSE(found) << task.name << " " << stage << ": " << word;
        }
      }
      if (task.recurrent && stage == "seed") {
        EXPECT_NE(text.find("the time loop belongs inside the kernel"), std::string::npos);
      }
    }
  }
}

TEST_F(RepositoryPrompts, ACpuRunNamesTheTargetGpuWithItsFacts) {
  for (std::string_view stage : kStages) {
    std::string text =
        render(stage, real_task_vars(real_tasks()[0], eval::NumericsPolicy::kTolerance));
    EXPECT_NE(text.find("Target GPU (where this code will be timed; from the run's "
                        "configuration): NVIDIA H100 SXM 80GB (Hopper, sm_90), 132 SMs, 80 GB; "
                        "3.35 TB/s HBM bandwidth, 50 MB L2"),
              std::string::npos)
        << stage << "\n"
        << text;
    EXPECT_NE(text.find("at least 528 (4x the SM count)"), std::string::npos) << stage;
  }
}

TEST_F(RepositoryPrompts, TheSystemPromptNamesTheThreeBaselinesAndTheScore) {
  std::string text = render("system", stage_vars(false));
  EXPECT_NE(text.find("against three PyTorch baselines of the reference: eager, torch.compile "
                      "and a CUDA graph replay"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Your score is eager PyTorch's latency divided by yours; the speed-up over "
                      "the fastest of the\nthree is reported beside it"),
            std::string::npos);
  EXPECT_EQ(text.find("timed against eager\nPyTorch"), std::string::npos);
}

}  // namespace
}  // namespace kforge::prompts

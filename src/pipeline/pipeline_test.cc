#include "pipeline/pipeline.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <functional>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include "pipeline/candidate_ranking.h"

namespace kforge::pipeline {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A candidate's fate is written inside it: "# verdict: status=ok score=1.5 err=1e-6".
eval::Evaluation verdict_of(const std::string& source) {
  eval::Evaluation e;
  std::smatch m;
  std::string status = "ok";
  if (std::regex_search(source, m, std::regex("status=(\\w+)"))) status = m[1];
  e.status = *eval::status_from_string(status);
  if (e.status != eval::Status::kOk)
    e.error = fmt::format("Error: candidate failed with {}", status);
  eval::Correctness c;
  c.max_abs_err = 1e-6;
  if (std::regex_search(source, m, std::regex("err=([0-9.e+-]+)"))) c.max_abs_err = std::stod(m[1]);
  e.correctness = c;
  if (e.status == eval::Status::kOk &&
      std::regex_search(source, m, std::regex("score=([0-9.]+)"))) {
    e.score = std::stod(m[1]);
    e.candidate = eval::LatencyStats{10.0 / *e.score, 0, 0, 0, 100};
  }
  return e;
}

class FakePool : public eval::WorkerPool {
 public:
  util::Result<eval::WorkerInfo> hello() override {
    eval::WorkerInfo info;
    info.device_name = "Fake GPU";
    info.sm_count = 132;
    info.memory_gb = 80;
    return info;
  }
  util::Result<eval::Evaluation> evaluate(const eval::EvalRequest& request) override {
    ++evaluations;
    return verdict_of(read_file(request.candidate));
  }
  util::Result<eval::BaselineResult> baseline(const eval::BaselineRequest& request) override {
    ++baseline_calls;
    EXPECT_EQ(request.baselines, (std::vector<std::string>{"eager", "compile", "cuda_graph"}));
    return baseline_result;
  }
  util::Result<std::string> inspect_task(const eval::InspectTaskRequest& request) override {
    std::lock_guard lock(mutex_);
    requests.push_back("inspect_task " + request.task.string());
    return task_info;
  }
  util::Result<std::string> analyze(const eval::AnalyzeRequest& request) override {
    std::lock_guard lock(mutex_);
    requests.push_back("analyze " + request.candidate.string());
    return util::fail("not faked");
  }
  std::size_t size() const override { return 2; }
  std::atomic<int> evaluations{0};
  std::atomic<int> baseline_calls{0};
  util::Result<eval::BaselineResult> baseline_result = [] {
    eval::BaselineResult b;
    b.eager = eval::LatencyStats{20.0, 0, 0, 0, 100};
    b.compiled = eval::LatencyStats{15.0, 0, 0, 0, 100};
    b.cuda_graph = eval::LatencyStats{12.5, 0, 0, 0, 100};
    return b;
  }();
  /// The inspect_task result (TaskInfo JSON) or error.
  util::Result<std::string> task_info = std::string(R"({"recurrent": false})");
  std::vector<std::string> requests;

 private:
  std::mutex mutex_;
};

/// Replies by the first rule whose `match` occurs in the user message; records every request.
class FakeProvider : public llm::Provider {
 public:
  struct Rule {
    std::string match;
    std::string reply;
  };
  explicit FakeProvider(std::vector<Rule> rules) : rules_(std::move(rules)) {}
  util::Result<llm::ChatReply> chat(const llm::ChatRequest& request) override {
    std::lock_guard lock(mutex_);
    const std::string& user = request.messages.back().content;
    requests.push_back(user);
    stages.push_back(request.stage);
    if (failing.contains(request.stage))
      return util::fail("failed to reach the model: connection refused");
    for (const Rule& rule : rules_)
      if (user.find(rule.match) != std::string::npos) {
        llm::ChatReply reply;
        reply.content = rule.reply;
        reply.usage.prompt_tokens = 100;
        reply.usage.completion_tokens = 50;
        return reply;
      }
    return util::fail("no scripted reply for: {}", user.substr(0, 80));
  }
  std::string name() const override { return "fake"; }
  std::string model() const override { return "fake-model"; }
  int count(std::string_view stage) const {
    std::lock_guard lock(mutex_);
    return static_cast<int>(std::count(stages.begin(), stages.end(), stage));
  }
  std::vector<std::string> requests;
  std::vector<std::string> stages;
  std::set<std::string> failing;  // stages whose calls fail

 private:
  std::vector<Rule> rules_;
  mutable std::mutex mutex_;
};

std::string code(std::string_view verdict) {
  return fmt::format(
      "Here it is.\n```python\n# verdict: {}\nimport torch\nclass ModelNew(torch.nn.Module):\n"
      "    pass\n```\n",
      verdict);
}

std::string diagnosis(std::string_view complexity = "low",
                      std::string_view kernel_type = "elementwise") {
  return fmt::format(
      "```json\n{{\"worth_optimizing\": \"yes\", \"reason\": \"launch bound\", \"bottleneck\": "
      "\"too many launches\", \"optimisation_method\": \"fusion\", \"modification_plan\": \"fuse "
      "it\", \"expected_speedup\": \"3x\", \"implementation_complexity\": \"{}\", "
      "\"kernel_type\": \"{}\"}}\n```",
      complexity, kernel_type);
}

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            fmt::format("kforge_pipeline_test_{}_{}", ::getpid(), counter_++);
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    task_ = root_ / "task.py";
    std::ofstream(task_) << "class Model:\n    pass\n";
    auto prompts = prompts::PromptSet::load(std::string(KFORGE_SOURCE_DIR) + "/prompts");
    ASSERT_TRUE(prompts.has_value()) << prompts.error().message;
    prompts_ = std::move(*prompts);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  store::RunConfig config() {
    store::RunConfig c;
    c.task = task_.string();
    c.provider = "fake";
    c.model = "fake-model";
    return c;
  }

  /// Runs the pipeline in `dir` (a fresh run directory when empty).
  PipelineResult run(FakeProvider& provider, const store::RunConfig& c,
                     std::filesystem::path dir = {}) {
    if (dir.empty()) {
      auto created = store::RunStore::create(root_ / "runs", "task", "fake", "fake-model",
                                             std::chrono::system_clock::now());
      EXPECT_TRUE(created.has_value());
      dir = (*created)->dir();
    }
    last_dir_ = dir;
    auto store = store::RunStore::open(dir);
    EXPECT_TRUE(store.has_value());
    ConsoleView view(
        nullptr, false, [&](std::string_view line) { log_ += std::string(line) + "\n"; },
        [] { return 0.0; });
    PipelineServices services{provider, pool_, prompts_, **store, view, analyze_, nullptr};
    PipelineInputs inputs;
    inputs.record.config = c;
    inputs.record.task_name = "task";
    inputs.task_source = "class Model:\n    pass\n";
    inputs.library_dirs = library_dirs_;
    auto result = run_pipeline(inputs, services);
    EXPECT_TRUE(result.has_value()) << result.error().message;
    return result.value_or(PipelineResult{});
  }

  static std::vector<std::string> stages(const PipelineResult& result) {
    std::vector<std::string> out;
    for (const auto& c : result.record.candidates) out.push_back(c.stage);
    return out;
  }

  static inline int counter_ = 0;
  std::filesystem::path root_;
  std::filesystem::path task_;
  std::filesystem::path last_dir_;
  prompts::PromptSet prompts_ = prompts::PromptSet::from_texts({});
  FakePool pool_;
  std::function<util::Result<analysis::Report>(const std::filesystem::path&)> analyze_;
  std::string log_;
  std::vector<std::filesystem::path> library_dirs_;
};

TEST_F(PipelineTest, TheWorkersTaskInfoDecidesWhetherThePromptsAreRecurrent) {
  FakeProvider provider({{"# Stage: seed", code("score=1.5")}});
  store::RunConfig c = config();
  c.seeds = 1;
  c.analysis = "never";
  c.tuning = false;
  run(provider, c);
  ASSERT_FALSE(provider.requests.empty());
  EXPECT_EQ(provider.requests[0].find("## Recurrent models"), std::string::npos);
  ASSERT_FALSE(pool_.requests.empty());
  EXPECT_TRUE(pool_.requests[0].starts_with("inspect_task "));

  // the task source says nothing; the worker's inspection says recurrent
  pool_.task_info =
      std::string(R"({"modules": [{"path": "gru", "type": "GRU"}], "recurrent": true})");
  FakeProvider recurrent({{"# Stage: seed", code("score=1.5")}});
  run(recurrent, c);
  ASSERT_FALSE(recurrent.requests.empty());
  EXPECT_NE(recurrent.requests[0].find("## Recurrent models"), std::string::npos);

  // an inspection that fails is a warning, not the end of the run
  pool_.task_info = util::fail("failed to load task task.py: no get_inputs() defined");
  FakeProvider failing({{"# Stage: seed", code("score=1.5")}});
  PipelineResult result = run(failing, c);
  EXPECT_EQ(result.record.state, "finished");
  EXPECT_NE(log_.find("warning: failed to load task task.py: no get_inputs() defined"),
            std::string::npos);
}

TEST_F(PipelineTest, TheWorkersTaskInfoPicksTheLibraryExample) {
  std::filesystem::create_directories(root_ / "library" / "gru_hn");
  std::ofstream(root_ / "library" / "gru_hn" / "meta.json")
      << R"({"source": "candidate.py", "signature": {"type": "gru", "returns": "h_n"}})";
  std::ofstream(root_ / "library" / "gru_hn" / "candidate.py") << "# the gru_hn kernel";
  library_dirs_ = {root_ / "library"};
  store::RunConfig c = config();
  c.seeds = 1;
  c.analysis = "never";
  c.tuning = false;

  // the task source says nothing; the worker's inspection names a GRU whose output is h_n
  pool_.task_info = std::string(
      R"({"task_path": "/tasks/task.py", "modules": [{"path": "gru", "type": "GRU"}],
          "outputs": [{"shape": [2, 4, 8]}], "output_sources": [{"module": "gru", "value": "h_n"}],
          "recurrent": true})");
  FakeProvider gru({{"# Stage: seed", code("score=1.5")}});
  run(gru, c);
  ASSERT_FALSE(gru.requests.empty());
  EXPECT_NE(gru.requests[0].find("(gru_hn: same signature: type=gru returns=h_n)"),
            std::string::npos);
  EXPECT_NE(gru.requests[0].find("# the gru_hn kernel"), std::string::npos);
  EXPECT_NE(log_.find("library example for the prompts: gru_hn (same signature: type=gru "
                      "returns=h_n)"),
            std::string::npos);

  // an LSTM task: nothing related, no example
  pool_.task_info = std::string(R"({"modules": [{"path": "lstm", "type": "LSTM"}]})");
  FakeProvider lstm({{"# Stage: seed", code("score=1.5")}});
  run(lstm, c);
  ASSERT_FALSE(lstm.requests.empty());
  EXPECT_EQ(lstm.requests[0].find("# the gru_hn kernel"), std::string::npos);
  EXPECT_EQ(lstm.requests[0].find("A verified kernel"), std::string::npos);
}

TEST_F(PipelineTest, GpuRunsTimeTheBaselinesOnceCpuRunsNever) {
  store::RunConfig c = config();
  c.seeds = 1;
  c.analysis = "never";
  c.tuning = false;
  FakeProvider provider({{"# Stage: seed", code("score=1.5")}});
  PipelineResult gpu = run(provider, c);
  EXPECT_EQ(pool_.baseline_calls, 1);
  ASSERT_TRUE(gpu.record.baselines);
  EXPECT_EQ(gpu.record.baselines->eager_ms, 20.0);
  EXPECT_EQ(gpu.record.baselines->cuda_graph_ms, 12.5);
  EXPECT_EQ(gpu.record.baselines->best()->first, "cuda_graph");
  EXPECT_NE(read_file(last_dir_ / "run.json").find("\"cuda_graph_ms\": 12.5"), std::string::npos);

  c.device = "cpu";
  FakeProvider cpu_provider({{"# Stage: seed", code("score=1.5")}});
  PipelineResult cpu = run(cpu_provider, c);
  EXPECT_EQ(pool_.baseline_calls, 1);
  EXPECT_FALSE(cpu.record.baselines);

  // a baseline failure is logged and the run goes on
  c.device = "cuda";
  pool_.baseline_result = util::fail("failed to time the reference: CUDA out of memory");
  FakeProvider failing({{"# Stage: seed", code("score=1.5")}});
  PipelineResult failed = run(failing, c);
  EXPECT_EQ(pool_.baseline_calls, 2);
  EXPECT_EQ(failed.record.state, "finished");
  EXPECT_FALSE(failed.record.baselines);
  EXPECT_NE(std::find(failed.record.log.begin(), failed.record.log.end(),
                      "baselines: failed to time the reference: CUDA out of memory; the run goes "
                      "on without them"),
            failed.record.log.end());
}

TEST_F(PipelineTest, RunsEveryStageInOrder) {
  FakeProvider provider({
      {"# Stage: seed 1 of 2", code("status=compile_error")},
      {"# Stage: seed 2 of 2", code("score=0.3")},
      {"# Stage: repair", code("score=0.2")},
      {"# Stage: algorithm analysis", diagnosis()},
      {"# Stage: optimise", code("score=1.5")},
      {"# Stage: tuning 1", code("score=1.6")},
      {"# Stage: tuning 2", code("score=1.55")},
      {"# Stage: tuning 3", code("status=wrong_output")},
  });
  store::RunConfig c = config();
  c.repairs = 1;
  PipelineResult result = run(provider, c);
  EXPECT_EQ(result.record.state, "finished");
  std::vector<std::string> s = stages(result);
  // Seeds run concurrently, so their first four candidates may interleave; the rest is ordered.
  ASSERT_EQ(s.size(), 9u) << log_;
  std::vector<std::string> first(s.begin(), s.begin() + 3);
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, (std::vector<std::string>{"repair", "seed", "seed"}));
  EXPECT_EQ(std::vector<std::string>(s.begin() + 3, s.end()),
            (std::vector<std::string>{"optimise", "optimise", "tune_grid", "tune_tiling",
                                      "tune_memory", "repair"}));
  EXPECT_EQ(result.record.phases,
            (std::vector<std::string>{"seeds", "analysis", "tuning", "final"}));
  // The repair prompt carried the error back.
  bool fed_back = false;
  for (const std::string& request : provider.requests)
    if (request.starts_with("# Stage: repair") &&
        request.find("Error: candidate failed with compile_error") != std::string::npos)
      fed_back = true;
  EXPECT_TRUE(fed_back);
  // Best is the tune_grid candidate (1.6), not the later, slower tuning.
  ASSERT_TRUE(result.record.best_id.has_value());
  const store::CandidateRecord* best = store::find_candidate(result.record, *result.record.best_id);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->stage, "tune_grid");
  EXPECT_EQ(*result.best_source, read_file(last_dir_ / "best.py"));
  EXPECT_TRUE(std::filesystem::exists(last_dir_ / "run.json"));
  EXPECT_TRUE(std::filesystem::exists(last_dir_ / best->file));
}

TEST_F(PipelineTest, BestNeverRegresses) {
  FakeProvider provider({
      {"# Stage: seed", code("score=0.5")},
      {"# Stage: algorithm analysis", diagnosis()},
      {"# Stage: optimise", code("score=1.37")},
      {"# Stage: tuning 1", code("score=0.09")},
      {"# Stage: tuning 2", code("score=0.08")},
      {"# Stage: tuning 3", code("score=0.16")},
  });
  store::RunConfig c = config();
  c.seeds = 1;
  PipelineResult result = run(provider, c);
  const store::CandidateRecord* best = store::find_candidate(result.record, *result.record.best_id);
  EXPECT_EQ(best->stage, "optimise");
  EXPECT_DOUBLE_EQ(*best->score, 1.37);
  for (const auto& record : result.record.candidates) {
    if (record.stage.starts_with("tune_")) {
      EXPECT_NE(record.note.find("best stays #2"), std::string::npos) << record.note;
    }
  }
}

TEST_F(PipelineTest, CpuRunIsUnrankedKeepsEveryCorrectCandidateAndTunesFromTheLowestError) {
  FakeProvider provider({
      {"# Stage: seed 1 of 2", code("err=1e-3")},
      {"# Stage: seed 2 of 2", code("err=1e-6")},
  });
  store::RunConfig c = config();
  c.device = "cpu";
  c.analysis = "never";
  c.guard = true;
  provider.failing = {"tune_grid", "tune_tiling", "tune_memory"};  // the run keeps the seeds
  PipelineResult result = run(provider, c);
  EXPECT_FALSE(result.record.best_id.has_value());
  EXPECT_EQ(result.record.ranking, "unranked");
  EXPECT_FALSE(result.best_source.has_value());
  EXPECT_FALSE(std::filesystem::exists(last_dir_ / "best.py"));
  ASSERT_EQ(result.record.candidates.size(), 2u);
  for (const store::CandidateRecord& record : result.record.candidates) {
    EXPECT_EQ(record.status, "ok");
    EXPECT_EQ(record.note, "correct, unranked (no timing)");
  }
  int seed2 = 0;
  for (const store::CandidateRecord& record : result.record.candidates)
    if (record.key == "seed2") seed2 = record.id;
  const std::vector<std::string>& log = result.record.log;
  auto logged = [&](const std::string& text) {
    return std::any_of(log.begin(), log.end(), [&](const std::string& line) {
      return line.find(text) != std::string::npos;
    });
  };
  // Tuning still needs a base: the correct candidate with the lowest error, said to be unranked.
  EXPECT_TRUE(
      logged(fmt::format("tuning: starts from #{}, the correct candidate with the lowest "
                         "error (unranked: no timings)",
                         seed2)));
  EXPECT_TRUE(
      logged("unranked: 2 correct candidates kept (#1, #2); without timings none is "
             "called best; rank them on a GPU: kforge rank "));
}

TEST_F(PipelineTest, GuardTunesOnlyTheParametersOfPersistentKernels) {
  analyze_ = [](const std::filesystem::path& path) -> util::Result<analysis::Report> {
    analysis::Report report;
    if (read_file(path).find("persistent=1") != std::string::npos) {
      report.persistent = true;
      report.kernel_type = "persistent_recurrent";
    }
    return report;
  };
  FakeProvider provider({
      {"# Stage: seed", code("score=0.1")},
      {"# Stage: algorithm analysis", diagnosis("persistent", "persistent_recurrent")},
      {"# Stage: optimise", code("score=1.37 persistent=1")},
      {"# Stage: tuning 1", code("score=1.5 persistent=1")},
      {"# Stage: tuning 2", code("score=1.4 persistent=1")},
  });
  store::RunConfig c = config();
  c.seeds = 1;
  PipelineResult result = run(provider, c);
  EXPECT_EQ(stages(result),
            (std::vector<std::string>{"seed", "optimise", "tune_grid", "tune_tiling"}));
  EXPECT_EQ(provider.count("tune_memory"), 0);
  EXPECT_NE(log_.find("guard: #2 is a persistent kernel (kernel analysis: persistent"),
            std::string::npos)
      << log_;
  EXPECT_NE(log_.find("tuning parameters only"), std::string::npos);
  EXPECT_NE(log_.find("guard: tune_memory skipped"), std::string::npos);
  for (std::size_t i = 0; i < provider.stages.size(); ++i)
    if (provider.stages[i].starts_with("tune_")) {
      EXPECT_NE(provider.requests[i].find("Tune PARAMETERS ONLY: the launch configuration"),
                std::string::npos);
      EXPECT_NE(provider.requests[i].find("`num_warps` and `num_stages`"), std::string::npos);
    }
}

TEST_F(PipelineTest, GuardNamesTheGridProblemOfAPersistentKernel) {
  analyze_ = [](const std::filesystem::path&) -> util::Result<analysis::Report> {
    analysis::Report report;
    report.persistent = true;
    report.diagnostics.push_back(
        {"grid-batch-only", analysis::Severity::kWarning, {}, "grid (B,)", "split hidden"});
    return report;
  };
  FakeProvider provider({
      {"# Stage: seed", code("score=2.0")},
      {"# Stage: tuning 1", code("score=2.5")},
      {"# Stage: tuning 2", code("score=2.4")},
  });
  store::RunConfig c = config();
  c.seeds = 1;
  PipelineResult result = run(provider, c);
  EXPECT_EQ(stages(result), (std::vector<std::string>{"seed", "tune_grid", "tune_tiling"}));
  ASSERT_EQ(provider.requests.size(), 3u);
  EXPECT_NE(provider.requests[1].find("This is a PERSISTENT kernel"), std::string::npos);
  EXPECT_NE(provider.requests[1].find("analysis reports grid-batch-only"), std::string::npos);
}

TEST_F(PipelineTest, InvalidAnalysisIsAskedAgainWithTheValidationError) {
  FakeProvider provider({
      {"# Stage: seed", code("score=0.5")},
      {"(second try)", diagnosis()},
      {"# Stage: algorithm analysis", "{\"worth_optimizing\": \"yes\"}"},
      {"# Stage: optimise", code("score=0.9")},
      {"# Stage: tuning", code("score=0.1")},
  });
  store::RunConfig c = config();
  c.seeds = 1;
  PipelineResult result = run(provider, c);
  ASSERT_GE(provider.requests.size(), 3u);
  EXPECT_NE(provider.requests[2].find("failed to parse the analysis: missing reason, bottleneck"),
            std::string::npos)
      << provider.requests[2];
  EXPECT_EQ(provider.count("analysis"), 2);
  EXPECT_EQ(stages(result)[1], "optimise");
}

TEST_F(PipelineTest, TokenBudgetStopsWithTheBestSoFar) {
  FakeProvider provider({
      {"# Stage: seed", code("score=0.5")},
      {"# Stage: algorithm analysis", diagnosis()},
      {"# Stage: optimise", code("score=0.9")},
  });
  store::RunConfig c = config();
  c.seeds = 2;
  c.budget_tokens = 250;  // two seeds (150 each) spend it
  PipelineResult result = run(provider, c);
  EXPECT_EQ(result.record.state, "stopped");
  EXPECT_NE(result.record.stop_reason.find("token budget of 250 spent (300 used)"),
            std::string::npos);
  EXPECT_EQ(provider.requests.size(), 2u);
  EXPECT_TRUE(result.record.best_id.has_value());
  EXPECT_TRUE(std::filesystem::exists(last_dir_ / "best.py"));
}

TEST_F(PipelineTest, CandidateLimitStops) {
  FakeProvider provider({{"# Stage: seed", code("status=runtime_error")},
                         {"# Stage: repair", code("status=runtime_error")}});
  store::RunConfig c = config();
  c.seeds = 1;
  c.max_candidates = 2;
  PipelineResult result = run(provider, c);
  EXPECT_EQ(result.record.candidates.size(), 2u);
  EXPECT_EQ(result.record.stop_reason, "candidate limit of 2 reached");
  EXPECT_FALSE(result.record.best_id.has_value());
}

TEST_F(PipelineTest, ResumeReplaysFinishedStepsWithoutRedoingThem) {
  std::vector<FakeProvider::Rule> rules = {
      {"# Stage: seed 1 of 2", code("status=compile_error")},
      {"# Stage: seed 2 of 2", code("score=0.4")},
      {"# Stage: repair", code("score=0.3")},
      {"# Stage: algorithm analysis", diagnosis()},
      {"# Stage: optimise", code("score=1.2")},
      {"# Stage: tuning", code("score=1.1")},
  };
  store::RunConfig c = config();
  c.repairs = 1;
  FakeProvider first(rules);
  // The "kill": the model disappears after the seeds and the repair.
  first.failing = {"analysis", "tune_grid", "tune_tiling", "tune_memory"};
  PipelineResult interrupted = run(first, c);
  int evaluations_before = pool_.evaluations;
  EXPECT_EQ(evaluations_before, 3);

  FakeProvider second(rules);
  PipelineResult resumed = run(second, c, last_dir_);
  EXPECT_EQ(second.count("seed"), 0);
  EXPECT_EQ(second.count("repair"), 0);
  EXPECT_EQ(second.count("analysis"), 2);
  EXPECT_EQ(pool_.evaluations - evaluations_before, 5);  // 2 optimise + 3 tuning
  EXPECT_NE(log_.find("resuming:"), std::string::npos);
  EXPECT_EQ(resumed.record.state, "finished");
  // The replayed candidates keep their numbers.
  for (const auto& before : interrupted.record.candidates) {
    const store::CandidateRecord* after = store::find_candidate(resumed.record, before.id);
    ASSERT_NE(after, nullptr);
    EXPECT_EQ(after->key, before.key);
  }
  // Tokens of replayed calls still count.
  EXPECT_EQ(store::total_tokens(resumed.record).calls, 3 + 2 + 2 + 3);
}

TEST_F(PipelineTest, ReplyWithoutCodeIsRepairedWithTheExtractionError) {
  FakeProvider provider({
      {"# Stage: seed", "Sorry, I cannot write that."},
      {"# Stage: repair", code("score=2.0")},
  });
  store::RunConfig c = config();
  c.seeds = 1;
  c.guard = false;
  provider.failing = {"tune_grid", "tune_tiling", "tune_memory"};
  PipelineResult result = run(provider, c);
  ASSERT_GE(provider.requests.size(), 2u);
  EXPECT_NE(provider.requests[1].find("failed to extract code from the reply"), std::string::npos);
  EXPECT_EQ(pool_.evaluations, 1);
  EXPECT_EQ(result.record.candidates[0].status, "syntax_error");
}

// kforge rank re-times a CPU run's candidates: the run record then carries the GPU's eager time
// beside the score, so the summary's "vs eager" is a number (it printed "—" before).
TEST(CandidateRanking, AppliedRankingCarriesTheEagerBaseline) {
  store::RunRecord run;
  store::CandidateRecord candidate;
  candidate.id = 2;
  candidate.status = "ok";
  run.candidates.push_back(candidate);
  store::RankResult rank;
  rank.device = "cuda";
  rank.device_name = "NVIDIA H100 80GB HBM3";
  rank.entries.push_back({2, "ok", 14.56, 4.859, 5e-4, "", 70.75});
  rank.best_id = 2;
  store::RunRecord ranked = apply_ranking(run, rank);
  ASSERT_EQ(ranked.best_id, 2);
  EXPECT_EQ(ranked.candidates[0].eager_ms, 70.75);
  EXPECT_EQ(ranked.candidates[0].latency_ms, 4.859);
  EXPECT_EQ(ranked.ranking, "ranked");
}

}  // namespace
}  // namespace kforge::pipeline

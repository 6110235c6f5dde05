// drive_suite over real worker processes (tests/fake_worker.py), one pool per fake GPU: tasks
// spread across the slots, none twice, none lost, and a stopped suite resumes where it was.

#include "suite/suite_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "eval/worker_pool.h"
#include "suite/task_evaluation.h"
#include "util/temp_dir_for_test.h"

namespace kforge::suite {
namespace {

namespace fs = std::filesystem;

eval::PoolOptions fake_pool(int gpu) {
  eval::PoolOptions options;
  std::string venv = std::string(KFORGE_TEST_DATA) + "/../.venv/bin/python3";
  options.python = ::access(venv.c_str(), X_OK) == 0 ? venv : "python3";
  options.worker_dir = KFORGE_TEST_DATA;
  options.module = "fake_worker";
  options.device = eval::Device::kCuda;  // the fake "times" candidates: speed-ups to report
  options.gpus = {gpu};
  options.grace_s = 5;
  options.start_timeout_s = 20;
  options.shutdown_grace_s = 2;
  return options;
}

/// A KernelBench-like suite: `n` level-1 tasks, candidates in KernelBench's generated layout
/// with a fake median each, and a few tasks without a candidate.
struct Fixture {
  fs::path dir;
  std::vector<SuiteTask> tasks;
  CandidateMatch match;
  SuiteConfig config;
};

Fixture make_fixture(const std::string& name, int n) {
  Fixture f;
  f.dir = util::fresh_temp_dir("suite_runner_" + name);
  fs::create_directories(f.dir / "level1");
  fs::create_directories(f.dir / "cands");
  for (int i = 1; i <= n; ++i) {
    fs::path task = f.dir / "level1" / (std::to_string(i) + "_Task.py");
    std::ofstream(task) << "# task\n";
    if (i % 4 != 0)  // every fourth task has no candidate
      std::ofstream(f.dir / "cands" / ("level1_problem" + std::to_string(i) + "_sample0.py"))
          << "# fake_median_ms: " << (5.0 + i) << "\n";
  }
  auto tasks = find_tasks({(f.dir / "level1").string()});
  EXPECT_TRUE(tasks);
  f.tasks = *tasks;
  auto match = match_candidates(f.tasks, f.dir / "cands");
  EXPECT_TRUE(match);
  f.match = *match;
  f.config.mode = "eval";
  for (const auto& t : f.tasks) {
    f.config.task_ids.push_back(t.id);
    f.config.task_paths.push_back(t.path.string());
  }
  f.config.settings.device = eval::Device::kCuda;
  return f;
}

struct Drive {
  std::vector<std::unique_ptr<eval::WorkerPool>> pools;
  std::unique_ptr<SuiteJournal> journal;
  std::unique_ptr<SuiteProgress> progress;
};

util::Result<SuiteOutcome> drive(Fixture& f, Drive& d, std::vector<int> gpus,
                                 std::function<std::optional<std::string>()> stop = {}) {
  for (int gpu : gpus) d.pools.push_back(eval::make_worker_pool(fake_pool(gpu)));
  auto journal = SuiteJournal::open(f.dir / "journal.jsonl");
  EXPECT_TRUE(journal);
  d.journal = std::move(*journal);
  if (!d.journal->config()) {
    EXPECT_TRUE(d.journal->record_config(f.config));
  }
  d.progress = std::make_unique<SuiteProgress>(nullptr, false, f.tasks.size(), 0, 0, gpus.size(),
                                               [] { return 0.0; });
  eval::EvalRequest request;
  request.device = eval::Device::kCuda;
  SuiteDrive drive{.dir = f.dir,
                   .journal = *d.journal,
                   .tasks = f.tasks,
                   .shard = 0,
                   .slots = gpus.size(),
                   .slot_gpus = gpus,
                   .work =
                       [&](const SuiteTask& task, std::size_t slot) {
                         std::this_thread::sleep_for(std::chrono::milliseconds(30));
                         auto it = f.match.by_task.find(task.id);
                         std::vector<CandidateFile> none;
                         return evaluate_task(*d.pools[slot], task,
                                              it == f.match.by_task.end() ? none : it->second,
                                              request, f.dir / "evals");
                       },
                   .stop_reason = std::move(stop),
                   .progress = *d.progress,
                   .write_reports = true};
  return drive_suite(drive);
}

std::map<std::string, int> journal_lines_per_task(const fs::path& file) {
  std::map<std::string, int> count;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    auto at = line.find(R"("id":")");
    if (line.find(R"("kind":"task")") == std::string::npos || at == std::string::npos) continue;
    at += 6;
    ++count[line.substr(at, line.find('"', at) - at)];
  }
  return count;
}

TEST(DriveSuite, TasksSpreadOverThreeFakeGpusNoneTwiceNoneLost) {
  Fixture f = make_fixture("spread", 16);
  Drive d;
  auto outcome = drive(f, d, {0, 1, 2});
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->done_here, 16);
  EXPECT_EQ(outcome->pending, 0);
  EXPECT_EQ(outcome->record.state, "finished");
  ASSERT_EQ(outcome->record.tasks.size(), 16u);
  std::set<int> gpus;
  for (const TaskResult& r : outcome->record.tasks) {
    gpus.insert(r.gpu);
  }
  EXPECT_GE(gpus.size(), 2u);
  EXPECT_TRUE(gpus.contains(0) || gpus.contains(1) || gpus.contains(2));
  for (const auto& [id, n] : journal_lines_per_task(f.dir / "journal.jsonl")) EXPECT_EQ(n, 1) << id;
  EXPECT_EQ(journal_lines_per_task(f.dir / "journal.jsonl").size(), 16u);
  int missing = 0, ok = 0;
  for (const TaskResult& r : outcome->record.tasks) {
    missing += r.status == "missing";
    ok += r.status == "ok";
    if (r.status == "ok") {
      ASSERT_TRUE(r.best_ms);
      EXPECT_DOUBLE_EQ(*r.eager_ms, 20.7);  // the fake worker's eager time
    }
  }
  EXPECT_EQ(missing, 4);
  EXPECT_EQ(ok, 12);
  EXPECT_TRUE(fs::exists(f.dir / "suite.json"));
  EXPECT_TRUE(fs::exists(f.dir / "report.html"));
  EXPECT_TRUE(fs::exists(f.dir / "evals" / "1_Task.json"));
}

TEST(DriveSuite, StoppedThenResumedDoesEveryTaskOnce) {
  Fixture f = make_fixture("resume", 10);
  {
    Drive d;
    std::atomic<int> asked{0};
    auto outcome = drive(f, d, {0, 1}, [&]() -> std::optional<std::string> {
      if (++asked > 4) return "suite time limit reached";
      return std::nullopt;
    });
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->record.state, "stopped");
    EXPECT_EQ(outcome->record.stop_reason, "suite time limit reached");
    EXPECT_GT(outcome->pending, 0);
    int not_run = 0;
    for (const auto& r : outcome->record.tasks) not_run += r.status == "not_run";
    EXPECT_EQ(not_run, outcome->pending);
    EXPECT_EQ(outcome->record.tasks.size(), 10u);  // every task shown once, finished or not
  }
  Drive d;
  auto outcome = drive(f, d, {0, 1});
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->pending, 0);
  EXPECT_EQ(outcome->record.state, "finished");
  EXPECT_LT(outcome->done_here, 10);
  auto lines = journal_lines_per_task(f.dir / "journal.jsonl");
  EXPECT_EQ(lines.size(), 10u);
  for (const auto& [id, n] : lines) EXPECT_EQ(n, 1) << id;
}

}  // namespace
}  // namespace kforge::suite

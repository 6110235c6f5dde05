#include "store/run_store.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "store/run_index.h"

namespace kforge::store {
namespace {

class RunStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("kforge_store_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_;
};

RunRecord sample_run(const std::string& id) {
  RunRecord run;
  run.id = id;
  run.config.task = "tasks/39_GRU.py";
  run.config.provider = "deepseek";
  run.config.model = "deepseek-chat";
  run.task_name = "39_GRU";
  run.state = "finished";
  run.candidates.push_back(
      {1, "seed", std::nullopt, "seed1", "candidates/1_seed.py", "ok", 0.1157, 179.26});
  run.candidates.push_back(
      {2, "optimise", 1, "optimise1", "candidates/2_optimise.py", "ok", 1.3696, 15.14});
  run.tokens.push_back({"seed", 1, 1945, 12089});
  run.tokens.push_back({"analysis", 1, 4106, 780});
  run.best_id = 2;
  return run;
}

TEST_F(RunStoreTest, NamesTheRunDirectoryLikeThePrototype) {
  auto time = std::chrono::system_clock::from_time_t(1795255200);  // 2026-11-21 10:00:00 UTC
  auto store = RunStore::create(root_, "39_GRU", "deepseek", "deepseek/chat:v3", time);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  EXPECT_EQ((*store)->id(), "20261121_100000_39_GRU_deepseek_deepseek-chat-v3");
  EXPECT_TRUE(std::filesystem::is_directory((*store)->dir() / "candidates"));
  EXPECT_TRUE(std::filesystem::is_directory((*store)->dir() / "transcripts"));
  auto again = RunStore::create(root_, "39_GRU", "deepseek", "deepseek/chat:v3", time);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ((*again)->id(), "20261121_100000_39_GRU_deepseek_deepseek-chat-v3_2");
  EXPECT_EQ((*store)->candidate_path(3, "repair").filename(), "3_repair.py");
}

TEST_F(RunStoreTest, RunRecordRoundTrips) {
  auto store = RunStore::create(root_, "t", "p", "m", std::chrono::system_clock::now());
  ASSERT_TRUE(store.has_value());
  RunRecord run = sample_run((*store)->id());
  ASSERT_TRUE((*store)->write_run(run).has_value());
  auto read = (*store)->read_run();
  ASSERT_TRUE(read.has_value()) << read.error().message;
  EXPECT_EQ(read->config.model, "deepseek-chat");
  ASSERT_EQ(read->candidates.size(), 2u);
  EXPECT_EQ(read->candidates[1].parent, 1);
  EXPECT_DOUBLE_EQ(*read->candidates[1].score, 1.3696);
  EXPECT_EQ(read->best_id, 2);
  EXPECT_EQ(total_tokens(*read).prompt_tokens, 1945 + 4106);
  EXPECT_EQ(RunStore::open(root_ / "absent").error().message,
            "failed to open run " + (root_ / "absent").string() + ": not a folder");
}

TEST_F(RunStoreTest, IndexRecordsRunsAndCandidatesAndReplacesOnResume) {
  auto index = RunIndex::open(root_ / "index.sqlite");
  ASSERT_TRUE(index.has_value()) << index.error().message;
  RunRecord run = sample_run("run-a");
  ASSERT_TRUE((*index)->record(run, root_ / "run-a").has_value());
  run.candidates.push_back(
      {3, "tune_grid", 2, "tune_grid", "candidates/3_tune_grid.py", "ok", 0.09});
  ASSERT_TRUE((*index)->record(run, root_ / "run-a").has_value());
  ASSERT_TRUE((*index)->record(sample_run("run-b"), root_ / "run-b").has_value());
  auto runs = (*index)->runs();
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].best_id, 2);
  EXPECT_DOUBLE_EQ(*(*runs)[0].best_score, 1.3696);
  EXPECT_EQ((*runs)[0].total_tokens, 1945 + 12089 + 4106 + 780);
  auto candidates = (*index)->candidates("run-a");
  ASSERT_TRUE(candidates.has_value());
  EXPECT_EQ(candidates->size(), 3u);
  EXPECT_EQ((*candidates)[2].stage, "tune_grid");
}

}  // namespace
}  // namespace kforge::store

#include "suite/task_list.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "util/temp_dir_for_test.h"

namespace kforge::suite {
namespace {

namespace fs = std::filesystem;

void touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "# test\n";
}

TEST(FindTasks, FolderSortedByProblemNumber) {
  fs::path root = util::fresh_temp_dir("task_list_find");
  for (const char* name : {"10_Matmul.py", "2_Relu.py", "1_Square.py", "notes.txt", "__init__.py"})
    touch(root / "level1" / name);
  auto tasks = find_tasks({(root / "level1").string()});
  ASSERT_TRUE(tasks) << tasks.error().message;
  ASSERT_EQ(tasks->size(), 3u);
  EXPECT_EQ((*tasks)[0].id, "1_Square");
  EXPECT_EQ((*tasks)[1].id, "2_Relu");
  EXPECT_EQ((*tasks)[2].id, "10_Matmul");
  EXPECT_EQ((*tasks)[2].level, 1);
  EXPECT_EQ((*tasks)[2].problem, 10);
}

TEST(FindTasks, GlobsAndCollidingStems) {
  fs::path root = util::fresh_temp_dir("task_list_glob");
  touch(root / "level1" / "1_Same.py");
  touch(root / "level2" / "1_Same.py");
  touch(root / "level2" / "2_Other.py");
  auto tasks = find_tasks({(root / "level1").string(), (root / "level2" / "1_*.py").string()});
  ASSERT_TRUE(tasks) << tasks.error().message;
  ASSERT_EQ(tasks->size(), 2u);
  EXPECT_EQ((*tasks)[0].id, "level1_1_Same");
  EXPECT_EQ((*tasks)[1].id, "level2_1_Same");
}

TEST(FindTasks, NothingMatchesIsAnError) {
  auto tasks = find_tasks({"/nonexistent/kforge/*.py"});
  ASSERT_FALSE(tasks);
  EXPECT_EQ(tasks.error().message,
            "failed to find tasks /nonexistent/kforge/*.py: no task file matches");
}

TEST(ShardTasks, DisjointAndCovering) {
  std::vector<SuiteTask> tasks;
  for (int i = 0; i < 11; ++i) tasks.push_back(make_task("t" + std::to_string(i), "t.py"));
  std::multiset<std::string> seen;
  for (int shard = 0; shard < 3; ++shard)
    for (const SuiteTask& t : shard_tasks(tasks, 3, shard)) seen.insert(t.id);
  EXPECT_EQ(seen.size(), 11u);
  for (const SuiteTask& t : tasks) EXPECT_EQ(seen.count(t.id), 1u) << t.id;
  EXPECT_EQ(shard_tasks(tasks, 3, 0).size(), 4u);
  EXPECT_EQ(shard_tasks(tasks, 1, 0).size(), 11u);
}

TEST(MatchCandidates, TaskNamesAndKernelBenchLayout) {
  fs::path root = util::fresh_temp_dir("task_list_match");
  for (const char* name : {"1_Square.py", "2_Relu.py", "3_Tanh.py", "19_ReLU.py"})
    touch(root / "level1" / name);
  fs::path cands = root / "cands";
  touch(cands / "1_Square.py");
  touch(cands / "level1_problem2_sample1.py");
  touch(cands / "level_1_problem_2_sample_0_kernel.py");
  touch(cands / "level1_problem19_sample0.py");
  touch(cands / "level2_problem2_sample0.py");  // another level: no task
  touch(cands / "stray.py");
  auto tasks = find_tasks({(root / "level1").string()});
  ASSERT_TRUE(tasks);
  auto match = match_candidates(*tasks, cands);
  ASSERT_TRUE(match) << match.error().message;
  ASSERT_EQ(match->by_task["1_Square"].size(), 1u);
  ASSERT_EQ(match->by_task["2_Relu"].size(), 2u);
  EXPECT_EQ(match->by_task["2_Relu"][0].sample, 0);
  EXPECT_EQ(match->by_task["2_Relu"][1].sample, 1);
  EXPECT_EQ(match->by_task["19_ReLU"].size(), 1u);
  EXPECT_FALSE(match->by_task.contains("3_Tanh"));  // missing: a row, not an error
  EXPECT_EQ(match->unmatched, (std::vector<std::string>{"level2_problem2_sample0.py", "stray.py"}));
}

}  // namespace
}  // namespace kforge::suite

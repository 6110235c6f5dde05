#include "prompts/library_example.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace kforge::prompts {
namespace {

/// A task built around one recurrent module, as inspect_task describes it: `type` "GRU"/"LSTM"/
/// "RNN", its constructor arguments, a Linear when `has_fc`, and a single output that is the
/// module's `returns` ("output", "h_n", "c_n") or, with "fc_last", the Linear's 2-D result.
task::TaskInfo rnn_task(const std::string& type, const std::string& bidirectional,
                        const std::string& batch_first, bool has_fc, const std::string& returns) {
  task::TaskInfo info;
  info.task_path = "/somewhere/tasks/my_task.py";
  info.modules.push_back({"", "Model", {}});
  info.modules.push_back(
      {"rnn", type, {{"bidirectional", bidirectional}, {"batch_first", batch_first}}});
  if (has_fc) info.modules.push_back({"fc", "Linear", {{"in_features", "256"}}});
  if (returns == "fc_last") {
    info.outputs.push_back({std::vector<std::int64_t>{10, 8}, "float32", std::nullopt});
    info.output_sources.push_back(std::nullopt);
  } else {
    info.outputs.push_back({std::vector<std::int64_t>{6, 10, 256}, "float32", std::nullopt});
    info.output_sources.push_back(task::OutputSource{"rnn", returns});
  }
  info.recurrent = true;
  return info;
}

class LibraryExampleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("kforge_library_example_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    // the real library's shapes of meta.json: by name only, and by signature
    add("gelu", R"({"name": "gelu", "source": "candidate.py", "tasks": ["gelu"]})", "# gelu");
    add("gru_bi_hn", signature_meta("gru", true, false, false, "h_n"), "# gru bi hn");
    add("gru_hn", signature_meta("gru", false, false, false, "h_n"), "# gru hn");
    add("gru_out", signature_meta("gru", false, false, false, "output"), "# gru out");
    add("lstm_bi_fc", signature_meta("lstm", true, true, true, "fc_last"), "# lstm bi fc");
    add("lstm_fc", signature_meta("lstm", false, true, true, "fc_last"), "# lstm fc");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  static std::string signature_meta(const std::string& type, bool bidirectional, bool batch_first,
                                    bool has_fc, const std::string& returns) {
    return fmt::format(
        R"({{"source": "candidate.py", "tasks": ["other"], "signature": {{"type": "{}",
            "bidirectional": {}, "batch_first": {}, "has_fc": {}, "returns": "{}"}}}})",
        type, bidirectional, batch_first, has_fc, returns);
  }
  void add(const std::string& name, const std::string& meta, const std::string& source) {
    std::filesystem::create_directories(root_ / name);
    std::ofstream(root_ / name / "meta.json") << meta;
    std::ofstream(root_ / name / "candidate.py") << source;
  }
  std::optional<LibraryExample> find(const task::TaskInfo& task, std::size_t max_chars = 40000) {
    return find_library_example({root_}, task, max_chars);
  }

  std::filesystem::path root_;
};

TEST_F(LibraryExampleTest, TakesTheEntryWithTheSameSignature) {
  auto hidden = find(rnn_task("GRU", "false", "false", false, "h_n"));
  ASSERT_TRUE(hidden.has_value());
  EXPECT_EQ(hidden->name, "gru_hn");
  EXPECT_EQ(hidden->source, "# gru hn");
  EXPECT_EQ(hidden->why,
            "same signature: type=gru bidirectional=false batch_first=false has_fc=false "
            "returns=h_n");
  // what forward returns decides between two kernels of the same cell
  auto output = find(rnn_task("GRU", "false", "false", false, "output"));
  ASSERT_TRUE(output.has_value());
  EXPECT_EQ(output->name, "gru_out");
  // the Linear's 2-D result is fc_last
  auto lstm = find(rnn_task("LSTM", "false", "true", true, "fc_last"));
  ASSERT_TRUE(lstm.has_value());
  EXPECT_EQ(lstm->name, "lstm_fc");
}

TEST_F(LibraryExampleTest, TakesAnEntryWithoutSignatureThatListsTheTask) {
  task::TaskInfo gelu;
  gelu.task_path = "/somewhere/tasks/gelu.py";
  gelu.modules.push_back({"", "Model", {}});
  auto example = find(gelu);
  ASSERT_TRUE(example.has_value());
  EXPECT_EQ(example->name, "gelu");
  EXPECT_EQ(example->why, "verified for this task");
}

TEST_F(LibraryExampleTest, FallsBackToTheSameCellDifferingInFewestFields) {
  // no lstm entry returns c_n: lstm_fc differs in returns alone, lstm_bi_fc (first in order)
  // also in bidirectional
  auto lstm = find(rnn_task("LSTM", "false", "true", true, "c_n"));
  ASSERT_TRUE(lstm.has_value());
  EXPECT_EQ(lstm->name, "lstm_fc");
  EXPECT_EQ(lstm->source, "# lstm fc");
  EXPECT_EQ(lstm->why, "same lstm cell; it has returns=fc_last, the task returns=c_n");
  // batch_first GRU returning h_n: gru_hn differs in batch_first alone, gru_bi_hn also in
  // bidirectional, gru_out also in returns
  auto gru = find(rnn_task("GRU", "false", "true", false, "h_n"));
  ASSERT_TRUE(gru.has_value());
  EXPECT_EQ(gru->name, "gru_hn");
  EXPECT_EQ(gru->why, "same gru cell; it has batch_first=false, the task batch_first=true");
  // with its best match too long to show, the next one
  add("gru_hn", signature_meta("gru", false, false, false, "h_n"), std::string(100, '#'));
  auto shorter = find(rnn_task("GRU", "false", "true", false, "h_n"), 50);
  ASSERT_TRUE(shorter.has_value());
  EXPECT_EQ(shorter->name, "gru_bi_hn");
  EXPECT_EQ(shorter->why,
            "same gru cell; it has batch_first=false bidirectional=true, the task "
            "batch_first=true bidirectional=false");
}

TEST_F(LibraryExampleTest, NothingWhenNothingIsRelated) {
  // a task without a recurrent module that no entry lists by name
  task::TaskInfo matmul;
  matmul.task_path = "/somewhere/tasks/matmul.py";
  matmul.modules.push_back({"", "Model", {}});
  matmul.modules.push_back({"fc", "Linear", {{"in_features", "256"}}});
  EXPECT_FALSE(find(matmul).has_value());
  // a cell the library has no kernel for
  EXPECT_FALSE(find(rnn_task("RNN", "false", "false", false, "output")).has_value());
  // every related source too long to show
  task::TaskInfo gelu;
  gelu.task_path = "tasks/gelu.py";
  EXPECT_FALSE(find(gelu, 5).has_value());
  // no library at all, or one that cannot be read
  EXPECT_FALSE(
      find_library_example({root_ / "missing"}, rnn_task("GRU", "false", "false", false, "h_n"))
          .has_value());
  add("broken", "{not json", "# broken");
  EXPECT_FALSE(find(rnn_task("GRU", "false", "false", false, "h_n")).has_value());
}

}  // namespace
}  // namespace kforge::prompts

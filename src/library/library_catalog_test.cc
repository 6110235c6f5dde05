#include "library/library_catalog.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kforge::library {
namespace {

// TaskInfo as the worker's inspect_task writes it (fields the signature reads), for 37_LSTMCn.
constexpr const char* kLstmCn = R"({
  "modules": [{"path": "", "type": "Model", "args": {}},
              {"path": "lstm", "type": "LSTM",
               "args": {"input_size": 128, "hidden_size": 256, "num_layers": 6, "bias": true,
                        "batch_first": true, "bidirectional": false, "dropout": 0.0}},
              {"path": "fc", "type": "Linear", "args": {"in_features": 256, "out_features": 10}}],
  "outputs": [{"shape": [6, 10, 256], "dtype": "float32"}],
  "output_sources": [{"module": "lstm", "value": "c_n"}]})";

constexpr const char* kLstmFc = R"({
  "modules": [{"path": "lstm", "type": "LSTM", "args": {"batch_first": true, "bidirectional": true}},
              {"path": "fc", "type": "Linear", "args": {}}],
  "outputs": [{"shape": [10, 10], "dtype": "float32"}], "output_sources": [null]})";

/// The signature of a TaskInfo given as JSON text.
TaskSignature derive(const char* task_info, const std::filesystem::path& task_path) {
  auto info = task::parse_task_info(task_info);
  EXPECT_TRUE(info) << info.error().message;
  return derive_signature(info ? *info : task::TaskInfo{}, task_path);
}

class LibraryDir : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("kforge_catalog_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void write(const std::string& name, const std::string& meta) {
    std::filesystem::create_directories(root_ / name);
    std::ofstream(root_ / name / "meta.json") << meta;
    std::ofstream(root_ / name / "candidate.py") << "class ModelNew: pass\n";
  }
  std::filesystem::path root_;
};

TEST(DeriveSignature, LstmReturningCellStateFromOutputSources) {
  TaskSignature signature = derive(kLstmCn, "tasks/37_LSTMCn.py");
  EXPECT_EQ(signature.task_name, "37_LSTMCn");
  EXPECT_EQ(signature.describe(),
            "type=lstm bidirectional=false batch_first=true has_fc=true returns=c_n");
}

TEST(DeriveSignature, TwoDimensionalOutputOfATaskWithALinearIsTheHead) {
  TaskSignature signature = derive(kLstmFc, "tasks/38_LSTMBidirectional.py");
  EXPECT_EQ(signature.fields.at("returns"), "fc_last");
  EXPECT_EQ(signature.fields.at("bidirectional"), "true");
}

TEST(DeriveSignature, NoRecurrentModuleGivesNoFields) {
  TaskSignature plain = derive(R"({"modules": [{"path": "", "type": "Model"}]})", "t/gelu.py");
  EXPECT_TRUE(plain.fields.empty());
  EXPECT_EQ(plain.describe(), "gelu");
}

TEST_F(LibraryDir, FindEntryNeedsEverySignatureFieldToMatch) {
  write("lstm_hn", R"({"name": "lstm_hn", "tasks": ["36_LSTMHn"], "signature": {"type": "lstm",
      "bidirectional": false, "returns": "h_n", "batch_first": true, "has_fc": true}})");
  write("lstm_cn", R"({"name": "lstm_cn", "tasks": ["37_LSTMCn"], "signature": {"type": "lstm",
      "bidirectional": false, "returns": "c_n", "batch_first": true, "has_fc": true},
      "measurements": [{"task": "37_LSTMCn", "device": "H100", "date": "2026-11-21",
                        "engine": "cluster", "library_ms": 4.9, "speedup_vs_cuda_graph": 1.65}]})");
  auto entries = load_library({root_, root_ / "missing"});
  ASSERT_TRUE(entries) << entries.error().message;
  ASSERT_EQ(entries->size(), 2u);
  TaskSignature signature = derive(kLstmCn, "tasks/37_LSTMCn.py");
  const LibraryEntry* entry = find_entry(*entries, signature);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name, "lstm_cn");
  EXPECT_EQ(entry->source, root_ / "lstm_cn" / "candidate.py");
  ASSERT_EQ(entry->measurements.size(), 1u);
  EXPECT_DOUBLE_EQ(*entry->measurements[0].speedup_vs_cuda_graph, 1.65);
  // same structure, bidirectional: nothing matches
  signature.fields["bidirectional"] = "true";
  EXPECT_EQ(find_entry(*entries, signature), nullptr);
}

TEST_F(LibraryDir, EntryWithoutSignatureMatchesByTaskName) {
  write("gelu_run", R"({"tasks": ["gelu"]})");
  auto entries = load_library({root_});
  ASSERT_TRUE(entries);
  TaskSignature gelu{"gelu", {}};
  const LibraryEntry* entry = find_entry(*entries, gelu);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name, "gelu_run");
  EXPECT_EQ(find_entry(*entries, TaskSignature{"softmax", {}}), nullptr);
}

TEST_F(LibraryDir, MalformedMetaIsAnErrorNamingTheFile) {
  write("broken", "{not json");
  auto entries = load_library({root_});
  ASSERT_FALSE(entries);
  EXPECT_EQ(entries.error().message,
            "failed to read " + (root_ / "broken" / "meta.json").string() + ": not a JSON object");
}

TEST(LibraryRepository, EveryRnnTaskHasExactlyItsOwnEntry) {
  auto entries = load_library({std::filesystem::path(KFORGE_SOURCE_DIR) / "library"});
  ASSERT_TRUE(entries) << entries.error().message;
  struct Case {
    const char* task;
    const char* type;
    const char* bidirectional;
    const char* batch_first;
    const char* has_fc;
    const char* returns;
    const char* entry;
  };
  const Case cases[] = {
      {"35_LSTM", "lstm", "false", "true", "true", "fc_last", "lstm_fc"},
      {"36_LSTMHn", "lstm", "false", "true", "true", "h_n", "lstm_hn"},
      {"37_LSTMCn", "lstm", "false", "true", "true", "c_n", "lstm_cn"},
      {"38_LSTMBidirectional", "lstm", "true", "true", "true", "fc_last", "lstm_bi_fc"},
      {"39_GRU", "gru", "false", "false", "false", "output", "gru_out"},
      {"40_GRUHidden", "gru", "false", "false", "false", "h_n", "gru_hn"},
      {"41_GRUBidirectional", "gru", "true", "false", "false", "output", "gru_bi_out"},
      {"42_GRUBidirectionalHidden", "gru", "true", "false", "false", "h_n", "gru_bi_hn"},
  };
  for (const Case& c : cases) {
    TaskSignature signature{c.task,
                            {{"type", c.type},
                             {"bidirectional", c.bidirectional},
                             {"batch_first", c.batch_first},
                             {"has_fc", c.has_fc},
                             {"returns", c.returns}}};
    const LibraryEntry* entry = find_entry(*entries, signature);
    ASSERT_NE(entry, nullptr) << c.task;
    EXPECT_EQ(entry->name, c.entry) << c.task;
  }
}

}  // namespace
}  // namespace kforge::library

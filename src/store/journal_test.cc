#include "store/journal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

namespace kforge::store {
namespace {

std::filesystem::path temp_file(const char* name) {
  auto path = std::filesystem::temp_directory_path() /
              (std::string(name) + "_" + std::to_string(::getpid()) + ".jsonl");
  std::filesystem::remove(path);
  return path;
}

TEST(Journal, ReplaysWhatWasRecordedAndSkipsATornLastLine) {
  auto path = temp_file("journal_test");
  {
    auto journal = Journal::open(path);
    ASSERT_TRUE(journal.has_value());
    llm::ChatReply reply;
    reply.content = "```python\nclass ModelNew: pass\n```";
    reply.usage.prompt_tokens = 12;
    reply.usage.completion_tokens = 34;
    ASSERT_TRUE((*journal)->record_chat("seed1", "seed", reply).has_value());
    ASSERT_TRUE((*journal)->record_candidate("seed1", 1, "seed").has_value());
    eval::Evaluation evaluation;
    evaluation.status = eval::Status::kWrongOutput;
    evaluation.error = "mismatch";
    evaluation.correctness = eval::Correctness{};
    evaluation.correctness->max_abs_err = std::nan("");
    ASSERT_TRUE((*journal)->record_evaluation("eval:seed1", evaluation).has_value());
    analysis::Report report;
    report.persistent = true;
    report.kernel_type = "persistent_recurrent";
    report.diagnostics.push_back({"python-time-loop",
                                  analysis::Severity::kError,
                                  {"c.py", 12, 0},
                                  "time loop in Python",
                                  "move it"});
    ASSERT_TRUE((*journal)->record_analysis("facts:seed1", report).has_value());
  }
  std::ofstream(path, std::ios::app) << "{\"kind\": \"chat\", \"key\": \"seed2\", \"rep";
  auto journal = Journal::open(path);
  ASSERT_TRUE(journal.has_value());
  EXPECT_EQ((*journal)->loaded_entries(), 4u);
  ASSERT_TRUE((*journal)->chat("seed1").has_value());
  EXPECT_EQ((*journal)->chat("seed1")->usage.completion_tokens, 34);
  EXPECT_FALSE((*journal)->chat("seed2").has_value());
  EXPECT_EQ((*journal)->candidate_id("seed1"), 1);
  EXPECT_EQ((*journal)->max_candidate_id(), 1);
  auto evaluation = (*journal)->evaluation("eval:seed1");
  ASSERT_TRUE(evaluation.has_value());
  EXPECT_EQ(evaluation->status, eval::Status::kWrongOutput);
  EXPECT_TRUE(std::isnan(evaluation->correctness->max_abs_err));
  auto report = (*journal)->analysis("facts:seed1");
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(report->persistent);
  ASSERT_EQ(report->diagnostics.size(), 1u);
  EXPECT_EQ(report->diagnostics[0].location.line, 12u);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kforge::store

namespace kforge::store {
namespace {

TEST(Journal, SurvivesInvalidUtf8InARecordedReply) {
  auto path = temp_file("journal_utf8_test");
  auto journal = Journal::open(path);
  ASSERT_TRUE(journal.has_value());
  llm::ChatReply reply;
  reply.content = "bad byte \xff here";
  ASSERT_TRUE((*journal)->record_chat("seed1", "seed", reply).has_value());
  auto again = Journal::open(path);
  ASSERT_TRUE(again.has_value());
  ASSERT_TRUE((*again)->chat("seed1").has_value());
  EXPECT_EQ((*again)->chat("seed1")->content.rfind("bad byte ", 0), 0u);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kforge::store

#include "llm/replay_provider.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kforge::llm {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

/// A recorded run: transcripts and a journal in a temporary folder.
class RecordedRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kforge_replay_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "transcripts");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void record(const std::string& name, const std::string& stage, const std::string& prompt,
              const std::optional<std::string>& content, const std::string& error = "") {
    json transcript = {{"provider", "openai"},
                       {"model", "slow-model"},
                       {"stage", stage},
                       {"request", {{"messages", {{{"role", "user"}, {"content", prompt}}}}}}};
    if (content)
      transcript["reply"] = {{"content", *content},
                             {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 20}}},
                             {"latency_s", 626.1}};
    else
      transcript["reply"] = nullptr;
    if (!error.empty()) transcript["error"] = error;
    std::ofstream(dir_ / "transcripts" / name) << transcript.dump(2);
  }
  void journal(const std::vector<std::pair<std::string, std::string>>& stage_and_content) {
    std::ofstream out(dir_ / "journal.jsonl");
    for (const auto& [stage, content] : stage_and_content)
      out << json{{"kind", "chat"},
                  {"key", stage},
                  {"stage", stage},
                  {"reply", {{"content", content}}}}
                 .dump()
          << "\n";
  }
  std::unique_ptr<ReplayProvider> open() {
    auto provider = ReplayProvider::open(dir_, ledger_);
    EXPECT_TRUE(provider) << provider.error().message;
    return provider ? std::move(*provider) : nullptr;
  }
  ChatRequest request(const std::string& stage, const std::string& name,
                      const std::string& prompt = "prompt") {
    ChatRequest r;
    r.stage = stage;
    r.messages = {{"user", prompt}};
    if (!name.empty()) r.transcript_path = dir_ / "out" / name;
    return r;
  }

  fs::path dir_;
  std::shared_ptr<TokenLedger> ledger_ = std::make_shared<TokenLedger>();
};

TEST_F(RecordedRun, AnswersEachCallByItsTranscriptNameAndWritesItsOwnTranscript) {
  record("1_seed.json", "seed", "prompt", "seed one");
  record("2_seed.json", "seed", "prompt", "seed two");
  record("1_analysis.json", "analysis", "prompt", "{\"worth_optimizing\": \"no\"}");
  auto replay = open();
  EXPECT_EQ(replay->name(), "replay");
  EXPECT_EQ(replay->model(), "recorded");  // no run.json: the replies name no model either
  auto second = replay->chat(request("seed", "2_seed.json"));
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->content, "seed two");
  EXPECT_EQ(second->usage.completion_tokens, 20);
  EXPECT_EQ(ledger_->stage("seed").completion_tokens, 20);
  auto first = replay->chat(request("seed", "1_seed.json"));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->content, "seed one");

  std::ifstream in(dir_ / "out" / "2_seed.json");
  std::stringstream text;
  text << in.rdbuf();
  json written = json::parse(text.str());
  EXPECT_EQ(written["provider"], "replay");
  EXPECT_EQ(written["reply"]["content"], "seed two");
  EXPECT_EQ(written["request"]["replayed_from"], "2_seed.json");
}

TEST_F(RecordedRun, MismatchesAreClearErrors) {
  record("1_seed.json", "seed", "prompt", "seed one");
  record("2_repair.json", "repair", "prompt", "fixed");
  auto replay = open();
  std::string dir = dir_.string();
  EXPECT_EQ(
      replay->chat(request("optimise", "2_repair.json")).error().message,
      "failed to replay " + dir +
          " (stage optimise): the recorded call 2_repair.json was stage repair, not optimise");
  EXPECT_EQ(replay->chat(request("tune_grid", "3_tune_grid.json")).error().message,
            "failed to replay " + dir +
                " (stage tune_grid): the recorded run made no call 3_tune_grid.json (it made 2: "
                "1_seed.json, 2_repair.json)");
  ASSERT_TRUE(replay->chat(request("seed", "1_seed.json")));
  EXPECT_EQ(replay->chat(request("seed", "1_seed.json")).error().message,
            "failed to replay " + dir +
                " (stage seed): the recorded call 1_seed.json was already replayed");
  EXPECT_EQ(ledger_->stage("seed").failed_calls, 1);
}

TEST_F(RecordedRun, CallsWithoutANameGoInJournalOrderUntilNoneIsLeft) {
  record("1_seed.json", "seed", "prompt", "seed one");
  record("2_seed.json", "seed", "prompt", "seed two");
  journal({{"seed", "seed two"}, {"seed", "seed one"}});  // seed two finished first
  auto replay = open();
  EXPECT_EQ(replay->chat(request("seed", ""))->content, "seed two");
  EXPECT_EQ(replay->chat(request("seed", ""))->content, "seed one");
  EXPECT_EQ(replay->chat(request("seed", "")).error().message,
            "failed to replay " + dir_.string() +
                " (stage seed): out of recorded calls (all 2 were replayed)");
}

TEST_F(RecordedRun, NextCallOfAnotherStageIsAnError) {
  record("1_seed.json", "seed", "prompt", "seed one");
  auto replay = open();
  EXPECT_EQ(replay->chat(request("analysis", "")).error().message,
            "failed to replay " + dir_.string() +
                " (stage analysis): the next recorded call, 1_seed.json, was stage seed");
}

TEST_F(RecordedRun, RecordedFailureIsReplayedAndDifferentPromptsStillAnswer) {
  record("1_seed.json", "seed", "old prompt", std::nullopt, "failed to query: HTTP 500");
  record("2_seed.json", "seed", "old prompt", "two");
  auto replay = open();
  EXPECT_EQ(replay->chat(request("seed", "1_seed.json", "new prompt")).error().message,
            "failed to replay " + dir_.string() +
                " (stage seed): the recorded call 1_seed.json failed: failed to query: HTTP 500");
  EXPECT_EQ(replay->chat(request("seed", "2_seed.json", "new prompt"))->content, "two");
}

TEST(ReplayProviderOpen, ErrorsNameTheFolderAndTheFile) {
  fs::path missing = fs::temp_directory_path() / "kforge_replay_no_such_run";
  EXPECT_EQ(ReplayProvider::open(missing, nullptr).error().message,
            "failed to read recorded run " + missing.string() + ": no such directory");
  fs::path dir = fs::temp_directory_path() / ("kforge_replay_bad_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  EXPECT_EQ(ReplayProvider::open(dir, nullptr).error().message,
            "failed to read recorded run " + dir.string() +
                ": no transcripts/ folder (is it a kforge run directory?)");
  fs::create_directories(dir / "transcripts");
  std::ofstream(dir / "transcripts" / "1_seed.json") << "{\"stage\": \"seed\",\n \"reply\": }";
  auto bad = ReplayProvider::open(dir, nullptr);
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().message.starts_with("failed to read recorded call " + dir.string() +
                                              "/transcripts/1_seed.json:2:"))
      << bad.error().message;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kforge::llm

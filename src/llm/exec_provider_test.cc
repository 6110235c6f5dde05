#include "llm/exec_provider.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "llm/model_server_for_test.h"
#include "llm/provider_factory.h"

namespace kforge::llm {
namespace {

using nlohmann::json;
using testing::FakeClock;
namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A folder with a model script in it, removed afterwards.
class ModelScript : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kforge_exec_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// Writes the script and a provider that runs it.
  std::unique_ptr<Provider> provider(const std::string& script, int max_attempts = 3,
                                     double timeout_s = 20) {
    std::ofstream(dir_ / "model.sh") << script;
    ProviderConfig config;
    config.name = "exec";
    config.api = Api::kExec;
    config.model = "script";
    config.needs_key = false;
    config.command = "cd '" + dir_.string() + "' && sh model.sh";
    config.request_timeout_s = timeout_s;
    config.retry.max_attempts = max_attempts;
    auto made = make_provider(config, {nullptr, clock_, ledger_, nullptr});
    EXPECT_TRUE(made) << made.error().message;
    return made ? std::move(*made) : nullptr;
  }

  ChatRequest request(const std::string& stage = "seed") {
    ChatRequest r;
    r.messages = {{"system", "You write Triton kernels."}, {"user", "Write ModelNew."}};
    r.stage = stage;
    r.task_path = "tasks/39_GRU.py";
    r.max_tokens = 4096;
    r.transcript_path = dir_ / "transcripts" / ("1_" + stage + ".json");
    return r;
  }

  fs::path dir_;
  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::shared_ptr<TokenLedger> ledger_ = std::make_shared<TokenLedger>();
};

TEST_F(ModelScript, JsonReplyWithUsageAndTheRequestOnStdin) {
  auto model = provider(
      "cat > request.json\n"
      "printf '%s' '{\"content\": \"```python\\nclass ModelNew: pass\\n```\", "
      "\"reasoning\": \"thought\", \"usage\": {\"prompt_tokens\": 11, \"completion_tokens\": "
      "7}}'\n");
  auto reply = model->chat(request());
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "```python\nclass ModelNew: pass\n```");
  EXPECT_EQ(reply->reasoning, "thought");
  EXPECT_EQ(reply->usage.prompt_tokens, 11);
  EXPECT_EQ(reply->usage.completion_tokens, 7);
  EXPECT_EQ(reply->attempts, 1);
  EXPECT_EQ(ledger_->stage("seed").prompt_tokens, 11);

  json sent = json::parse(read_text(dir_ / "request.json"));
  EXPECT_EQ(sent["stage"], "seed");
  EXPECT_EQ(sent["task"], "39_GRU");
  EXPECT_EQ(sent["model"], "script");
  EXPECT_EQ(sent["max_tokens"], 4096);
  EXPECT_EQ(sent["attempt"], 1);
  EXPECT_EQ(sent["messages"][1]["content"], "Write ModelNew.");

  json transcript = json::parse(read_text(dir_ / "transcripts" / "1_seed.json"));
  EXPECT_EQ(transcript["provider"], "exec");
  EXPECT_EQ(transcript["request"]["messages"][0]["role"], "system");
  EXPECT_EQ(transcript["reply"]["usage"]["completion_tokens"], 7);
}

TEST_F(ModelScript, PlainTextIsTheContentAndUsageIsEstimated) {
  auto model = provider("cat > /dev/null\necho 'Here is my kernel.'\n");
  auto reply = model->chat(request("analysis"));
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "Here is my kernel.");
  EXPECT_GT(reply->usage.prompt_tokens, 0);
  EXPECT_EQ(reply->usage.completion_tokens, 5);  // 18 characters / 4, rounded up
}

TEST_F(ModelScript, LargeRequestToACommandThatNeverReadsIt) {
  auto model = provider("echo 'answered without reading'\n");
  ChatRequest big = request();
  big.messages[1].content = std::string(1 << 20, 'x');  // far more than a pipe holds
  auto reply = model->chat(big);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "answered without reading");
}

TEST_F(ModelScript, FailingExitIsRetriedWithItsStderr) {
  auto model = provider(
      "cat > /dev/null\n"
      "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count\n"
      "if [ $n -lt 3 ]; then echo \"model busy $n\" >&2; exit 3; fi\n"
      "echo third\n");
  auto reply = model->chat(request());
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "third");
  EXPECT_EQ(reply->attempts, 3);
  EXPECT_EQ(clock_->sleeps().size(), 2u);
  json transcript = json::parse(read_text(dir_ / "transcripts" / "1_seed.json"));
  EXPECT_EQ(transcript["attempt_log"][0]["outcome"], "failed");
  EXPECT_EQ(transcript["attempt_log"][0]["error"],
            "the command failed (exit code 3); stderr:\nmodel busy 1");

  auto gives_up = provider("echo 'no luck' >&2; exit 1\n", 2);
  auto failed = gives_up->chat(request());
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message,
            "failed to query exec model script: gave up after 2 attempts: the command failed "
            "(exit code 1); stderr:\nno luck");
}

TEST_F(ModelScript, CommandThatCannotRunAndEmptyOutputFailAtOnce) {
  auto missing = provider("no-such-model-cli --answer\n");
  auto failed = missing->chat(request());
  ASSERT_FALSE(failed);
  EXPECT_TRUE(failed.error().message.starts_with(
      "failed to query exec model script: the command could not be run (exit code 127)"))
      << failed.error().message;
  EXPECT_TRUE(clock_->sleeps().empty());

  auto silent = provider("cat > /dev/null\n");
  auto empty = silent->chat(request());
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message,
            "failed to query exec model script: the command exited 0 but wrote nothing to "
            "stdout; (no stderr)");
}

TEST_F(ModelScript, TimeOutKillsTheProcessGroupAndKeepsThePartialOutput) {
  auto model = provider(
      "cat > /dev/null\n"
      "sleep 60 & echo $! > child.pid\n"
      "echo 'def forward(self, x):'\n"
      "wait\n",
      1, 0.5);
  auto started = std::chrono::steady_clock::now();
  auto failed = model->chat(request());
  ASSERT_FALSE(failed);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
  EXPECT_TRUE(failed.error().message.starts_with(
      "failed to query exec model script: gave up after 1 attempt: timed out after"))
      << failed.error().message;
  pid_t child = std::stoi(read_text(dir_ / "child.pid"));
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = ::kill(child, 0) != 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the command's background child survived the time-out";
  json transcript = json::parse(read_text(dir_ / "transcripts" / "1_seed.json"));
  EXPECT_EQ(transcript["attempt_log"][0]["outcome"], "abandoned");
  EXPECT_EQ(transcript["attempt_log"][0]["timed_out"], true);
  EXPECT_EQ(transcript["attempt_log"][0]["partial"]["content"], "def forward(self, x):\n");
}

TEST_F(ModelScript, LateAnswerOfTheFirstRunIsUsed) {
  auto model = provider(
      "cat > /dev/null\n"
      "if mkdir first.lock 2>/dev/null; then sleep 1; echo 'first, late'; "
      "else sleep 30; echo second; fi\n",
      2, 0.6);
  auto reply = model->chat(request());
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "first, late");
  EXPECT_EQ(reply->attempts, 2);
  json transcript = json::parse(read_text(dir_ / "transcripts" / "1_seed.json"));
  EXPECT_EQ(transcript["reply"]["late"], true);
  EXPECT_EQ(transcript["attempt_log"][1]["outcome"], "abandoned");
}

TEST_F(ModelScript, SecretsOfTheEnvironmentNeverReachTheTranscript) {
  ::setenv("KFORGE_EXEC_TEST_TOKEN", "tok-secret-0123456789", 1);
  auto model = provider("cat > /dev/null\necho \"my token is $KFORGE_EXEC_TEST_TOKEN\"\n");
  auto reply = model->chat(request());
  ::unsetenv("KFORGE_EXEC_TEST_TOKEN");
  ASSERT_TRUE(reply) << reply.error().message;
  std::string transcript = read_text(dir_ / "transcripts" / "1_seed.json");
  EXPECT_EQ(transcript.find("tok-secret-0123456789"), std::string::npos);
  EXPECT_NE(transcript.find("my token is [redacted]"), std::string::npos);
}

TEST(ParseCommandOutput, JsonWithWrongTypesIsAnErrorOtherJsonIsText) {
  EXPECT_EQ(parse_command_output("{\"content\": \"x\", \"usage\": {\"prompt_tokens\": -1}}")
                .error()
                .message,
            "failed to read the command's JSON reply: usage.prompt_tokens must be a non-negative "
            "integer");
  auto analysis = parse_command_output("{\"worth_optimizing\": \"yes\"}\n");
  ASSERT_TRUE(analysis);
  EXPECT_EQ(analysis->content, "{\"worth_optimizing\": \"yes\"}");
  auto truncated = parse_command_output("{\"content\": \"cut\", \"finish_reason\": \"length\"}");
  ASSERT_TRUE(truncated);
  EXPECT_TRUE(truncated->truncated);
}

}  // namespace
}  // namespace kforge::llm

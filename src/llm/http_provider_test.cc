#include "llm/http_provider.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "llm/model_server_for_test.h"
#include "llm/provider_factory.h"

namespace kforge::llm {
namespace {

using nlohmann::json;
using testing::FakeClock;
using testing::ModelServer;
using testing::SeenRequest;
using testing::send_events;

constexpr const char* kKey = "sk-test-0123456789abcdef";

// Bodies shaped as OpenAI documents them (Chat Completions object and chunk object), with
// DeepSeek's additions where noted.
json openai_completion(const std::string& content, const std::string& finish_reason = "stop") {
  json body = json::parse(R"({
    "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    "object": "chat.completion",
    "created": 1741569952,
    "model": "deepseek-chat",
    "choices": [{"index": 0,
                 "message": {"role": "assistant", "content": "", "refusal": null,
                             "annotations": []},
                 "logprobs": null, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150,
              "prompt_tokens_details": {"cached_tokens": 64, "audio_tokens": 0},
              "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                            "accepted_prediction_tokens": 0,
                                            "rejected_prediction_tokens": 0}},
    "service_tier": "default",
    "system_fingerprint": "fp_8802369eaa"
  })");
  body["choices"][0]["message"]["content"] = content;
  body["choices"][0]["finish_reason"] = finish_reason;
  return body;
}

std::string chunk(const json& delta, const json& finish_reason = nullptr) {
  json body = {
      {"id", "chatcmpl-123"},
      {"object", "chat.completion.chunk"},
      {"created", 1694268190},
      {"model", "deepseek-chat"},
      {"system_fingerprint", "fp_44709d6fcb"},
      {"choices",
       {{{"index", 0}, {"delta", delta}, {"logprobs", nullptr}, {"finish_reason", finish_reason}}}},
      {"usage", nullptr}};
  return "data: " + body.dump() + "\n\n";
}

std::string usage_chunk() {
  json body = {{"id", "chatcmpl-123"},
               {"object", "chat.completion.chunk"},
               {"created", 1694268190},
               {"model", "deepseek-chat"},
               {"choices", json::array()},
               {"usage",
                {{"prompt_tokens", 50},
                 {"completion_tokens", 4},
                 {"total_tokens", 54},
                 {"prompt_tokens_details", {{"cached_tokens", 0}}},
                 {"completion_tokens_details", {{"reasoning_tokens", 0}}}}}};
  return "data: " + body.dump() + "\n\n";
}

std::string anthropic_event(const std::string& type, const json& data) {
  return "event: " + type + "\ndata: " + data.dump() + "\n\n";
}

void reply_json(httplib::Response& response, int status, const json& body) {
  response.status = status;
  response.set_content(body.dump(), "application/json");
}

json openai_error(const std::string& message, const std::string& type, const json& param,
                  const json& code) {
  return {{"error", {{"message", message}, {"type", type}, {"param", param}, {"code", code}}}};
}

ProviderConfig openai_config(const ModelServer& server) {
  ProviderConfig config;
  config.name = "deepseek";
  config.api = Api::kOpenAi;
  config.base_url = server.base_url() + "/v1";
  config.model = "deepseek-chat";
  config.api_key = kKey;
  config.api_key_source = "DEEPSEEK_API_KEY";
  config.api_key_variables = {"DEEPSEEK_API_KEY", "KFORGE_API_KEY"};
  config.stream = false;
  config.connect_timeout_s = 2;
  config.request_timeout_s = 5;
  config.retry.max_attempts = 3;
  return config;
}

ProviderConfig anthropic_config(const ModelServer& server) {
  ProviderConfig config = openai_config(server);
  config.name = "anthropic";
  config.api = Api::kAnthropic;
  config.base_url = server.base_url();
  config.model = "claude-sonnet-4-5";
  config.api_key_source = "ANTHROPIC_API_KEY";
  config.api_key_variables = {"ANTHROPIC_API_KEY", "KFORGE_API_KEY"};
  return config;
}

/// A provider over the real libcurl transport with a fake clock for back-off sleeps.
struct Fixture {
  std::shared_ptr<FakeClock> clock = std::make_shared<FakeClock>();
  std::shared_ptr<TokenLedger> ledger = std::make_shared<TokenLedger>();
  std::unique_ptr<Provider> provider;

  explicit Fixture(const ProviderConfig& config) {
    auto made = make_provider(config, {nullptr, clock, ledger});
    EXPECT_TRUE(made.has_value()) << made.error().message;
    provider = std::move(*made);
  }
  util::Result<ChatReply> ask(std::optional<bool> stream = std::nullopt,
                              std::optional<int> max_tokens = 256,
                              std::optional<double> temperature = std::nullopt) {
    ChatRequest request;
    request.messages = {{"system", "You write Triton kernels."}, {"user", "Say hello."}};
    request.stage = "seed";
    request.max_tokens = max_tokens;
    request.temperature = temperature;
    request.stream = stream;
    return provider->chat(request);
  }
};

TEST(HttpProviderOpenAi, ChatReturnsContentUsageAndCost) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    reply_json(response, 200, openai_completion("Hello!"));
  });
  Fixture fixture(openai_config(server));
  auto reply = fixture.ask();
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "Hello!");
  EXPECT_EQ(reply->finish_reason, "stop");
  EXPECT_FALSE(reply->truncated);
  EXPECT_EQ(reply->model, "deepseek-chat");
  EXPECT_EQ(reply->usage.prompt_tokens, 120);
  EXPECT_EQ(reply->usage.completion_tokens, 30);
  EXPECT_EQ(reply->usage.cached_tokens, 64);
  EXPECT_EQ(reply->attempts, 1);
  // deepseek-chat: 0.28 in, 0.42 out, 0.028 cached per million.
  EXPECT_NEAR(reply->cost_usd, (56 * 0.28 + 64 * 0.028 + 30 * 0.42) / 1e6, 1e-12);
  EXPECT_GT(reply->latency_s, 0);

  auto seen = server.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].path, "/v1/chat/completions");
  EXPECT_EQ(seen[0].authorization, std::string("Bearer ") + kKey);
  EXPECT_EQ(seen[0].body["model"], "deepseek-chat");
  EXPECT_EQ(seen[0].body["max_tokens"], 256);
  EXPECT_EQ(seen[0].body["stream"], false);
  EXPECT_FALSE(seen[0].body.contains("stream_options"));
  EXPECT_EQ(seen[0].body["messages"][0]["role"], "system");
  EXPECT_EQ(seen[0].body["messages"][1]["content"], "Say hello.");

  TokenTotals seed = fixture.ledger->stage("seed");
  EXPECT_EQ(seed.calls, 1);
  EXPECT_EQ(seed.prompt_tokens, 120);
  EXPECT_EQ(fixture.ledger->total().completion_tokens, 30);
}

TEST(HttpProviderOpenAi, StreamingAccumulatesDeltasUsageAndProgress) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    send_events(response,
                {chunk({{"role", "assistant"}, {"content", ""}}), chunk({{"content", "Hel"}}),
                 chunk({{"content", "lo"}}), ": keep-alive comment\n\n", chunk({{"content", "!"}}),
                 chunk(json::object(), "stop"), usage_chunk(), "data: [DONE]\n\n"});
  });
  Fixture fixture(openai_config(server));
  std::vector<StreamProgress> progress;
  ChatRequest request;
  request.messages = {{"user", "Say hello."}};
  request.stage = "repair";
  request.stream = true;
  request.on_progress = [&](const StreamProgress& p) { progress.push_back(p); };
  auto reply = fixture.provider->chat(request);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "Hello!");
  EXPECT_EQ(reply->finish_reason, "stop");
  EXPECT_EQ(reply->usage.prompt_tokens, 50);
  EXPECT_EQ(reply->usage.completion_tokens, 4);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress[2].completion_tokens, 2);  // role chunk, "Hel", "lo"
  EXPECT_EQ(progress.back().completion_tokens, 4);
  auto seen = server.seen();
  EXPECT_EQ(seen[0].body["stream"], true);
  EXPECT_EQ(seen[0].body["stream_options"]["include_usage"], true);
  EXPECT_FALSE(seen[0].body.contains("max_tokens"));
}

TEST(HttpProviderOpenAi, KeepsDeepSeekReasoningContentApart) {
  ModelServer server([](int call, const SeenRequest&, httplib::Response& response) {
    if (call == 1) {
      json body = openai_completion("42");
      body["model"] = "deepseek-reasoner";
      body["choices"][0]["message"]["reasoning_content"] = "Six times seven.";
      body["usage"] = {{"prompt_tokens", 10},
                       {"completion_tokens", 40},
                       {"total_tokens", 50},
                       {"prompt_tokens_details", {{"cached_tokens", 0}}},
                       {"completion_tokens_details", {{"reasoning_tokens", 35}}},
                       {"prompt_cache_hit_tokens", 8},
                       {"prompt_cache_miss_tokens", 2}};
      reply_json(response, 200, body);
      return;
    }
    send_events(
        response,
        {chunk({{"role", "assistant"}, {"content", nullptr}, {"reasoning_content", "Six "}}),
         chunk({{"content", nullptr}, {"reasoning_content", "times seven."}}),
         chunk({{"content", "42"}, {"reasoning_content", nullptr}}),
         chunk({{"content", ""}}, "stop"), "data: [DONE]\n\n"});
  });
  ProviderConfig config = openai_config(server);
  config.model = "deepseek-reasoner";
  Fixture fixture(config);
  auto plain = fixture.ask(false);
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->content, "42");
  EXPECT_EQ(plain->reasoning, "Six times seven.");
  EXPECT_EQ(plain->usage.reasoning_tokens, 35);
  EXPECT_EQ(plain->usage.cached_tokens, 8);
  auto streamed = fixture.ask(true);
  ASSERT_TRUE(streamed) << streamed.error().message;
  EXPECT_EQ(streamed->content, "42");
  EXPECT_EQ(streamed->reasoning, "Six times seven.");
}

TEST(HttpProviderOpenAi, RetriesRateLimitHonouringRetryAfter) {
  ModelServer server([](int call, const SeenRequest&, httplib::Response& response) {
    if (call == 1) {
      response.set_header("Retry-After", "7");
      reply_json(response, 429,
                 openai_error("Rate limit reached for requests", "requests", nullptr,
                              "rate_limit_exceeded"));
      return;
    }
    reply_json(response, 200, openai_completion("ok"));
  });
  Fixture fixture(openai_config(server));
  auto reply = fixture.ask();
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "ok");
  EXPECT_EQ(reply->attempts, 2);
  EXPECT_EQ(fixture.clock->sleeps(), std::vector<double>{7.0});
}

TEST(HttpProviderOpenAi, RetriesServerErrorWithBackoffThenSucceeds) {
  ModelServer server([](int call, const SeenRequest&, httplib::Response& response) {
    if (call == 1) {
      reply_json(response, 500,
                 openai_error("The server had an error while processing your request.",
                              "server_error", nullptr, nullptr));
      return;
    }
    reply_json(response, 200, openai_completion("ok"));
  });
  ProviderConfig config = openai_config(server);
  config.retry.initial_backoff_s = 2;
  Fixture fixture(config);
  auto reply = fixture.ask();
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(server.calls(), 2);
  auto sleeps = fixture.clock->sleeps();
  ASSERT_EQ(sleeps.size(), 1u);
  EXPECT_GE(sleeps[0], 1.0);  // 2 s scaled by jitter in [0.5, 1]
  EXPECT_LE(sleeps[0], 2.0);
}

TEST(HttpProviderOpenAi, GivesUpOnPersistentServerErrorsAfterMaxAttempts) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    reply_json(response, 503,
               openai_error("Service Unavailable", "server_error", nullptr, nullptr));
  });
  Fixture fixture(openai_config(server));
  auto reply = fixture.ask();
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().message,
            "failed to query deepseek model deepseek-chat: gave up after 3 attempts: HTTP 503: "
            "server error: Service Unavailable");
  EXPECT_EQ(server.calls(), 3);
  EXPECT_EQ(fixture.clock->sleeps().size(), 2u);
  EXPECT_EQ(fixture.ledger->stage("seed").failed_calls, 1);
}

TEST(HttpProviderOpenAi, SlowReplyPastTheTimeOutIsRetriedThenReported) {
  ModelServer* self = nullptr;
  ModelServer server([&self](int, const SeenRequest&, httplib::Response& response) {
    self->stall(3);
    reply_json(response, 200, openai_completion("too late"));
  });
  self = &server;
  ProviderConfig config = openai_config(server);
  config.request_timeout_s = 0.2;
  config.retry.max_attempts = 2;
  Fixture fixture(config);
  auto reply = fixture.ask();
  ASSERT_FALSE(reply);
  EXPECT_TRUE(reply.error().message.starts_with(
      "failed to query deepseek model deepseek-chat: gave up after 2 attempts: timed out after"))
      << reply.error().message;
  EXPECT_EQ(server.calls(), 2);
}

json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

TEST(HttpProviderOpenAi, LateStreamedAnswerOfTheFirstAttemptIsUsedAndRecorded) {
  ModelServer* self = nullptr;
  ModelServer server([&self](int call, const SeenRequest&, httplib::Response& response) {
    response.set_chunked_content_provider("text/event-stream", [&self, call](
                                                                   std::size_t,
                                                                   httplib::DataSink& sink) {
      std::string head = chunk({{"content", call == 1 ? "def forward(" : "second try"}});
      sink.write(head.data(), head.size());
      self->stall(call == 1 ? 0.9 : 10);  // the first answers after its time-out
      std::string tail = chunk({{"content", "x)"}}, "stop") + usage_chunk() + "data: [DONE]\n\n";
      sink.write(tail.data(), tail.size());
      sink.done();
      return true;
    });
  });
  self = &server;
  ProviderConfig config = openai_config(server);
  config.stage_request_timeout_s["seed"] = 0.6;
  config.retry.max_attempts = 2;
  Fixture fixture(config);
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("kforge_late_test_" + std::to_string(server.port()));
  ChatRequest request;
  request.messages = {{"user", "Write the kernel."}};
  request.stage = "seed";
  request.stream = true;
  request.transcript_path = dir / "1_seed.json";
  auto reply = fixture.provider->chat(request);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "def forward(x)");
  EXPECT_EQ(reply->attempts, 2);
  EXPECT_EQ(server.calls(), 2);
  json transcript = read_json_file(request.transcript_path);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(transcript["reply"]["late"], true);
  ASSERT_EQ(transcript["attempt_log"].size(), 2u);
  EXPECT_EQ(transcript["attempt_log"][0]["outcome"], "reply");
  EXPECT_EQ(transcript["attempt_log"][0]["timed_out"], true);
  EXPECT_EQ(transcript["attempt_log"][1]["outcome"], "abandoned");
  EXPECT_EQ(transcript["attempt_log"][1]["partial"]["content"], "second try");
}

TEST(HttpProviderOpenAi, StageTimeOutKeepsTheStreamedPartialReply) {
  ModelServer* self = nullptr;
  ModelServer server([&self](int, const SeenRequest&, httplib::Response& response) {
    response.set_chunked_content_provider(
        "text/event-stream", [&self](std::size_t, httplib::DataSink& sink) {
          std::string head = chunk({{"content", "class ModelNew(nn.Module):"}});
          sink.write(head.data(), head.size());
          self->stall(10);
          return false;
        });
  });
  self = &server;
  ProviderConfig config = openai_config(server);  // request_timeout_s 5 for other stages
  config.stage_request_timeout_s["analysis"] = 0.3;
  config.retry.max_attempts = 1;
  Fixture fixture(config);
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("kforge_partial_test_" + std::to_string(server.port()));
  ChatRequest request;
  request.messages = {{"user", "Analyse."}};
  request.stage = "analysis";
  request.stream = true;
  request.transcript_path = dir / "1_analysis.json";
  auto started = std::chrono::steady_clock::now();
  auto reply = fixture.provider->chat(request);
  ASSERT_FALSE(reply);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
  EXPECT_TRUE(reply.error().message.starts_with(
      "failed to query deepseek model deepseek-chat: gave up after 1 attempt: timed out after"))
      << reply.error().message;
  EXPECT_NE(reply.error().message.find("(request time-out 0.3 s)"), std::string::npos);
  json transcript = read_json_file(request.transcript_path);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(transcript["reply"].is_null());
  EXPECT_EQ(transcript["attempt_log"][0]["outcome"], "abandoned");
  EXPECT_EQ(transcript["attempt_log"][0]["partial"]["content"], "class ModelNew(nn.Module):");
}

TEST(HttpProviderOpenAi, MalformedJsonNamesTheLocation) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    response.set_content("{\"id\": \"chatcmpl-1\",\n \"choices\": [{\"index\": 0,, }]}",
                         "application/json");
  });
  Fixture fixture(openai_config(server));
  auto reply = fixture.ask();
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().message,
            "failed to query deepseek model deepseek-chat: reply body:2:26: syntax error while "
            "parsing object key - unexpected ','; expected string literal\n"
            "     \"choices\": [{\"index\": 0,, }]}\n"
            "                             ^");
  EXPECT_EQ(server.calls(), 1);
}

TEST(HttpProviderOpenAi, StreamCutOffBeforeTheEndIsRetried) {
  ModelServer server([](int call, const SeenRequest&, httplib::Response& response) {
    if (call == 1) {  // the connection drops mid-body
      send_events(response, {chunk({{"content", "def forward("}})}, /*complete=*/false);
      return;
    }
    if (call == 2) {  // the body ends cleanly but without finish_reason or [DONE]
      send_events(response, {chunk({{"content", "def forward("}})});
      return;
    }
    send_events(response, {chunk({{"content", "done"}}, "stop"), "data: [DONE]\n\n"});
  });
  Fixture fixture(openai_config(server));
  auto reply = fixture.ask(true);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "done");
  EXPECT_EQ(reply->attempts, 3);

  ModelServer cut([](int, const SeenRequest&, httplib::Response& response) {
    send_events(response, {chunk({{"content", "def forward("}})});
  });
  ProviderConfig config = openai_config(cut);
  config.retry.max_attempts = 2;
  Fixture failing(config);
  auto failed = failing.ask(true);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message,
            "failed to query deepseek model deepseek-chat: gave up after 2 attempts: stream ended "
            "before the reply was complete (12 characters received)");
}

TEST(HttpProviderOpenAi, StreamDroppedAfterItsFinishReasonIsKept) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    send_events(response, {chunk({{"content", "all here"}}), chunk({{"content", ""}}, "stop")},
                /*complete=*/false);
  });
  Fixture fixture(openai_config(server));
  auto reply = fixture.ask(true);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "all here");
  EXPECT_EQ(reply->attempts, 1);
  EXPECT_EQ(server.calls(), 1);
}

TEST(HttpProviderOpenAi, UnauthorizedFailsAtOnceNamingTheKeyVariableNeverTheKey) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    reply_json(response, 401,
               openai_error(std::string("Incorrect API key provided: ") + kKey +
                                ". You can find your API key at https://platform.openai.com.",
                            "invalid_request_error", nullptr, "invalid_api_key"));
  });
  Fixture fixture(openai_config(server));
  std::filesystem::path transcript = std::filesystem::temp_directory_path() /
                                     ("kforge_401_" + std::to_string(server.port()) + ".json");
  ChatRequest request;
  request.messages = {{"user", "hi"}};
  request.stage = "seed";
  request.transcript_path = transcript;
  auto reply = fixture.provider->chat(request);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().message,
            "failed to query deepseek model deepseek-chat: HTTP 401: bad API key (the key from "
            "DEEPSEEK_API_KEY was refused): Incorrect API key provided: [redacted]. You can find "
            "your API key at https://platform.openai.com.");
  EXPECT_EQ(server.calls(), 1);
  EXPECT_TRUE(fixture.clock->sleeps().empty());
  // The failed call's transcript holds the error, still without the key.
  std::ifstream in(transcript);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(transcript);
  EXPECT_EQ(text.str().find(kKey), std::string::npos);
  json written = json::parse(text.str());
  EXPECT_TRUE(written["reply"].is_null());
  EXPECT_EQ(written["error"], reply.error().message);
}

TEST(HttpProviderOpenAi, UnknownModelAndContextTooLongAreNotRetried) {
  ModelServer server([](int call, const SeenRequest&, httplib::Response& response) {
    if (call == 1) {
      reply_json(response, 404,
                 openai_error("The model `deepseek-chat` does not exist or you do not have "
                              "access to it.",
                              "invalid_request_error", nullptr, "model_not_found"));
      return;
    }
    reply_json(response, 400,
               openai_error("This model's maximum context length is 65536 tokens. However, you "
                            "requested 70000 tokens. Please reduce the length of the messages.",
                            "invalid_request_error", nullptr, "invalid_request_error"));
  });
  Fixture fixture(openai_config(server));
  auto missing = fixture.ask();
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "failed to query deepseek model deepseek-chat: HTTP 404: unknown model "
            "'deepseek-chat' or wrong endpoint " +
                server.base_url() +
                "/v1/chat/completions: The model `deepseek-chat` does not exist or you do not "
                "have access to it.");
  auto too_long = fixture.ask();
  ASSERT_FALSE(too_long);
  EXPECT_TRUE(too_long.error().message.starts_with(
      "failed to query deepseek model deepseek-chat: HTTP 400: context too long: This model's "
      "maximum context length is 65536 tokens."))
      << too_long.error().message;
  EXPECT_EQ(server.calls(), 2);
}

TEST(HttpProviderOpenAi, FinishReasonLengthMarksTheReplyTruncated) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    reply_json(response, 200, openai_completion("class ModelNew(nn.Mod", "length"));
  });
  Fixture fixture(openai_config(server));
  auto reply = fixture.ask();
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_TRUE(reply->truncated);
  EXPECT_EQ(reply->finish_reason, "length");
  EXPECT_EQ(fixture.ledger->stage("seed").truncated_calls, 1);
}

TEST(HttpProviderOpenAi, RejectedParameterIsReplacedOnceAndNeverSentAgain) {
  ModelServer server([](int, const SeenRequest& seen, httplib::Response& response) {
    if (seen.body.contains("max_tokens")) {
      reply_json(response, 400,
                 openai_error("Unsupported parameter: 'max_tokens' is not supported with this "
                              "model. Use 'max_completion_tokens' instead.",
                              "invalid_request_error", "max_tokens", "unsupported_parameter"));
      return;
    }
    if (seen.body.contains("temperature")) {
      reply_json(response, 400,
                 openai_error("Unsupported value: 'temperature' does not support 0.2 with this "
                              "model. Only the default (1) value is supported.",
                              "invalid_request_error", "temperature", "unsupported_value"));
      return;
    }
    reply_json(response, 200, openai_completion("ok"));
  });
  ProviderConfig config = openai_config(server);
  config.model = "my-proxy-model";
  Fixture fixture(config);
  auto first = fixture.ask(false, 100, 0.2);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(server.calls(), 3);
  EXPECT_EQ(first->attempts, 3);
  auto second = fixture.ask(false, 100, 0.2);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(server.calls(), 4);
  auto seen = server.seen();
  EXPECT_EQ(seen[3].body["max_completion_tokens"], 100);
  EXPECT_FALSE(seen[3].body.contains("max_tokens"));
  EXPECT_FALSE(seen[3].body.contains("temperature"));
  EXPECT_TRUE(fixture.clock->sleeps().empty());
}

TEST(HttpProviderOpenAi, ReasoningModelsGetMaxCompletionTokens) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    reply_json(response, 200, openai_completion("ok"));
  });
  ProviderConfig config = openai_config(server);
  config.model = "gpt-5-mini";
  Fixture fixture(config);
  ASSERT_TRUE(fixture.ask());
  EXPECT_EQ(server.seen()[0].body["max_completion_tokens"], 256);
  EXPECT_FALSE(server.seen()[0].body.contains("max_tokens"));
}

TEST(HttpProviderOpenAi, BoundsRequestsInFlight) {
  std::atomic<int> in_flight = 0, most = 0;
  ModelServer* self = nullptr;
  ModelServer server([&](int, const SeenRequest&, httplib::Response& response) {
    int now = ++in_flight;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    self->stall(0.15);
    --in_flight;
    reply_json(response, 200, openai_completion("ok"));
  });
  self = &server;
  ProviderConfig config = openai_config(server);
  config.max_concurrent_requests = 2;
  Fixture fixture(config);
  std::vector<std::thread> threads;
  std::atomic<int> ok = 0;
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&] { ok += fixture.ask().has_value() ? 1 : 0; });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(ok, 6);
  EXPECT_EQ(most, 2);
  EXPECT_EQ(fixture.ledger->stage("seed").calls, 6);
}

TEST(HttpProviderOpenAi, TranscriptHoldsRequestAndReplyButNoKey) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    json body = openai_completion("Hello!");
    body["choices"][0]["message"]["reasoning_content"] = "thinking";
    reply_json(response, 200, body);
  });
  Fixture fixture(openai_config(server));
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("kforge_transcript_test_" + std::to_string(server.port()));
  ChatRequest request;
  request.messages = {{"user", "Say hello."}};
  request.stage = "seed";
  request.transcript_path = dir / "transcripts" / "1_seed.json";
  ASSERT_TRUE(fixture.provider->chat(request));
  std::ifstream in(request.transcript_path);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove_all(dir);
  EXPECT_EQ(text.str().find(kKey), std::string::npos);
  EXPECT_EQ(text.str().find("Bearer"), std::string::npos);
  json transcript = json::parse(text.str());
  EXPECT_EQ(transcript["stage"], "seed");
  EXPECT_EQ(transcript["request"]["messages"][0]["content"], "Say hello.");
  EXPECT_EQ(transcript["reply"]["content"], "Hello!");
  EXPECT_EQ(transcript["reply"]["reasoning"], "thinking");
  EXPECT_EQ(transcript["reply"]["finish_reason"], "stop");
  EXPECT_EQ(transcript["reply"]["usage"]["prompt_tokens"], 120);
  EXPECT_TRUE(transcript["reply"].contains("latency_s"));
}

TEST(HttpProviderOpenAi, GivesUpWhenRetryAfterPassesTheDeadline) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    response.set_header("Retry-After", "3600");
    reply_json(response, 429, openai_error("Too many requests", "requests", nullptr, nullptr));
  });
  ProviderConfig config = openai_config(server);
  config.retry.total_deadline_s = 600;
  Fixture fixture(config);
  auto reply = fixture.ask();
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().message,
            "failed to query deepseek model deepseek-chat: gave up after 1 attempt: waiting "
            "3600.0 s more would pass the total deadline of 600 s: HTTP 429: rate limited: Too "
            "many requests");
}

TEST(HttpProviderOpenAi, ConnectionRefusedIsRetriedThenReported) {
  int port = 0;
  {
    ModelServer closed([](int, const SeenRequest&, httplib::Response&) {});
    port = closed.port();
  }
  ProviderConfig config;
  config.name = "vllm";
  config.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  config.model = "Qwen/Qwen3-8B";
  config.needs_key = false;
  config.stream = false;
  config.retry.max_attempts = 2;
  auto clock = std::make_shared<FakeClock>();
  auto provider = make_provider(config, {nullptr, clock, nullptr});
  ASSERT_TRUE(provider);
  ChatRequest request;
  request.messages = {{"user", "hi"}};
  auto reply = (*provider)->chat(request);
  ASSERT_FALSE(reply);
  EXPECT_TRUE(reply.error().message.starts_with(
      "failed to query vllm model Qwen/Qwen3-8B: gave up after 2 attempts: connection failed:"))
      << reply.error().message;
}

TEST(HttpProviderOpenAi, ServerThatIgnoresStreamIsStillRead) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    reply_json(response, 200, openai_completion("plain"));
  });
  Fixture fixture(openai_config(server));
  auto reply = fixture.ask(true);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "plain");
}

TEST(MakeProvider, HostedProviderWithoutKeyNamesTheVariables) {
  ProviderConfig config;
  config.name = "deepseek";
  config.base_url = "https://api.deepseek.com";
  config.model = "deepseek-chat";
  config.api_key_variables = {"DEEPSEEK_API_KEY", "KFORGE_API_KEY"};
  auto provider = make_provider(config);
  ASSERT_FALSE(provider);
  EXPECT_EQ(provider.error().message,
            "failed to create provider deepseek: no API key: set DEEPSEEK_API_KEY or "
            "KFORGE_API_KEY");
}

// Anthropic: bodies as the Messages API documents them.

json anthropic_message() {
  return json::parse(R"({
    "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "content": [
      {"type": "thinking", "thinking": "The user wants a greeting.", "signature": "EqQBCgIYAhIM"},
      {"type": "text", "text": "Hello!"}
    ],
    "stop_reason": "end_turn",
    "stop_sequence": null,
    "usage": {"input_tokens": 2095, "cache_creation_input_tokens": 0,
              "cache_read_input_tokens": 1000, "output_tokens": 503}
  })");
}

/// Appends one content block's events: its start, optionally a ping, one delta per item, stop.
void append_block(std::vector<std::string>& events, int index, const json& block,
                  const std::vector<json>& deltas, bool ping_after_start = false) {
  events.push_back(anthropic_event(
      "content_block_start",
      {{"type", "content_block_start"}, {"index", index}, {"content_block", block}}));
  if (ping_after_start) events.push_back(anthropic_event("ping", {{"type", "ping"}}));
  for (const json& delta : deltas)
    events.push_back(
        anthropic_event("content_block_delta",
                        {{"type", "content_block_delta"}, {"index", index}, {"delta", delta}}));
  events.push_back(
      anthropic_event("content_block_stop", {{"type", "content_block_stop"}, {"index", index}}));
}

std::vector<std::string> anthropic_stream(const std::string& stop_reason) {
  std::vector<std::string> events = {
      anthropic_event("message_start", json::parse(R"({"type": "message_start", "message": {
                        "id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message",
                        "role": "assistant", "content": [], "model": "claude-sonnet-4-5-20250929",
                        "stop_reason": null, "stop_sequence": null,
                        "usage": {"input_tokens": 472, "cache_creation_input_tokens": 0,
                                  "cache_read_input_tokens": 128, "output_tokens": 2}}})")),
  };
  append_block(events, 0, {{"type", "thinking"}, {"thinking", ""}},
               {{{"type", "thinking_delta"}, {"thinking", "Greet "}},
                {{"type", "thinking_delta"}, {"thinking", "them."}},
                {{"type", "signature_delta"}, {"signature", "EqQBCgIYAhIM"}}},
               /*ping_after_start=*/true);
  append_block(
      events, 1, {{"type", "text"}, {"text", ""}},
      {{{"type", "text_delta"}, {"text", "Hello"}}, {{"type", "text_delta"}, {"text", " there!"}}});
  events.push_back(anthropic_event(
      "message_delta", json{{"type", "message_delta"},
                            {"delta", {{"stop_reason", stop_reason}, {"stop_sequence", nullptr}}},
                            {"usage", {{"output_tokens", 15}}}}));
  events.push_back(anthropic_event("message_stop", {{"type", "message_stop"}}));
  return events;
}

TEST(HttpProviderAnthropic, MessagesReplyKeepsThinkingApart) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    reply_json(response, 200, anthropic_message());
  });
  Fixture fixture(anthropic_config(server));
  auto reply = fixture.ask(false, 512, 0.5);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "Hello!");
  EXPECT_EQ(reply->reasoning, "The user wants a greeting.");
  EXPECT_EQ(reply->finish_reason, "end_turn");
  EXPECT_EQ(reply->usage.prompt_tokens, 3095);
  EXPECT_EQ(reply->usage.cached_tokens, 1000);
  EXPECT_EQ(reply->usage.completion_tokens, 503);
  EXPECT_NEAR(reply->cost_usd, (2095 * 3.0 + 1000 * 0.30 + 503 * 15.0) / 1e6, 1e-12);
  auto seen = server.seen();
  EXPECT_EQ(seen[0].path, "/v1/messages");
  EXPECT_EQ(seen[0].api_key, kKey);
  EXPECT_EQ(seen[0].authorization, "");
  EXPECT_EQ(seen[0].anthropic_version, "2023-06-01");
  EXPECT_EQ(seen[0].body["system"], "You write Triton kernels.");
  EXPECT_EQ(seen[0].body["messages"].size(), 1u);
  EXPECT_EQ(seen[0].body["max_tokens"], 512);
  EXPECT_EQ(seen[0].body["temperature"], 0.5);
}

TEST(HttpProviderAnthropic, StreamingEventsAndMaxTokensStop) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    send_events(response, anthropic_stream("max_tokens"));
  });
  Fixture fixture(anthropic_config(server));
  auto reply = fixture.ask(true);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "Hello there!");
  EXPECT_EQ(reply->reasoning, "Greet them.");
  EXPECT_TRUE(reply->truncated);
  EXPECT_EQ(reply->finish_reason, "max_tokens");
  EXPECT_EQ(reply->usage.prompt_tokens, 600);
  EXPECT_EQ(reply->usage.cached_tokens, 128);
  EXPECT_EQ(reply->usage.completion_tokens, 15);
  EXPECT_EQ(reply->model, "claude-sonnet-4-5-20250929");
}

TEST(HttpProviderAnthropic, OverloadedErrorEventIsRetried) {
  ModelServer server([](int call, const SeenRequest&, httplib::Response& response) {
    if (call == 1) {
      std::vector<std::string> events = anthropic_stream("end_turn");
      events.resize(3);
      events.push_back(anthropic_event(
          "error", json::parse(R"({"type": "error", "error": {"type": "overloaded_error",
                                   "message": "Overloaded"}})")));
      send_events(response, events);
      return;
    }
    send_events(response, anthropic_stream("end_turn"));
  });
  Fixture fixture(anthropic_config(server));
  auto reply = fixture.ask(true);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->content, "Hello there!");
  EXPECT_FALSE(reply->truncated);
  EXPECT_EQ(reply->attempts, 2);
}

TEST(HttpProviderAnthropic, BadKeyFailsAtOnce) {
  ModelServer server([](int, const SeenRequest&, httplib::Response& response) {
    reply_json(response, 401, json::parse(R"({"type": "error", "error": {"type":
      "authentication_error", "message": "invalid x-api-key"}, "request_id": "req_011CSHoEeqs5C"})"));
  });
  Fixture fixture(anthropic_config(server));
  auto reply = fixture.ask();
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().message,
            "failed to query anthropic model claude-sonnet-4-5: HTTP 401: bad API key (the key "
            "from ANTHROPIC_API_KEY was refused): invalid x-api-key");
  EXPECT_EQ(server.calls(), 1);
}

}  // namespace
}  // namespace kforge::llm

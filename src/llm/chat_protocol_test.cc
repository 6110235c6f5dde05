#include "llm/chat_protocol.h"

#include <gtest/gtest.h>

namespace kforge::llm {
namespace {

ChatRequest request_with(std::optional<int> max_tokens, std::optional<double> temperature) {
  ChatRequest request;
  request.messages = {{"system", "a"}, {"system", "b"}, {"user", "hi"}};
  request.max_tokens = max_tokens;
  request.temperature = temperature;
  return request;
}

TEST(ChatProtocol, EndpointsFollowTheBaseUrl) {
  auto openai = make_openai_protocol({});
  EXPECT_EQ(openai->endpoint("https://api.deepseek.com/"),
            "https://api.deepseek.com/chat/completions");
  EXPECT_EQ(openai->endpoint("http://localhost:8000/v1"),
            "http://localhost:8000/v1/chat/completions");
  auto anthropic = make_anthropic_protocol({});
  EXPECT_EQ(anthropic->endpoint("https://api.anthropic.com"),
            "https://api.anthropic.com/v1/messages");
  EXPECT_EQ(anthropic->endpoint("https://proxy.example/v1/"), "https://proxy.example/v1/messages");
}

TEST(ChatProtocol, OpenAiBodyFollowsTheLearnedParameters) {
  auto openai = make_openai_protocol({.default_max_tokens = 4096});
  WireParams params;
  auto body = openai->body(request_with(std::nullopt, 0.3), "m", true, params);
  EXPECT_EQ(body["max_tokens"], 4096);
  EXPECT_EQ(body["temperature"], 0.3);
  EXPECT_EQ(body["messages"].size(), 3u);
  params = {true, false, false};
  body = openai->body(request_with(100, 0.3), "m", true, params);
  EXPECT_EQ(body["max_completion_tokens"], 100);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_FALSE(body.contains("stream_options"));
  EXPECT_EQ(openai->headers("").size(), 1u);  // no Authorization without a key
}

TEST(ChatProtocol, AnthropicBodyJoinsSystemAndEnablesThinking) {
  auto plain = make_anthropic_protocol({});
  auto body = plain->body(request_with(std::nullopt, 0.3), "claude", false, {});
  EXPECT_EQ(body["system"], "a\n\nb");
  EXPECT_EQ(body["max_tokens"], 8192);
  EXPECT_EQ(body["temperature"], 0.3);
  EXPECT_FALSE(body.contains("thinking"));
  auto thinking = make_anthropic_protocol({.thinking_budget_tokens = 4000});
  body = thinking->body(request_with(16000, 0.3), "claude", true, {});
  EXPECT_EQ(body["thinking"]["budget_tokens"], 4000);
  EXPECT_FALSE(body.contains("temperature"));  // not allowed with thinking
  body = thinking->body(request_with(8, std::nullopt), "claude", false, {});
  EXPECT_FALSE(body.contains("thinking"));  // no room for the minimum budget
}

TEST(IsOpenAiReasoningModel, KnowsTheFamilies) {
  for (const char* model :
       {"o1", "o1-mini", "o3-mini-2025-01-31", "o4-mini", "gpt-5", "gpt-5.1", "openai/gpt-5-mini"})
    EXPECT_TRUE(is_openai_reasoning_model(model)) << model;
  for (const char* model : {"gpt-4o", "gpt-4.1", "o10x", "deepseek-reasoner", "ollama3"})
    EXPECT_FALSE(is_openai_reasoning_model(model)) << model;
}

TEST(ChatProtocol, RepliesWithoutChoicesOrContentAreErrors) {
  auto openai = make_openai_protocol({});
  auto empty = openai->parse_reply(R"({"id": "x", "object": "chat.completion", "choices": []})");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "reply has no choices");
  auto error =
      openai->parse_reply(R"({"error": {"message": "Provider returned error", "code": 502}})");
  ASSERT_FALSE(error);
  EXPECT_TRUE(error.error().retryable);
  EXPECT_EQ(error.error().message, "server reported an error: Provider returned error");
  auto anthropic = make_anthropic_protocol({});
  auto none = anthropic->parse_reply(R"({"type": "message"})");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "reply has no content array");
}

}  // namespace
}  // namespace kforge::llm

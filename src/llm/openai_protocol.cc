// The OpenAI chat-completions wire format (declared in chat_protocol.h).

#include <algorithm>

#include "llm/api_error.h"
#include "llm/chat_protocol.h"
#include "llm/json_text.h"
#include "util/json_fields.h"

namespace kforge::llm {

namespace {

using nlohmann::json;

/// OpenAI `usage`, with DeepSeek's cache counter.
Usage read_usage(const json& usage) {
  Usage out;
  out.prompt_tokens = util::number_field<std::int64_t>(usage, "prompt_tokens");
  out.completion_tokens = util::number_field<std::int64_t>(usage, "completion_tokens");
  if (auto it = usage.find("prompt_tokens_details"); it != usage.end())
    out.cached_tokens = util::number_field<std::int64_t>(*it, "cached_tokens");
  if (out.cached_tokens == 0)
    out.cached_tokens = util::number_field<std::int64_t>(usage, "prompt_cache_hit_tokens");
  if (auto it = usage.find("completion_tokens_details"); it != usage.end())
    out.reasoning_tokens = util::number_field<std::int64_t>(*it, "reasoning_tokens");
  return out;
}

/// DeepSeek says `reasoning_content`; OpenRouter and recent vLLM say `reasoning`.
std::string reasoning_of(const json& message) {
  std::string text = util::string_field(message, "reasoning_content");
  return text.empty() ? util::string_field(message, "reasoning") : text;
}

void finish(ChatReply& reply, std::string finish_reason) {
  reply.finish_reason = std::move(finish_reason);
  reply.truncated = reply.finish_reason == "length";
}

CallError error_from_body(const json& error_object) {
  ApiError error = parse_api_error(json{{"error", error_object}}.dump());
  bool retryable = false;
  if (error_object.is_object()) {
    auto code = error_object.find("code");
    if (code != error_object.end() && code->is_number() && code->get<int>() >= 500)
      retryable = true;
  }
  for (std::string_view marker : {"overloaded", "server_error", "rate_limit", "timeout"})
    if (error.type.find(marker) != std::string::npos ||
        error.code.find(marker) != std::string::npos)
      retryable = true;
  return CallError{retryable, "server reported an error: " + error.message};
}

/// Accumulates `chat.completion.chunk` events.
class OpenAiStreamDecoder final : public StreamDecoder {
 public:
  std::expected<void, CallError> on_event(const SseEvent& event) override {
    if (event.data == "[DONE]") {
      done_ = true;
      return {};
    }
    util::Result<json> chunk = parse_json_text(event.data, "stream event");
    if (!chunk) return std::unexpected(CallError{false, chunk.error().message});
    if (!chunk->is_object())
      return std::unexpected(CallError{false, "stream event is not a JSON object"});
    if (auto error = chunk->find("error"); error != chunk->end() && !error->is_null())
      return std::unexpected(error_from_body(*error));
    if (std::string model = util::string_field(*chunk, "model"); !model.empty())
      reply_.model = model;
    if (auto usage = chunk->find("usage"); usage != chunk->end() && usage->is_object()) {
      reply_.usage = read_usage(*usage);
      has_usage_ = true;
    }
    auto choices = chunk->find("choices");
    if (choices == chunk->end() || !choices->is_array() || choices->empty()) return {};
    const json& choice = choices->front();
    if (auto delta = choice.find("delta"); delta != choice.end() && delta->is_object()) {
      std::string content = util::string_field(*delta, "content");
      std::string reasoning = reasoning_of(*delta);
      if (!content.empty()) {
        reply_.content += content;
        ++content_chunks_;
      }
      if (!reasoning.empty()) {
        reply_.reasoning += reasoning;
        ++reasoning_chunks_;
      }
    }
    if (std::string reason = util::string_field(choice, "finish_reason"); !reason.empty())
      finish(reply_, reason);
    return {};
  }

  bool complete() const override { return done_ || !reply_.finish_reason.empty(); }
  const ChatReply& reply() const override { return reply_; }

  std::pair<std::int64_t, std::int64_t> tokens_so_far() const override {
    if (has_usage_) return {reply_.usage.completion_tokens, reply_.usage.reasoning_tokens};
    // Servers send about one token per chunk.
    return {content_chunks_ + reasoning_chunks_, reasoning_chunks_};
  }

 private:
  ChatReply reply_;
  bool done_ = false;
  bool has_usage_ = false;
  std::int64_t content_chunks_ = 0;
  std::int64_t reasoning_chunks_ = 0;
};

/// OpenAI chat completions.
class OpenAiProtocol final : public ChatProtocol {
 public:
  explicit OpenAiProtocol(ProtocolOptions options) : options_(options) {}

  std::string_view api() const override { return "openai"; }

  std::string endpoint(std::string_view base_url) const override {
    while (base_url.ends_with('/')) base_url.remove_suffix(1);
    return std::string(base_url) + "/chat/completions";
  }

  Headers headers(const std::string& api_key) const override {
    Headers headers = {{"Content-Type", "application/json"}};
    if (!api_key.empty()) headers.emplace_back("Authorization", "Bearer " + api_key);
    return headers;
  }

  json body(const ChatRequest& request, const std::string& model, bool stream,
            const WireParams& params) const override {
    json messages = json::array();
    for (const Message& message : request.messages)
      messages.push_back({{"role", message.role}, {"content", message.content}});
    json body = {{"model", model}, {"messages", std::move(messages)}, {"stream", stream}};
    std::optional<int> max_tokens =
        request.max_tokens ? request.max_tokens : options_.default_max_tokens;
    if (max_tokens)
      body[params.use_max_completion_tokens ? "max_completion_tokens" : "max_tokens"] = *max_tokens;
    if (request.temperature && params.send_temperature) body["temperature"] = *request.temperature;
    if (stream && params.send_stream_options) body["stream_options"] = {{"include_usage", true}};
    return body;
  }

  std::expected<ChatReply, CallError> parse_reply(std::string_view text) const override {
    util::Result<json> body = parse_json_text(text, "reply body");
    if (!body) return std::unexpected(CallError{false, body.error().message});
    if (!body->is_object()) return std::unexpected(CallError{false, "reply is not a JSON object"});
    if (auto error = body->find("error"); error != body->end() && !error->is_null())
      return std::unexpected(error_from_body(*error));
    auto choices = body->find("choices");
    if (choices == body->end() || !choices->is_array() || choices->empty())
      return std::unexpected(CallError{false, "reply has no choices"});
    ChatReply reply;
    reply.model = util::string_field(*body, "model");
    const json& choice = choices->front();
    if (auto message = choice.find("message"); message != choice.end()) {
      reply.content = util::string_field(*message, "content");
      reply.reasoning = reasoning_of(*message);
    }
    finish(reply, util::string_field(choice, "finish_reason"));
    if (auto usage = body->find("usage"); usage != body->end() && usage->is_object())
      reply.usage = read_usage(*usage);
    return reply;
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override {
    return std::make_unique<OpenAiStreamDecoder>();
  }

 private:
  ProtocolOptions options_;
};

}  // namespace

std::unique_ptr<ChatProtocol> make_openai_protocol(const ProtocolOptions& options) {
  return std::make_unique<OpenAiProtocol>(options);
}

}  // namespace kforge::llm

// The Anthropic messages wire format (declared in chat_protocol.h).

#include <algorithm>

#include "llm/api_error.h"
#include "llm/chat_protocol.h"
#include "llm/json_text.h"
#include "util/json_fields.h"

namespace kforge::llm {

namespace {

using nlohmann::json;

constexpr int kDefaultMaxTokens = 8192;

/// Anthropic `usage`: input_tokens excludes cache reads and writes; kforge's prompt_tokens
/// counts all input, cached_tokens the cache reads.
void merge_usage(const json& usage, Usage& out) {
  if (!usage.is_object()) return;
  if (usage.contains("input_tokens") || usage.contains("cache_read_input_tokens")) {
    std::int64_t read = util::number_field<std::int64_t>(usage, "cache_read_input_tokens");
    out.prompt_tokens = util::number_field<std::int64_t>(usage, "input_tokens") + read +
                        util::number_field<std::int64_t>(usage, "cache_creation_input_tokens");
    out.cached_tokens = read;
  }
  if (usage.contains("output_tokens"))
    out.completion_tokens = util::number_field<std::int64_t>(usage, "output_tokens");
}

void finish(ChatReply& reply, std::string stop_reason) {
  reply.finish_reason = std::move(stop_reason);
  reply.truncated = reply.finish_reason == "max_tokens";
}

CallError error_from(const json& body) {
  ApiError error = parse_api_error(body.dump());
  bool retryable = error.type == "overloaded_error" || error.type == "api_error" ||
                   error.type == "rate_limit_error";
  std::string type = error.type.empty() ? "" : " (" + error.type + ")";
  return CallError{retryable, "server reported an error" + type + ": " + error.message};
}

/// Adds one content block (non-streamed reply or content_block_start) to the reply.
void add_block(const json& block, ChatReply& reply) {
  std::string type = util::string_field(block, "type");
  if (type == "text") reply.content += util::string_field(block, "text");
  if (type == "thinking") reply.reasoning += util::string_field(block, "thinking");
}

/// Accumulates the events of a streamed message.
class AnthropicStreamDecoder final : public StreamDecoder {
 public:
  std::expected<void, CallError> on_event(const SseEvent& event) override {
    util::Result<json> data = parse_json_text(event.data, "stream event");
    if (!data) return std::unexpected(CallError{false, data.error().message});
    if (!data->is_object())
      return std::unexpected(CallError{false, "stream event is not a JSON object"});
    std::string type = util::string_field(*data, "type");
    if (type.empty()) type = event.type;
    if (type == "error") return std::unexpected(error_from(*data));
    if (type == "message_start") {
      const json& message = (*data)["message"];
      reply_.model = util::string_field(message, "model");
      if (message.is_object() && message.contains("usage"))
        merge_usage(message["usage"], reply_.usage);
    } else if (type == "content_block_start") {
      if (data->contains("content_block")) add_block((*data)["content_block"], reply_);
    } else if (type == "content_block_delta") {
      const json& delta = (*data)["delta"];
      std::string kind = util::string_field(delta, "type");
      if (kind == "text_delta") {
        std::string text = util::string_field(delta, "text");
        reply_.content += text;
        text_chars_ += static_cast<std::int64_t>(text.size());
        ++text_chunks_;
      } else if (kind == "thinking_delta") {
        std::string text = util::string_field(delta, "thinking");
        reply_.reasoning += text;
        thinking_chars_ += static_cast<std::int64_t>(text.size());
        ++thinking_chunks_;
      }
      // signature_delta and input_json_delta carry nothing kforge keeps.
    } else if (type == "message_delta") {
      const json& delta = (*data)["delta"];
      if (std::string reason = util::string_field(delta, "stop_reason"); !reason.empty())
        finish(reply_, reason);
      if (data->contains("usage")) {
        merge_usage((*data)["usage"], reply_.usage);
        has_output_tokens_ = true;
      }
    } else if (type == "message_stop") {
      done_ = true;
    }
    // ping and content_block_stop need nothing.
    return {};
  }

  bool complete() const override { return done_; }
  const ChatReply& reply() const override { return reply_; }

  std::pair<std::int64_t, std::int64_t> tokens_so_far() const override {
    if (has_output_tokens_) return {reply_.usage.completion_tokens, 0};
    // A delta holds a few tokens; about four characters make one.
    std::int64_t text = std::max(text_chunks_, text_chars_ / 4);
    std::int64_t thinking = std::max(thinking_chunks_, thinking_chars_ / 4);
    return {text + thinking, thinking};
  }

 private:
  ChatReply reply_;
  bool done_ = false;
  bool has_output_tokens_ = false;
  std::int64_t text_chars_ = 0, text_chunks_ = 0, thinking_chars_ = 0, thinking_chunks_ = 0;
};

/// Anthropic messages.
class AnthropicProtocol final : public ChatProtocol {
 public:
  explicit AnthropicProtocol(ProtocolOptions options) : options_(options) {}

  std::string_view api() const override { return "anthropic"; }

  std::string endpoint(std::string_view base_url) const override {
    while (base_url.ends_with('/')) base_url.remove_suffix(1);
    return std::string(base_url) + (base_url.ends_with("/v1") ? "/messages" : "/v1/messages");
  }

  Headers headers(const std::string& api_key) const override {
    Headers headers = {{"Content-Type", "application/json"}, {"anthropic-version", "2023-06-01"}};
    if (!api_key.empty()) headers.emplace_back("x-api-key", api_key);
    return headers;
  }

  json body(const ChatRequest& request, const std::string& model, bool stream,
            const WireParams& params) const override {
    std::string system;
    json messages = json::array();
    for (const Message& message : request.messages) {
      if (message.role == "system") {
        system += (system.empty() ? "" : "\n\n") + message.content;
        continue;
      }
      messages.push_back({{"role", message.role}, {"content", message.content}});
    }
    int max_tokens =
        request.max_tokens.value_or(options_.default_max_tokens.value_or(kDefaultMaxTokens));
    json body = {{"model", model},
                 {"max_tokens", max_tokens},
                 {"messages", std::move(messages)},
                 {"stream", stream}};
    if (!system.empty()) body["system"] = system;
    if (options_.thinking_budget_tokens) {
      // The budget must stay below max_tokens; temperature must be left alone with thinking.
      int budget = std::min(*options_.thinking_budget_tokens, max_tokens - 1);
      if (budget >= 1024) body["thinking"] = {{"type", "enabled"}, {"budget_tokens", budget}};
    }
    if (request.temperature && params.send_temperature && !body.contains("thinking"))
      body["temperature"] = *request.temperature;
    return body;
  }

  std::expected<ChatReply, CallError> parse_reply(std::string_view text) const override {
    util::Result<json> body = parse_json_text(text, "reply body");
    if (!body) return std::unexpected(CallError{false, body.error().message});
    if (!body->is_object()) return std::unexpected(CallError{false, "reply is not a JSON object"});
    if (util::string_field(*body, "type") == "error") return std::unexpected(error_from(*body));
    auto content = body->find("content");
    if (content == body->end() || !content->is_array())
      return std::unexpected(CallError{false, "reply has no content array"});
    ChatReply reply;
    reply.model = util::string_field(*body, "model");
    for (const json& block : *content) add_block(block, reply);
    finish(reply, util::string_field(*body, "stop_reason"));
    if (auto usage = body->find("usage"); usage != body->end()) merge_usage(*usage, reply.usage);
    return reply;
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override {
    return std::make_unique<AnthropicStreamDecoder>();
  }

 private:
  ProtocolOptions options_;
};

}  // namespace

std::unique_ptr<ChatProtocol> make_anthropic_protocol(const ProtocolOptions& options) {
  return std::make_unique<AnthropicProtocol>(options);
}

}  // namespace kforge::llm

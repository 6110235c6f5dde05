#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm/provider.h"
#include "llm/sse_parser.h"

namespace kforge::llm {

/// Optional parameters the provider has learned a server accepts. Starts from the model family
/// (OpenAI reasoning models take max_completion_tokens) and changes when a server rejects one, so
/// a rejected parameter is never sent twice.
struct WireParams {
  bool use_max_completion_tokens = false;
  bool send_temperature = true;
  bool send_stream_options = true;
};

/// Why one attempt failed and whether another attempt may succeed.
struct CallError {
  bool retryable = false;
  std::string message;
};

/// Accumulates a streamed reply, one server-sent event at a time.
class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  /// Consumes one event; an `error` event or unparsable data ends the stream with a CallError.
  virtual std::expected<void, CallError> on_event(const SseEvent& event) = 0;
  /// True once the stream's end marker (`data: [DONE]`, `message_stop`) or a final
  /// finish reason was seen: a stream that stops before is cut off.
  virtual bool complete() const = 0;
  /// The reply so far (usage filled once the server sent it).
  virtual const ChatReply& reply() const = 0;
  /// Completion tokens so far for live progress (an estimate until usage arrives), and how many
  /// of them were reasoning.
  virtual std::pair<std::int64_t, std::int64_t> tokens_so_far() const = 0;
};

/// One chat API's wire format: where to post, which headers, the body, and how to read replies
/// and streams. Stateless and thread-safe.
class ChatProtocol {
 public:
  using Headers = std::vector<std::pair<std::string, std::string>>;
  virtual ~ChatProtocol() = default;
  /// "openai" or "anthropic".
  virtual std::string_view api() const = 0;
  virtual std::string endpoint(std::string_view base_url) const = 0;
  /// Includes the key's header when `api_key` is not empty.
  virtual Headers headers(const std::string& api_key) const = 0;
  virtual nlohmann::json body(const ChatRequest& request, const std::string& model, bool stream,
                              const WireParams& params) const = 0;
  /// Reads a complete (non-streamed) 2xx body.
  virtual std::expected<ChatReply, CallError> parse_reply(std::string_view body) const = 0;
  virtual std::unique_ptr<StreamDecoder> stream_decoder() const = 0;
};

/// Settings of the wire formats that come from the configuration.
struct ProtocolOptions {
  /// Used when a request sets no max_tokens (Anthropic requires one); nullopt = none sent
  /// (OpenAI) or 8192 (Anthropic).
  std::optional<int> default_max_tokens;
  /// Anthropic extended thinking budget; nullopt = thinking off.
  std::optional<int> thinking_budget_tokens;
};

/// OpenAI chat completions (`/chat/completions`), as spoken by OpenAI, DeepSeek, OpenRouter,
/// vLLM, SGLang, Ollama and llama.cpp's server.
std::unique_ptr<ChatProtocol> make_openai_protocol(const ProtocolOptions& options);
/// Anthropic messages (`/v1/messages`).
std::unique_ptr<ChatProtocol> make_anthropic_protocol(const ProtocolOptions& options);

/// True for OpenAI model families that take max_completion_tokens instead of max_tokens
/// (o1, o3, o4, gpt-5; also behind a "vendor/" prefix).
bool is_openai_reasoning_model(std::string_view model);

}  // namespace kforge::llm

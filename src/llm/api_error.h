#pragma once

#include <string>
#include <string_view>

namespace kforge::llm {

/// The error a model server put in a non-2xx body (or in a stream's error event), whatever its
/// dialect: OpenAI `{"error":{"message","type","param","code"}}`, Anthropic
/// `{"type":"error","error":{"type","message"}}`, Ollama `{"error":"…"}`, vLLM/FastAPI
/// `{"detail":…}`, or plain text.
struct ApiError {
  std::string message;
  std::string type;
  std::string param;
  std::string code;
};

/// Never fails: an unparsable body becomes the message (trimmed to a few hundred characters).
ApiError parse_api_error(std::string_view body);

/// True when the message says the prompt does not fit the model's context window.
bool is_context_length_error(const ApiError& error);

/// The request parameter the server rejected as unsupported (OpenAI `param`, or a quoted name in
/// the message such as "Unsupported parameter: 'max_tokens'"), among those kforge can drop or
/// replace: max_tokens, max_completion_tokens, temperature, stream_options. Empty when none.
std::string rejected_parameter(const ApiError& error);

}  // namespace kforge::llm

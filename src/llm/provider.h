#pragma once

// CONTRACT (kept stable for src/pipeline and src/cli): what the pipeline sees of a model.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/error.h"

namespace kforge::llm {

struct Message {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

/// Live progress of a streaming reply, for the terminal view.
struct StreamProgress {
  std::int64_t completion_tokens = 0;
  double tokens_per_s = 0;
  /// Seconds since the request was sent.
  double elapsed_s = 0;
  /// Of `completion_tokens`, those spent on reasoning (thinking) so far.
  std::int64_t reasoning_tokens = 0;
};

struct ChatRequest {
  std::vector<Message> messages;
  /// Pipeline stage ("seed", "repair", "analysis", …): used for accounting and transcripts.
  std::string stage;
  /// Where to write the transcript JSON (request and reply, never the key); empty = none.
  std::filesystem::path transcript_path;
  std::optional<int> max_tokens;
  std::optional<double> temperature;
  /// Task file the prompt is about. Model providers ignore it; the offline `library` provider
  /// uses it to pick a verified kernel.
  std::filesystem::path task_path;
  std::function<void(const StreamProgress&)> on_progress;
  /// Overrides the provider's streaming setting for this request; nullopt = provider default.
  std::optional<bool> stream;
};

struct Usage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t reasoning_tokens = 0;
  std::int64_t cached_tokens = 0;
};

struct ChatReply {
  std::string content;
  /// Reasoning text (DeepSeek `reasoning_content`, Anthropic thinking blocks), kept apart.
  std::string reasoning;
  std::string finish_reason;
  /// True when the reply was cut off by the token limit (`finish_reason: length`/`max_tokens`).
  bool truncated = false;
  Usage usage;
  double latency_s = 0;
  double cost_usd = 0;
  /// Model id as the server reported it (may differ from the requested alias).
  std::string model;
  /// HTTP attempts it took (1 = no retry).
  int attempts = 1;
};

/// A model (or the offline kernel library) that answers chat requests. Thread-safe.
class Provider {
 public:
  virtual ~Provider() = default;
  virtual util::Result<ChatReply> chat(const ChatRequest& request) = 0;
  /// Preset or provider name ("deepseek", "openai", "library", …) and model id, for run names.
  virtual std::string name() const = 0;
  virtual std::string model() const = 0;
};

}  // namespace kforge::llm

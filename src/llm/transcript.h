#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llm/attempt_runner.h"
#include "llm/provider.h"
#include "util/error.h"

namespace kforge::llm {

/// One model call as written to a transcript file: the request body exactly as sent and the reply
/// (or the error). Holds no headers, so no key.
struct Transcript {
  std::string provider;
  std::string model;
  std::string stage;
  std::string url;
  bool stream = false;
  nlohmann::json request;
  std::optional<ChatReply> reply;
  /// The final error when the call failed.
  std::string error;
  int attempts = 0;
  /// Every attempt: how it ended, when, and what a failed or abandoned one had received.
  std::vector<AttemptRecord> attempt_log;
  /// The reply came from an attempt past its time-out (a late answer).
  bool late = false;
};

/// The transcript as JSON text: {provider, model, stage, url, stream, attempts, request,
/// reply: {content, reasoning, finish_reason, truncated, model, usage, latency_s, cost_usd, late},
/// error, attempt_log: [{attempt, outcome, error, started_s, ended_s, timed_out,
/// partial: {content, reasoning, completion_tokens}}]} (attempt_log only when there was more than
/// one attempt or the one failed; `partial` only when something had arrived). Every occurrence of
/// `secret` (the API key) is replaced by "[redacted]", in case a server echoed it.
std::string transcript_json(const Transcript& transcript, std::string_view secret);

/// Writes transcript_json() to `path` (parent folders created; written to a temporary file and
/// renamed, so a reader never sees half a file).
util::Result<void> write_transcript(const std::filesystem::path& path, const Transcript& transcript,
                                    std::string_view secret);

/// The same with several secrets redacted (the exec provider's secret-looking environment).
util::Result<void> write_transcript(const std::filesystem::path& path, const Transcript& transcript,
                                    const std::vector<std::string>& secrets);

/// `text` with every occurrence of `secret` replaced by "[redacted]" (nothing when `secret` is
/// shorter than 8 characters, which is no real key).
std::string redact(std::string text, std::string_view secret);

}  // namespace kforge::llm

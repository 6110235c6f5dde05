#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "llm/clock.h"
#include "llm/provider.h"
#include "llm/retry_policy.h"

namespace kforge::llm {

/// What had arrived of a reply when its attempt ended without one (a stream cut off, timed out or
/// abandoned; a command killed): kept for the transcript, never used as the answer.
struct PartialReply {
  std::string content;
  std::string reasoning;
  std::int64_t completion_tokens = 0;

  bool empty() const { return content.empty() && reasoning.empty(); }
};

/// How one attempt ended without a reply.
struct AttemptFailure {
  bool retryable = false;
  std::string message;
  /// The server's Retry-After, seconds; nullopt = the policy's back-off.
  std::optional<double> retry_after_s;
  /// Try again at once without counting this attempt (the HTTP provider learnt to drop a
  /// parameter the server rejected).
  bool adjusted = false;
  PartialReply partial;
};

using AttemptResult = std::expected<ChatReply, AttemptFailure>;

/// One attempt of a call: `number` is 1-based; it may run for at most `hard_timeout_s` seconds;
/// `stop` is requested when another attempt answered or the call gave up, and the attempt must
/// then return soon (with its partial reply).
using AttemptFn =
    std::function<AttemptResult(int number, double hard_timeout_s, std::stop_token stop)>;

/// The limits of one call.
struct AttemptLimits {
  /// Soft time-out of one attempt, seconds (the stage's request time-out): when it passes, the
  /// next attempt starts while this one keeps running, and whichever answers first is used.
  double timeout_s = 900;
  /// max_attempts, back-off and the total deadline (raised to `timeout_s` when shorter, so one
  /// attempt always fits).
  RetryPolicy retry;
};

/// What happened to one attempt, for the transcript.
struct AttemptRecord {
  int number = 0;
  /// "reply" (its answer is the call's), "failed", or "abandoned" (stopped because another
  /// attempt answered or the call gave up).
  std::string outcome;
  std::string error;
  /// Seconds since the call started.
  double started_s = 0;
  double ended_s = 0;
  /// Its stage time-out passed before it ended (a later attempt was started beside it).
  bool timed_out = false;
  PartialReply partial;
};

/// The outcome of a call: the reply (with ChatReply::attempts set) or the final cause, and every
/// attempt.
struct AttemptRun {
  std::expected<ChatReply, std::string> reply;
  std::vector<AttemptRecord> attempts;
  /// The reply came from an attempt whose time-out had passed (a late answer).
  bool late = false;
};

/// Runs the attempts of one model call (shared by the HTTP and exec providers): retryable
/// failures are retried after the policy's back-off (or Retry-After) within max_attempts and the
/// total deadline; an attempt still running at its soft time-out is not abandoned: the next
/// attempt starts beside it and the first answer of either is used, so a slow model's late
/// answer is never lost; when no attempt is left the call gives up and stops every attempt.
/// `clock` times back-off sleeps and the deadline; soft time-outs are real time. `label` names
/// the provider in log lines.
AttemptRun run_attempts(const AttemptFn& attempt, const AttemptLimits& limits, Clock& clock,
                        const std::function<double(int attempt)>& backoff_s,
                        std::string_view label);

}  // namespace kforge::llm

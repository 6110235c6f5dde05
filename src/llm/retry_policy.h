#pragma once

#include <chrono>
#include <optional>
#include <random>
#include <string_view>

namespace kforge::llm {

/// When and how often a failed model request is tried again: 429, 5xx, connection resets,
/// time-outs and cut-off streams are retried with exponential back-off and jitter, honouring the
/// server's Retry-After, within `max_attempts` and the `total_deadline_s` of the whole call.
struct RetryPolicy {
  int max_attempts = 5;
  double initial_backoff_s = 1.0;
  double max_backoff_s = 60.0;
  /// The whole call (all attempts and waits) must end within this; 0 = no deadline.
  double total_deadline_s = 1800;

  /// Wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed:
  /// initial * 2^(attempt-1), capped at max_backoff_s, scaled by a random factor in [0.5, 1].
  double backoff_s(int attempt, std::mt19937_64& rng) const;
};

/// Parses a Retry-After header value: delta seconds ("120", "1.5") or an HTTP date
/// ("Wed, 21 Oct 2015 07:28:00 GMT", relative to `now`). nullopt when unparsable; a date in the
/// past gives 0.
std::optional<double> parse_retry_after(std::string_view value,
                                        std::chrono::system_clock::time_point now);

}  // namespace kforge::llm

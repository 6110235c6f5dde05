#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm/provider.h"

namespace kforge::llm {

/// Totals of model calls: tokens by kind, cost, time.
struct TokenTotals {
  std::int64_t calls = 0;
  std::int64_t failed_calls = 0;
  std::int64_t truncated_calls = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t reasoning_tokens = 0;
  std::int64_t cached_tokens = 0;
  double cost_usd = 0;
  double latency_s = 0;

  std::int64_t total_tokens() const { return prompt_tokens + completion_tokens; }
  void add(const TokenTotals& other);
};

/// Token and cost accounting per pipeline stage and for the whole run. Thread-safe: every
/// provider call may record from its own thread. Stages keep the order they were first seen in,
/// so a summary table reads like the run (seed, repair, analysis, …).
class TokenLedger {
 public:
  /// Adds one successful call of `stage`.
  void record(std::string_view stage, const ChatReply& reply);
  /// Counts one call of `stage` that failed (no usage known).
  void record_failure(std::string_view stage);

  TokenTotals stage(std::string_view stage) const;
  TokenTotals total() const;
  std::vector<std::pair<std::string, TokenTotals>> by_stage() const;

 private:
  TokenTotals& slot(std::string_view stage);

  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, TokenTotals>> stages_;
};

}  // namespace kforge::llm

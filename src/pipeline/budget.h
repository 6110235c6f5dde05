#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace kforge::pipeline {

/// Limits on a run; 0 means no limit.
struct BudgetLimits {
  std::int64_t tokens = 0;
  int candidates = 0;
  double seconds = 0;
};

/// What a run has spent against its limits. The pipeline asks `exhausted()` before each new
/// model call and `can_add_candidate()` before each call that would produce a candidate, and
/// stops cleanly, keeping the best so far, when either says no. Thread-safe.
class Budget {
 public:
  /// `clock` returns monotonic seconds; `elapsed_before` is time already spent by an earlier
  /// process of the same run (resume).
  Budget(BudgetLimits limits, std::function<double()> clock, double elapsed_before = 0);

  void add_tokens(std::int64_t tokens) { tokens_ += tokens; }
  void add_candidate() { ++candidates_; }

  /// Why no more model calls may start ("token budget of 5000 spent (5210 used)"), or nullopt.
  std::optional<std::string> exhausted() const;
  /// Why no more candidates may be made, or nullopt.
  std::optional<std::string> candidates_exhausted() const;

  std::int64_t tokens() const { return tokens_; }
  int candidates() const { return candidates_; }
  double elapsed() const;

 private:
  BudgetLimits limits_;
  std::function<double()> clock_;
  double start_;
  double elapsed_before_;
  std::atomic<std::int64_t> tokens_{0};
  std::atomic<int> candidates_{0};
};

}  // namespace kforge::pipeline

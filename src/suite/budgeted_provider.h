#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "llm/provider.h"

namespace kforge::suite {

/// Limits on model spend; 0 = none. `deadline` is a monotonic time in seconds.
struct SpendLimits {
  std::int64_t tokens = 0;
  double usd = 0;
  double deadline = 0;
};

/// Model spend counted against limits, shared by every task of a suite (the total) or owned by
/// one task. Thread-safe.
class Spend {
 public:
  Spend(SpendLimits limits, std::function<double()> clock, std::int64_t tokens_before = 0,
        double usd_before = 0);
  /// Why no more calls may start ("suite money budget of $5.00 spent ($5.13)"), or nullopt.
  /// `what` names the owner in the message: "suite" or "task".
  std::optional<std::string> exhausted(std::string_view what) const;
  void add(std::int64_t tokens, double usd);
  std::int64_t tokens() const;
  double usd() const;

 private:
  SpendLimits limits_;
  std::function<double()> clock_;
  mutable std::mutex mutex_;
  std::int64_t tokens_;
  double usd_;
};

/// A provider that refuses a model call once the suite's or the task's spend is exhausted
/// (tokens, money, time) and counts what each call cost against both. The pipeline sees a
/// refused call as a failed model call: that branch ends, the task keeps its best so far.
/// This is how the suite enforces a money budget per task and the suite-wide budgets without
/// the pipeline knowing about suites.
class BudgetedProvider : public llm::Provider {
 public:
  /// `on_spend` (optional) hears every call's tokens and cost (the progress view).
  BudgetedProvider(llm::Provider& inner, Spend& suite, Spend& task,
                   std::function<void(std::int64_t, double)> on_spend = {});
  util::Result<llm::ChatReply> chat(const llm::ChatRequest& request) override;
  std::string name() const override { return inner_.name(); }
  std::string model() const override { return inner_.model(); }
  /// The reason a call was refused, once one was.
  std::optional<std::string> refused() const;

 private:
  llm::Provider& inner_;
  Spend& suite_;
  Spend& task_;
  std::function<void(std::int64_t, double)> on_spend_;
  mutable std::mutex mutex_;
  std::optional<std::string> refused_;
};

}  // namespace kforge::suite

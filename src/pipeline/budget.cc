#include "pipeline/budget.h"

#include <fmt/format.h>

namespace kforge::pipeline {

Budget::Budget(BudgetLimits limits, std::function<double()> clock, double elapsed_before)
    : limits_(limits),
      clock_(std::move(clock)),
      start_(clock_()),
      elapsed_before_(elapsed_before) {}

double Budget::elapsed() const {
  return elapsed_before_ + clock_() - start_;
}

std::optional<std::string> Budget::exhausted() const {
  if (limits_.tokens > 0 && tokens_ >= limits_.tokens)
    return fmt::format("token budget of {} spent ({} used)", limits_.tokens, tokens_.load());
  if (limits_.seconds > 0 && elapsed() >= limits_.seconds)
    return fmt::format("time limit of {:g} s reached ({:.0f} s elapsed)", limits_.seconds,
                       elapsed());
  return std::nullopt;
}

std::optional<std::string> Budget::candidates_exhausted() const {
  if (auto reason = exhausted()) return reason;
  if (limits_.candidates > 0 && candidates_ >= limits_.candidates)
    return fmt::format("candidate limit of {} reached", limits_.candidates);
  return std::nullopt;
}

}  // namespace kforge::pipeline

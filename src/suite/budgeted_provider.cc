#include "suite/budgeted_provider.h"

#include <fmt/format.h>

namespace kforge::suite {

Spend::Spend(SpendLimits limits, std::function<double()> clock, std::int64_t tokens_before,
             double usd_before)
    : limits_(limits), clock_(std::move(clock)), tokens_(tokens_before), usd_(usd_before) {}

std::optional<std::string> Spend::exhausted(std::string_view what) const {
  std::lock_guard lock(mutex_);
  if (limits_.tokens > 0 && tokens_ >= limits_.tokens)
    return fmt::format("{} token budget of {} spent ({} used)", what, limits_.tokens, tokens_);
  if (limits_.usd > 0 && usd_ >= limits_.usd)
    return fmt::format("{} money budget of ${:.2f} spent (${:.4f})", what, limits_.usd, usd_);
  if (limits_.deadline > 0 && clock_ && clock_() >= limits_.deadline)
    return fmt::format("{} time limit reached", what);
  return std::nullopt;
}

void Spend::add(std::int64_t tokens, double usd) {
  std::lock_guard lock(mutex_);
  tokens_ += tokens;
  usd_ += usd;
}

std::int64_t Spend::tokens() const {
  std::lock_guard lock(mutex_);
  return tokens_;
}

double Spend::usd() const {
  std::lock_guard lock(mutex_);
  return usd_;
}

BudgetedProvider::BudgetedProvider(llm::Provider& inner, Spend& suite, Spend& task,
                                   std::function<void(std::int64_t, double)> on_spend)
    : inner_(inner), suite_(suite), task_(task), on_spend_(std::move(on_spend)) {}

util::Result<llm::ChatReply> BudgetedProvider::chat(const llm::ChatRequest& request) {
  std::optional<std::string> reason = suite_.exhausted("suite");
  if (!reason) reason = task_.exhausted("task");
  if (reason) {
    std::lock_guard lock(mutex_);
    refused_ = reason;
    return util::fail("failed to ask the model for {}: {}", request.stage, *reason);
  }
  auto reply = inner_.chat(request);
  if (reply) {
    std::int64_t tokens = reply->usage.prompt_tokens + reply->usage.completion_tokens;
    suite_.add(tokens, reply->cost_usd);
    task_.add(tokens, reply->cost_usd);
    if (on_spend_) on_spend_(tokens, reply->cost_usd);
  }
  return reply;
}

std::optional<std::string> BudgetedProvider::refused() const {
  std::lock_guard lock(mutex_);
  return refused_;
}

}  // namespace kforge::suite

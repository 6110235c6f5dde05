#include "llm/token_ledger.h"

namespace kforge::llm {

void TokenTotals::add(const TokenTotals& other) {
  calls += other.calls;
  failed_calls += other.failed_calls;
  truncated_calls += other.truncated_calls;
  prompt_tokens += other.prompt_tokens;
  completion_tokens += other.completion_tokens;
  reasoning_tokens += other.reasoning_tokens;
  cached_tokens += other.cached_tokens;
  cost_usd += other.cost_usd;
  latency_s += other.latency_s;
}

TokenTotals& TokenLedger::slot(std::string_view stage) {
  for (auto& [name, totals] : stages_)
    if (name == stage) return totals;
  return stages_.emplace_back(std::string(stage), TokenTotals{}).second;
}

void TokenLedger::record(std::string_view stage, const ChatReply& reply) {
  TokenTotals call;
  call.calls = 1;
  call.truncated_calls = reply.truncated ? 1 : 0;
  call.prompt_tokens = reply.usage.prompt_tokens;
  call.completion_tokens = reply.usage.completion_tokens;
  call.reasoning_tokens = reply.usage.reasoning_tokens;
  call.cached_tokens = reply.usage.cached_tokens;
  call.cost_usd = reply.cost_usd;
  call.latency_s = reply.latency_s;
  std::lock_guard lock(mutex_);
  slot(stage).add(call);
}

void TokenLedger::record_failure(std::string_view stage) {
  std::lock_guard lock(mutex_);
  ++slot(stage).failed_calls;
}

TokenTotals TokenLedger::stage(std::string_view stage) const {
  std::lock_guard lock(mutex_);
  for (const auto& [name, totals] : stages_)
    if (name == stage) return totals;
  return {};
}

TokenTotals TokenLedger::total() const {
  std::lock_guard lock(mutex_);
  TokenTotals sum;
  for (const auto& [name, totals] : stages_) sum.add(totals);
  return sum;
}

std::vector<std::pair<std::string, TokenTotals>> TokenLedger::by_stage() const {
  std::lock_guard lock(mutex_);
  return stages_;
}

}  // namespace kforge::llm

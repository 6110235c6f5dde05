#include "llm/token_ledger.h"

#include <gtest/gtest.h>

#include <thread>

namespace kforge::llm {
namespace {

TEST(TokenLedger, TotalsPerStageInFirstSeenOrderAndPerRun) {
  TokenLedger ledger;
  ChatReply seed;
  seed.usage = {100, 50, 10, 20};
  seed.cost_usd = 0.5;
  seed.latency_s = 2;
  ChatReply cut = seed;
  cut.truncated = true;
  ledger.record("seed", seed);
  ledger.record("repair", cut);
  ledger.record("seed", seed);
  ledger.record_failure("repair");
  auto stages = ledger.by_stage();
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].first, "seed");
  EXPECT_EQ(stages[0].second.calls, 2);
  EXPECT_EQ(stages[0].second.prompt_tokens, 200);
  EXPECT_EQ(stages[1].second.truncated_calls, 1);
  EXPECT_EQ(stages[1].second.failed_calls, 1);
  TokenTotals total = ledger.total();
  EXPECT_EQ(total.calls, 3);
  EXPECT_EQ(total.total_tokens(), 450);
  EXPECT_EQ(total.reasoning_tokens, 30);
  EXPECT_EQ(total.cached_tokens, 60);
  EXPECT_DOUBLE_EQ(total.cost_usd, 1.5);
  EXPECT_EQ(ledger.stage("analysis").calls, 0);
}

TEST(TokenLedger, IsSafeFromManyThreads) {
  TokenLedger ledger;
  ChatReply reply;
  reply.usage.completion_tokens = 1;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) ledger.record(t % 2 ? "seed" : "tune", reply);
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(ledger.total().completion_tokens, 8000);
  EXPECT_EQ(ledger.stage("seed").calls, 4000);
}

}  // namespace
}  // namespace kforge::llm

#include "suite/budgeted_provider.h"

#include <gtest/gtest.h>

namespace kforge::suite {
namespace {

class CountingProvider : public llm::Provider {
 public:
  util::Result<llm::ChatReply> chat(const llm::ChatRequest&) override {
    ++calls;
    llm::ChatReply reply;
    reply.usage.prompt_tokens = 600;
    reply.usage.completion_tokens = 400;
    reply.cost_usd = 0.5;
    return reply;
  }
  std::string name() const override { return "fake"; }
  std::string model() const override { return "m"; }
  int calls = 0;
};

TEST(BudgetedProvider, TaskMoneyBudgetRefusesFurtherCalls) {
  CountingProvider inner;
  Spend suite({}, [] { return 0.0; });
  Spend task({0, 1.0, 0}, [] { return 0.0; });
  std::int64_t heard = 0;
  BudgetedProvider provider(inner, suite, task, [&](std::int64_t t, double) { heard += t; });
  llm::ChatRequest request;
  request.stage = "seed";
  EXPECT_TRUE(provider.chat(request));
  EXPECT_TRUE(provider.chat(request));
  auto refused = provider.chat(request);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "failed to ask the model for seed: task money budget of $1.00 spent ($1.0000)");
  EXPECT_EQ(inner.calls, 2);
  EXPECT_EQ(heard, 2000);
  EXPECT_EQ(suite.tokens(), 2000);
  EXPECT_TRUE(provider.refused());
}

TEST(BudgetedProvider, SuiteTokensAndDeadlineAreShared) {
  CountingProvider inner;
  double now = 0;
  Spend suite(
      {1500, 0, 10}, [&] { return now; }, /*tokens_before=*/600);
  Spend a({}, [] { return 0.0; }), b({}, [] { return 0.0; });
  BudgetedProvider first(inner, suite, a), second(inner, suite, b);
  llm::ChatRequest request;
  EXPECT_TRUE(first.chat(request));  // 600 before + 1000 = 1600 >= 1500
  auto refused = second.chat(request);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("suite token budget of 1500 spent (1600 used)"),
            std::string::npos);
  Spend timed({0, 0, 10}, [&] { return now; });
  EXPECT_FALSE(timed.exhausted("suite"));
  now = 10;
  EXPECT_EQ(*timed.exhausted("suite"), "suite time limit reached");
}

}  // namespace
}  // namespace kforge::suite

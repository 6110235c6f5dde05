#include "llm/price_table.h"

#include <gtest/gtest.h>

namespace kforge::llm {
namespace {

TEST(PriceTable, FindsExactPrefixAndVendorPrefixedIds) {
  PriceTable table = PriceTable::defaults();
  EXPECT_EQ(table.find("claude-sonnet-4-5-20250929")->input, 3.0);
  EXPECT_EQ(table.find("gpt-4o-mini-2024-07-18")->input, 0.15);  // not gpt-4o's price
  EXPECT_EQ(table.find("deepseek/deepseek-chat")->output, 0.42);
  EXPECT_FALSE(table.find("Qwen/Qwen3-8B"));
  EXPECT_FALSE(table.find("gpt-4oo"));
}

TEST(PriceTable, CostSplitsCachedPromptTokensAndOverridesWin) {
  PriceTable table;
  table.set("m", {2.0, 10.0, 0.5});
  Usage usage{1'000'000, 100'000, 50'000, 400'000};
  EXPECT_DOUBLE_EQ(table.cost("m", usage), 600'000 * 2e-6 + 400'000 * 0.5e-6 + 100'000 * 10e-6);
  table.set("m", {1.0, 1.0, 1.0});
  EXPECT_DOUBLE_EQ(table.cost("m", usage), 1.1);
  EXPECT_EQ(table.cost("unknown", usage), 0.0);
}

}  // namespace
}  // namespace kforge::llm

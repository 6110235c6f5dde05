#include "llm/retry_policy.h"

#include <gtest/gtest.h>

namespace kforge::llm {
namespace {

TEST(RetryPolicy, BackoffDoublesIsCappedAndJittered) {
  RetryPolicy policy;
  policy.initial_backoff_s = 1;
  policy.max_backoff_s = 5;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 50; ++i) {
    double first = policy.backoff_s(1, rng), third = policy.backoff_s(3, rng),
           tenth = policy.backoff_s(10, rng);
    EXPECT_GE(first, 0.5);
    EXPECT_LE(first, 1.0);
    EXPECT_GE(third, 2.0);
    EXPECT_LE(third, 4.0);
    EXPECT_GE(tenth, 2.5);
    EXPECT_LE(tenth, 5.0);
  }
}

TEST(ParseRetryAfter, SecondsOrHttpDate) {
  auto now = std::chrono::system_clock::from_time_t(1445412480);  // Wed, 21 Oct 2015 07:28:00 GMT
  EXPECT_EQ(parse_retry_after("120", now), 120.0);
  EXPECT_EQ(parse_retry_after(" 1.5 ", now), 1.5);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now), 30.0);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now), 0.0);
  EXPECT_EQ(parse_retry_after("soon", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("-3", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("", now), std::nullopt);
}

}  // namespace
}  // namespace kforge::llm

#include "llm/attempt_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "llm/model_server_for_test.h"

namespace kforge::llm {
namespace {

using testing::FakeClock;

/// Blocks until `stop` is requested or `seconds` pass; true when stopped.
bool wait_for_stop(const std::stop_token& stop, double seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (stop.stop_requested()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return stop.stop_requested();
}

ChatReply reply_of(std::string content) {
  ChatReply reply;
  reply.content = std::move(content);
  return reply;
}

AttemptFailure failure(bool retryable, std::string message, std::string partial = "") {
  AttemptFailure out;
  out.retryable = retryable;
  out.message = std::move(message);
  out.partial.content = std::move(partial);
  return out;
}

AttemptLimits limits(double timeout_s, int max_attempts) {
  AttemptLimits out;
  out.timeout_s = timeout_s;
  out.retry.max_attempts = max_attempts;
  return out;
}

double no_backoff(int) {
  return 0.5;
}

TEST(RunAttempts, LateAnswerOfTheFirstAttemptIsUsedWhileTheRetryIsAbandoned) {
  FakeClock clock;
  AttemptFn attempt = [](int number, double, std::stop_token stop) -> AttemptResult {
    if (number == 1) {
      wait_for_stop(stop, 0.6);  // answers after its 0.4-s time-out, before the retry's
      return reply_of("first answer");
    }
    wait_for_stop(stop, 30);  // the retry hangs until the call ends
    return std::unexpected(failure(false, "abandoned", "second, half writ"));
  };
  AttemptRun run = run_attempts(attempt, limits(0.4, 2), clock, no_backoff, "test");
  ASSERT_TRUE(run.reply) << run.reply.error();
  EXPECT_EQ(run.reply->content, "first answer");
  EXPECT_EQ(run.reply->attempts, 2);
  EXPECT_TRUE(run.late);
  ASSERT_EQ(run.attempts.size(), 2u);
  EXPECT_EQ(run.attempts[0].outcome, "reply");
  EXPECT_TRUE(run.attempts[0].timed_out);
  EXPECT_GE(run.attempts[0].ended_s, 0.55);
  EXPECT_EQ(run.attempts[1].outcome, "abandoned");
  EXPECT_EQ(run.attempts[1].partial.content, "second, half writ");
  EXPECT_TRUE(clock.sleeps().empty());  // no back-off after a time-out
}

TEST(RunAttempts, GivesUpAtTheLastTimeOutStoppingEveryAttemptAndKeepingTheirPartials) {
  FakeClock clock;
  std::atomic<int> stopped = 0;
  AttemptFn attempt = [&stopped](int number, double hard_timeout_s,
                                 std::stop_token stop) -> AttemptResult {
    EXPECT_GT(hard_timeout_s, 0.1);
    if (wait_for_stop(stop, 30)) ++stopped;
    return std::unexpected(failure(false, "abandoned", "partial " + std::to_string(number)));
  };
  AttemptRun run = run_attempts(attempt, limits(0.1, 2), clock, no_backoff, "test");
  ASSERT_FALSE(run.reply);
  EXPECT_TRUE(run.reply.error().starts_with("gave up after 2 attempts: timed out after 0.1"))
      << run.reply.error();
  EXPECT_NE(run.reply.error().find("(request time-out 0.1 s)"), std::string::npos);
  EXPECT_EQ(stopped, 2);
  ASSERT_EQ(run.attempts.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(run.attempts[i].outcome, "abandoned");
    EXPECT_TRUE(run.attempts[i].timed_out);
    EXPECT_EQ(run.attempts[i].partial.content, "partial " + std::to_string(i + 1));
  }
}

TEST(RunAttempts, RetryableFailuresBackOffThenSucceed) {
  FakeClock clock;
  AttemptFn attempt = [](int number, double, std::stop_token) -> AttemptResult {
    if (number < 3) return std::unexpected(failure(true, "HTTP 503: server error: busy"));
    return reply_of("third time");
  };
  AttemptRun run = run_attempts(attempt, limits(5, 5), clock, no_backoff, "test");
  ASSERT_TRUE(run.reply) << run.reply.error();
  EXPECT_EQ(run.reply->content, "third time");
  EXPECT_EQ(run.reply->attempts, 3);
  EXPECT_FALSE(run.late);
  EXPECT_EQ(clock.sleeps(), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(run.attempts[0].outcome, "failed");
  EXPECT_EQ(run.attempts[0].error, "HTTP 503: server error: busy");
}

TEST(RunAttempts, RetryAfterIsHonouredAndMaxAttemptsBoundsTheCall) {
  FakeClock clock;
  AttemptFn attempt = [](int, double, std::stop_token) -> AttemptResult {
    AttemptFailure busy = failure(true, "HTTP 429: rate limited");
    busy.retry_after_s = 7;
    return std::unexpected(busy);
  };
  AttemptRun run = run_attempts(attempt, limits(5, 2), clock, no_backoff, "test");
  ASSERT_FALSE(run.reply);
  EXPECT_EQ(run.reply.error(), "gave up after 2 attempts: HTTP 429: rate limited");
  EXPECT_EQ(clock.sleeps(), (std::vector<double>{7}));
}

TEST(RunAttempts, NonRetryableFailureEndsTheCallAtOnce) {
  FakeClock clock;
  std::atomic<int> calls = 0;
  AttemptFn attempt = [&calls](int, double, std::stop_token) -> AttemptResult {
    ++calls;
    return std::unexpected(failure(false, "HTTP 401: bad API key"));
  };
  AttemptRun run = run_attempts(attempt, limits(5, 5), clock, no_backoff, "test");
  ASSERT_FALSE(run.reply);
  EXPECT_EQ(run.reply.error(), "HTTP 401: bad API key");
  EXPECT_EQ(calls, 1);
}

TEST(RunAttempts, AdjustedAttemptsAreNotCounted) {
  FakeClock clock;
  AttemptFn attempt = [](int number, double, std::stop_token) -> AttemptResult {
    if (number == 1) {
      AttemptFailure rejected = failure(false, "HTTP 400: unsupported parameter max_tokens");
      rejected.adjusted = true;
      return std::unexpected(rejected);
    }
    return reply_of("ok");
  };
  AttemptRun run = run_attempts(attempt, limits(5, 1), clock, no_backoff, "test");
  ASSERT_TRUE(run.reply) << run.reply.error();
  EXPECT_EQ(run.reply->attempts, 2);
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST(RunAttempts, AFailedRetryStillWaitsForTheLateFirstAnswer) {
  FakeClock clock;
  AttemptFn attempt = [](int number, double, std::stop_token stop) -> AttemptResult {
    if (number == 1) {
      wait_for_stop(stop, 0.4);
      return reply_of("slow but fine");
    }
    return std::unexpected(failure(true, "connection failed: reset"));
  };
  AttemptRun run = run_attempts(attempt, limits(0.1, 2), clock, no_backoff, "test");
  ASSERT_TRUE(run.reply) << run.reply.error();
  EXPECT_EQ(run.reply->content, "slow but fine");
  EXPECT_TRUE(run.late);
  EXPECT_EQ(run.attempts[1].outcome, "failed");
}

}  // namespace
}  // namespace kforge::llm

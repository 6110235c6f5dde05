#pragma once

#include <chrono>
#include <memory>

namespace kforge::llm {

/// Time as the retry logic sees it: a monotonic now() and a sleep. Abstract so tests can replace
/// back-off sleeps with a fake that records them and advances instantly.
class Clock {
 public:
  using Duration = std::chrono::duration<double>;
  virtual ~Clock() = default;
  virtual std::chrono::steady_clock::time_point now() = 0;
  virtual void sleep_for(Duration duration) = 0;
};

/// The real clock (std::chrono::steady_clock and std::this_thread::sleep_for). Shared, stateless.
std::shared_ptr<Clock> real_clock();

}  // namespace kforge::llm

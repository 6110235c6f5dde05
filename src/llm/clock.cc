#include "llm/clock.h"

#include <thread>

namespace kforge::llm {

namespace {

/// Clock backed by std::chrono::steady_clock.
class RealClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point now() override { return std::chrono::steady_clock::now(); }
  void sleep_for(Duration duration) override {
    if (duration.count() > 0) std::this_thread::sleep_for(duration);
  }
};

}  // namespace

std::shared_ptr<Clock> real_clock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<RealClock>();
  return clock;
}

}  // namespace kforge::llm

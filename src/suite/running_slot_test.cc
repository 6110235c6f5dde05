#include "suite/running_slot.h"

#include <gtest/gtest.h>

#include <array>
#include <mutex>
#include <vector>

#include "suite/scheduler.h"

namespace kforge::suite {
namespace {

class NamedPool : public eval::WorkerPool {
 public:
  util::Result<eval::WorkerInfo> hello() override { return eval::WorkerInfo{}; }
  util::Result<eval::Evaluation> evaluate(const eval::EvalRequest&) override {
    return util::fail("not faked");
  }
  util::Result<eval::BaselineResult> baseline(const eval::BaselineRequest&) override {
    return util::fail("not faked");
  }
  util::Result<std::string> inspect_task(const eval::InspectTaskRequest&) override {
    return util::fail("not faked");
  }
  util::Result<std::string> analyze(const eval::AnalyzeRequest&) override {
    return util::fail("not faked");
  }
  std::size_t size() const override { return 1; }
};

TEST(RunningSlot, EachSlotsThreadSeesItsOwnPoolAndNoneOutsideATask) {
  std::array<NamedPool, 3> pools;
  std::mutex mutex;
  std::vector<std::pair<std::size_t, eval::WorkerPool*>> seen;
  run_on_slots(30, pools.size(), [&](std::size_t, std::size_t slot) {
    RunningSlot running(pools[slot]);
    eval::WorkerPool* inside = RunningSlot::pool();
    std::lock_guard lock(mutex);
    seen.emplace_back(slot, inside);
    return true;
  });
  ASSERT_EQ(seen.size(), 30u);
  for (const auto& [slot, pool] : seen) EXPECT_EQ(pool, &pools[slot]) << "slot " << slot;
  EXPECT_EQ(RunningSlot::pool(), nullptr);
}

TEST(RunningSlot, NestedScopesRestoreTheOuterPool) {
  NamedPool outer, inner;
  RunningSlot a(outer);
  {
    RunningSlot b(inner);
    EXPECT_EQ(RunningSlot::pool(), &inner);
  }
  EXPECT_EQ(RunningSlot::pool(), &outer);
}

}  // namespace
}  // namespace kforge::suite

#include "suite/scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

namespace kforge::suite {
namespace {

TEST(RunOnSlots, EveryItemOnceSpreadOverSlots) {
  std::mutex mutex;
  std::multiset<std::size_t> items;
  std::set<std::size_t> slots;
  std::size_t taken = run_on_slots(40, 4, [&](std::size_t item, std::size_t slot) {
    std::this_thread::sleep_for(std::chrono::milliseconds(item % 3));
    std::lock_guard lock(mutex);
    items.insert(item);
    slots.insert(slot);
    return true;
  });
  EXPECT_EQ(taken, 40u);
  EXPECT_EQ(items.size(), 40u);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(items.count(i), 1u) << i;
  EXPECT_EQ(slots.size(), 4u);
}

TEST(RunOnSlots, StopTakesNoMoreItems) {
  std::atomic<int> calls{0};
  std::size_t taken = run_on_slots(100, 1, [&](std::size_t item, std::size_t) {
    ++calls;
    return item < 4;
  });
  EXPECT_EQ(calls.load(), 5);
  EXPECT_EQ(taken, 5u);
}

TEST(RunOnSlots, MoreSlotsThanItems) {
  std::atomic<int> calls{0};
  run_on_slots(2, 8, [&](std::size_t, std::size_t) { return ++calls, true; });
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(run_on_slots(0, 3, [](std::size_t, std::size_t) { return true; }), 0u);
}

}  // namespace
}  // namespace kforge::suite

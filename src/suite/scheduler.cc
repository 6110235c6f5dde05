#include "suite/scheduler.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace kforge::suite {

std::size_t run_on_slots(std::size_t items, std::size_t slots,
                         const std::function<bool(std::size_t item, std::size_t slot)>& work) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  auto loop = [&](std::size_t slot) {
    while (!stop.load()) {
      std::size_t item = next.fetch_add(1);
      if (item >= items) return;
      if (!work(item, slot)) stop.store(true);
    }
  };
  slots = std::max<std::size_t>(1, std::min(slots, std::max<std::size_t>(items, 1)));
  std::vector<std::thread> threads;
  for (std::size_t s = 1; s < slots; ++s) threads.emplace_back(loop, s);
  loop(0);
  for (auto& t : threads) t.join();
  return std::min(next.load(), items);
}

}  // namespace kforge::suite

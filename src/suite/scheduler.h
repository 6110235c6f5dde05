#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace kforge::suite {

/// Runs `items` units of work over `slots` worker slots (one per GPU): each slot takes the next
/// item not yet taken, so a slow task holds one slot while the others go on, no item is taken
/// twice and every item is taken unless the work says stop.
///
/// `work(item, slot)` returns false to stop the schedule: no slot takes another item, the items
/// in flight finish. Returns how many items were taken. Blocks until every slot is idle.
std::size_t run_on_slots(std::size_t items, std::size_t slots,
                         const std::function<bool(std::size_t item, std::size_t slot)>& work);

}  // namespace kforge::suite

#include "suite/running_slot.h"

namespace kforge::suite {
namespace {
thread_local eval::WorkerPool* running_pool = nullptr;
}  // namespace

RunningSlot::RunningSlot(eval::WorkerPool& pool) : previous_(running_pool) {
  running_pool = &pool;
}

RunningSlot::~RunningSlot() {
  running_pool = previous_;
}

eval::WorkerPool* RunningSlot::pool() {
  return running_pool;
}

}  // namespace kforge::suite

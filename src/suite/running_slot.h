#pragma once

#include "eval/worker_pool.h"

namespace kforge::suite {

/// The worker pool of the suite slot whose thread is running a task, for the length of that
/// task. Each slot is a thread of its own with a worker of its own; a provider shared by every
/// slot (the library's, which inspects each task through a worker) must use the running task's
/// worker: another slot's is busy with its own task, and waiting for it made a 5 s task take
/// 14.5 s on 2 x H100.
class RunningSlot {
 public:
  explicit RunningSlot(eval::WorkerPool& pool);
  ~RunningSlot();
  RunningSlot(const RunningSlot&) = delete;
  RunningSlot& operator=(const RunningSlot&) = delete;

  /// The calling thread's running slot's pool, or nullptr outside a task.
  static eval::WorkerPool* pool();

 private:
  eval::WorkerPool* previous_;
};

}  // namespace kforge::suite

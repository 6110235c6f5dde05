#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "suite/suite_journal.h"
#include "suite/suite_progress.h"
#include "suite/suite_record.h"
#include "suite/task_list.h"
#include "util/error.h"

namespace kforge::suite {

/// One task's work on one slot (`kforge suite eval`: score its candidates; `suite run`: the
/// pipeline). Errors stop the suite (no worker can start); a failing task is a row.
using TaskWork = std::function<util::Result<TaskResult>(const SuiteTask& task, std::size_t slot)>;

/// How a suite (or one shard of it) is driven.
struct SuiteDrive {
  std::filesystem::path dir;
  SuiteJournal& journal;
  /// The tasks of this shard, in suite order; those the journal already holds are skipped.
  std::vector<SuiteTask> tasks;
  int shard = 0;
  std::size_t slots = 1;
  /// GPU index of each slot (-1: the default device), recorded in each row.
  std::vector<int> slot_gpus;
  TaskWork work;
  /// Asked before each task starts: a reason to start no more (a suite budget), or nullopt.
  std::function<std::optional<std::string>()> stop_reason;
  SuiteProgress& progress;
  /// Rewrite suite.json / summary.md / report.html after every task (an unsharded suite).
  bool write_reports = true;
  double elapsed_before_s = 0;
};

/// What a drive ended with.
struct SuiteOutcome {
  SuiteRecord record;
  int done_here = 0;  // tasks finished by this process
  int pending = 0;    // tasks of this shard still without a row
};

/// Runs the shard's pending tasks over the slots (run_on_slots): each finished task is journaled
/// (fsync'd) before the next starts on that slot, then reported to the progress view. Stops
/// starting tasks when `stop_reason` says so (state "stopped") or a task's work errors (the
/// error is returned after the tasks in flight finish and are journaled).
util::Result<SuiteOutcome> drive_suite(SuiteDrive& drive);

}  // namespace kforge::suite

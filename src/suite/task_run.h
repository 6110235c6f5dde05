#pragma once

#include <filesystem>
#include <vector>

#include "eval/worker_pool.h"
#include "llm/provider.h"
#include "prompts/prompt_set.h"
#include "store/run_record.h"
#include "store/run_store.h"
#include "suite/suite_record.h"
#include "suite/task_list.h"
#include "util/error.h"

namespace kforge::suite {

/// What `kforge suite run` gives the pipeline for one task.
struct TaskRunContext {
  /// The model, already wrapped for the suite's and the task's budgets (BudgetedProvider).
  llm::Provider& provider;
  /// The slot's pool: one worker on the slot's GPU.
  eval::WorkerPool& pool;
  const prompts::PromptSet& prompts;
  std::vector<std::filesystem::path> library_dirs;
  /// Settings and per-task budgets of every task's run (task, provider, model filled in here).
  store::RunConfig config;
};

/// Runs the pipeline (src/pipeline) on `task` in the run directory `run_dir` (created when
/// absent). A directory that already holds run.json is resumed from its journal, as `kforge run
/// --resume` does, so a task cut short by a kill is finished without asking or evaluating again
/// what it had done. Writes the run's summary.md and report.html and records it in
/// `run_dir`/../index.sqlite. The row: `ok` when a candidate is correct (the best when the run
/// was timed, else the lowest-error correct one), else the last candidate's status, or
/// `no_candidate`; tokens and cost over the run; the pipeline's state and stop reason as note.
/// Errors only when no worker can start.
util::Result<TaskResult> run_task(const SuiteTask& task, const std::filesystem::path& run_dir,
                                  TaskRunContext& context);

/// The row of a finished run record (`store`: the run's directory, where the chosen candidate's
/// verdicts are read from its kept evaluation).
TaskResult row_from_run(const store::RunRecord& run, const store::RunStore& store);

}  // namespace kforge::suite

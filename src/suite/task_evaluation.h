#pragma once

#include <filesystem>
#include <vector>

#include "eval/evaluation.h"
#include "eval/worker_pool.h"
#include "suite/suite_record.h"
#include "suite/task_list.h"
#include "util/error.h"

namespace kforge::suite {

/// Scores one task's existing candidate files (`kforge suite eval`) through `pool`, the full
/// harness with its trust checks: each file is one `evaluate` request made from `request`
/// (settings; task and candidate are filled in). Each evaluation is written whole to
/// `evals_dir`/<task id>[.s<sample>].json. With several samples, the task's row is the best
/// one: correct before incorrect, then faster, then the lower sample number.
///
/// No candidate file: a row with status `missing`, no request. A request the worker refuses
/// (a task it cannot load): status `error` with the message. Errors only when no worker can
/// start (the suite stops: nothing about the task was learned).
util::Result<TaskResult> evaluate_task(eval::WorkerPool& pool, const SuiteTask& task,
                                       const std::vector<CandidateFile>& candidates,
                                       const eval::EvalRequest& request,
                                       const std::filesystem::path& evals_dir);

/// The row of one evaluation (no id, task or wall time filled in). Timings are dropped in CPU
/// mode: the worker does not time there, and a CPU number is no GPU speed-up.
TaskResult row_from_evaluation(const eval::Evaluation& evaluation, eval::Device device);

/// True when `error` says no worker could be started (the suite cannot go on).
bool is_worker_start_error(const util::Error& error);

}  // namespace kforge::suite

#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "eval/worker_pool.h"
#include "llm/provider.h"
#include "pipeline/console_view.h"
#include "prompts/prompt_set.h"
#include "store/run_record.h"
#include "store/run_store.h"
#include "util/error.h"

namespace kforge::pipeline {

/// What the pipeline works with. Every piece is an interface or a function so that unit tests
/// run the whole strategy against fakes.
struct PipelineServices {
  llm::Provider& provider;
  eval::WorkerPool& pool;
  const prompts::PromptSet& prompts;
  store::RunStore& store;
  ConsoleView& view;
  /// Kernel analysis of a candidate file (src/analysis); empty = none.
  std::function<util::Result<analysis::Report>(const std::filesystem::path&)> analyze;
  /// Monotonic seconds; empty = std::chrono::steady_clock.
  std::function<double()> clock;
};

/// The task and the run's record as the caller found them.
struct PipelineInputs {
  /// Configuration, id and start time; on resume, the record read from run.json.
  store::RunRecord record;
  std::string task_source;
  /// Library folders to pick a verified kernel for a related pattern from, shown to the model as
  /// an example: prompts::find_library_example on the worker's TaskInfo (empty = no example).
  std::vector<std::filesystem::path> library_dirs;
};

/// How a run ended.
struct PipelineResult {
  store::RunRecord record;
  /// The best verified candidate's source; nullopt when no candidate was verified or none was
  /// timed (a CPU run: the correct candidates are kept unranked, record.ranking "unranked").
  std::optional<std::string> best_source;
};

/// Runs the strategy of SYSTEM.md (after asking the worker what the task computes,
/// task::inspect_task: whether it is recurrent comes from there): seeds (concurrently) → repair →
/// algorithm analysis and an optimised candidate per weak seed → guarded tuning (grid, tiling,
/// memory) → best. Every finished model call, evaluation and analysis is journaled before the run
/// moves on, and found again in the journal when the same run is resumed. Budgets stop the run
/// cleanly with the best so far (record.state "stopped"). Errors only for what makes the run
/// impossible (no worker, unreadable prompts); a model call that fails ends its branch, not the
/// run.
util::Result<PipelineResult> run_pipeline(const PipelineInputs& inputs, PipelineServices& services);

}  // namespace kforge::pipeline

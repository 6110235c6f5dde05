#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "eval/eval_settings.h"
#include "util/error.h"

namespace kforge::suite {

/// What a suite was started with, recorded as the first line of its journal so that a resumed,
/// sharded or merged suite sees the same task list and settings. Never holds a secret.
struct SuiteConfig {
  std::string mode;  // "eval" (score existing candidates) | "run" (the pipeline per task)
  /// Every task of the suite, over all shards, in suite order: id and file path.
  std::vector<std::string> task_ids;
  std::vector<std::string> task_paths;
  std::string candidates_dir;  // eval only
  /// How every candidate is checked and timed (cli::read_eval_settings), recorded so that a
  /// resumed shard evaluates as the first one did.
  eval::EvalSettings settings;
  std::vector<int> gpus;
  int shards = 1;
  std::string provider;  // run only
  std::string model;     // run only
  /// Per-task limits (run): tokens, money, seconds; 0 = none.
  std::int64_t task_budget_tokens = 0;
  double task_budget_usd = 0;
  double task_time_limit_s = 0;
  /// Whole-suite limits; 0 = none.
  std::int64_t budget_tokens = 0;
  double budget_usd = 0;
  double time_limit_s = 0;
  std::string created_at;  // ISO 8601 UTC
  std::string kforge_version;
};

/// One task's outcome in a suite: a row of the per-task table and the unit fast_p counts.
/// Times are medians in milliseconds; absent when not measured (CPU mode, incorrect candidate).
struct TaskResult {
  std::string id;
  std::string task;  // task file path
  /// ok | syntax_error | compile_error | runtime_error | wrong_output | timeout | crashed |
  /// rejected (the worker's verdicts), missing (no candidate file), no_candidate (the pipeline
  /// made none), error (the harness could not serve the task), not_run (merge: no shard did it).
  std::string status;
  std::string candidate;  // the candidate file scored (eval) or the best/first correct (run)
  int samples = 0;        // candidate files found for the task (eval: KernelBench samples)
  int correct_samples = 0;
  std::optional<bool> pass_calibrated;
  std::optional<bool> pass_kernelbench;
  std::string generalizes;  // yes | no | unknown | ""
  std::optional<double> max_abs_err;
  std::optional<double> best_ms;
  std::optional<double> eager_ms;
  std::optional<double> compile_ms;
  std::optional<double> cuda_graph_ms;
  std::vector<std::string> reasons;  // trust-guard reasons
  std::string error_head;            // first line of the error
  std::int64_t tokens = 0;
  double cost_usd = 0;
  double wall_s = 0;
  std::string run_dir;  // run: relative to the suite directory
  std::string note;     // e.g. the pipeline's stop reason
  /// Which worker slot (GPU index, or -1 for the default device) and shard did it.
  int gpu = -1;
  int shard = 0;

  /// baseline_ms / best_ms for "eager", "compile" or "cuda_graph"; nullopt when either is
  /// missing or the task is not correct.
  std::optional<double> speedup(std::string_view baseline) const;
  bool correct() const { return status == "ok"; }
};

/// The state of a suite as its reports show it.
struct SuiteRecord {
  SuiteConfig config;
  /// One per task of config.task_ids that finished, in suite order; merged and reported suites
  /// add a `not_run` row for each task no shard finished.
  std::vector<TaskResult> tasks;
  std::string state = "running";  // running | finished | stopped | merged
  std::string stop_reason;
  double elapsed_s = 0;
};

std::string encode_config(const SuiteConfig& config);
util::Result<SuiteConfig> decode_config(std::string_view json_text);
std::string encode_task_result(const TaskResult& result);
util::Result<TaskResult> decode_task_result(std::string_view json_text);

}  // namespace kforge::suite

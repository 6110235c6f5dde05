#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/analysis.h"
#include "eval/evaluation.h"
#include "eval/worker_pool.h"
#include "prompts/template.h"

namespace kforge::prompts {

/// What the prompts say about the task itself and the rules its candidates are judged by.
struct TaskFacts {
  std::string name;    // file stem, e.g. "39_GRU"
  std::string source;  // the reference module's file
  bool recurrent = false;
  bool cpu = false;  // evaluated on the CPU through the Triton interpreter (no timings)
  /// The numerics policy (docs/numerics.md): every stage states it, from `numerics_strict`.
  eval::NumericsPolicy numerics = eval::NumericsPolicy::kTolerance;
  /// The correctness verdict that decides (docs/correctness.md).
  eval::Precision precision = eval::Precision::kCalibrated;
};

/// The variables every stage template may use. Each function fills a documented group; the
/// template variables are listed in prompts/README.md.
Vars task_vars(const TaskFacts& task);
/// The GPU the kernels are written for: the worker's device, with the published facts of
/// `target_gpu` (a find_target_gpu key) where it has none (a CPU run) or is that GPU.
Vars gpu_vars(const eval::WorkerInfo& info, std::string_view target_gpu = "H100");
/// The candidate under discussion: `candidate_source`, its evaluation (`status`, `error`,
/// `first_failure`, `max_abs_err`, `score`, `latency_ms`, `eager_ms`, `launches_per_forward`,
/// `kernels`) and its analysis findings (`findings`, `kernel_type`, `persistent`).
Vars candidate_vars(std::string_view source, const eval::Evaluation& evaluation,
                    const std::optional<analysis::Report>& report);
/// Inserts or replaces every variable of `from` in `into`.
void merge(Vars& into, const Vars& from);

/// `text` cut to at most `max_lines` lines and `max_chars` characters, keeping the head and the
/// tail (where Python puts the exception) and saying how much was left out.
std::string trim_for_prompt(std::string_view text, std::size_t max_lines = 60,
                            std::size_t max_chars = 6000);

/// "0.1157" for a score, "" when absent (templates test it with {{#if score}}).
std::string format_number(std::optional<double> value, int precision = 4);

}  // namespace kforge::prompts

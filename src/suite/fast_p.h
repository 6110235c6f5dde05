#pragma once

#include <optional>
#include <string>
#include <vector>

#include "suite/suite_record.h"

namespace kforge::suite {

/// The baselines fast_p is measured against, in report order: "eager", "compile", "cuda_graph".
const std::vector<std::string>& fast_p_baselines();
/// "eager" → "eager", "compile" → "torch.compile", "cuda_graph" → "CUDA graph".
std::string baseline_title(std::string_view baseline);

/// The thresholds the report tabulates: 0, 1, 1.5, 2, 4.
const std::vector<double>& fast_p_thresholds();

/// KernelBench's fast_p over a suite: the fraction of *all* tasks (missing and failed ones
/// count in the denominator) that are correct and whose speed-up over `baseline`
/// (baseline_ms / candidate_ms) is greater than `p`. fast_0 is the fraction correct, which needs
/// no timing; for p > 0 a correct task counts only when it and the baseline were timed.
struct FastP {
  double p = 0;
  int count = 0;  // tasks counted
  int total = 0;  // all tasks
  /// count / total; nullopt when total is 0, or for p > 0 when no task of the suite was timed
  /// against this baseline (a CPU suite: unranked, no timings).
  std::optional<double> fraction;
};

FastP fast_p(const std::vector<TaskResult>& tasks, std::string_view baseline, double p);

/// Geometric mean of the speed-up over `baseline` across correct tasks timed against it.
struct GeoMean {
  int tasks = 0;                // correct tasks with a speed-up
  std::optional<double> value;  // nullopt when `tasks` is 0
};

GeoMean geomean_speedup(const std::vector<TaskResult>& tasks, std::string_view baseline);

/// fast_p as a step function of p, for the chart: (p, fraction) at p = 0 and just after every
/// speed-up where the fraction drops, up to `p_max` (at least 4, or the largest speed-up x 1.1).
/// Empty when nothing was timed.
std::vector<std::pair<double, double>> fast_p_curve(const std::vector<TaskResult>& tasks,
                                                    std::string_view baseline);

/// True when any correct task has a candidate time (the suite ran on a GPU).
bool has_timings(const std::vector<TaskResult>& tasks);

}  // namespace kforge::suite

#include "pipeline/tuning_guard.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kforge::pipeline {

const std::vector<std::string>& tuning_stages() {
  static const std::vector<std::string> stages = {"tune_grid", "tune_tiling", "tune_memory"};
  return stages;
}

GuardDecision decide_tuning(const Candidate& best, bool enabled) {
  GuardDecision decision;
  decision.run = tuning_stages();
  if (!enabled) return decision;
  const std::optional<AnalysisDiagnosis>& diagnosis = best.diagnosis;
  if (diagnosis && diagnosis->implementation_complexity == Complexity::kHigh) {
    decision.run.clear();
    decision.reason = fmt::format(
        "the analysis rates #{} implementation_complexity high ({}): tuning would break the "
        "algorithm",
        best.id, diagnosis->optimisation_method);
    return decision;
  }
  std::vector<std::string> why;
  if (best.report && best.report->persistent) why.push_back("kernel analysis: persistent");
  if (best.report && best.report->kernel_type == "persistent_recurrent")
    why.push_back("kernel analysis: kernel_type persistent_recurrent");
  if (diagnosis && diagnosis->implementation_complexity == Complexity::kPersistent)
    why.push_back("diagnosis: implementation_complexity persistent");
  if (diagnosis && diagnosis->kernel_type == "persistent_recurrent")
    why.push_back("diagnosis: kernel_type persistent_recurrent");
  if (why.empty()) return decision;

  std::string grid_problem;
  if (best.report)
    for (const analysis::Diagnostic& d : best.report->diagnostics)
      if (d.rule.find("grid") != std::string::npos) {
        grid_problem = d.rule;
        break;
      }
  // Parameter-only tuning keeps the design: launch configuration, block sizes, num_warps and
  // num_stages (grid and tiling stages, adapted); memory-layout tuning rewrites too much.
  decision.run = {"tune_grid", "tune_tiling"};
  decision.adapt = true;
  decision.reason = fmt::format(
      "#{} is a persistent kernel ({}){}: tuning parameters only (launch configuration, block "
      "sizes, num_warps, num_stages) with the time loop kept inside the kernel; skipping memory "
      "tuning, which rewrites the design",
      best.id, fmt::join(why, ", "),
      grid_problem.empty() ? "" : fmt::format(" and analysis reports {}", grid_problem));
  return decision;
}

}  // namespace kforge::pipeline

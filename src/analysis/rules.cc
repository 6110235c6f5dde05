#include "analysis/rules.h"

#include <algorithm>

#include "analysis/classification.h"

namespace kforge::analysis {

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {"syntax-error", "the candidate does not parse as Python", check_syntax_error},
      {"missing-triton-api", "a tl.* / libdevice name the installed Triton does not have",
       check_missing_triton_api},
      {"non-constexpr-arange", "tl.arange with a bound that is not tl.constexpr",
       check_nonconstexpr_arange},
      {"tensor-subscript", "Python subscript of a Triton tensor inside @triton.jit",
       check_tensor_subscript},
      {"python-time-loop", "kernels launched from a Python time loop (one launch per step)",
       check_python_time_loop},
      {"launch-count", "far more kernel launches per forward than layers (measured)",
       check_launch_count},
      {"batch-only-grid", "grid over the batch only while each program walks the hidden size",
       check_batch_only_grid},
      {"missing-grid-barrier",
       "state stored by one program and read by others in the next iteration, unsynchronised",
       check_missing_grid_barrier},
      {"replaced-operator", "the candidate calls the operator it is meant to replace",
       check_replaced_operator},
  };
  return table;
}

bool contains(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

util::SourceLocation at(const Facts& facts, int line, int column) {
  return util::SourceLocation{facts.path, static_cast<std::size_t>(std::max(line, 0)),
                              static_cast<std::size_t>(std::max(column, 0))};
}

Report analyze_facts(const Facts& facts) {
  Report report;
  for (const Rule& rule : rules()) rule.check(facts, report.diagnostics);
  Classification classification = classify(facts);
  report.kernel_type = classification.kernel_type;
  report.persistent = classification.persistent;
  if (facts.runtime && facts.runtime->status == "ok")
    report.launches_per_forward = facts.runtime->launches_per_forward;
  return report;
}

}  // namespace kforge::analysis

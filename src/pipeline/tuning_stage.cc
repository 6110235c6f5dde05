// The tuning stages (grid, tiling, memory) from the best candidate, as the tuning guard allows.

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "pipeline/run.h"
#include "pipeline/tuning_guard.h"

namespace kforge::pipeline {

void Run::tuning_phase() {
  CandidatePtr start = best();
  if (stopping()) {
    note("tuning: skipped: the run is stopping");
    return;
  }
  if (!start) {
    note("tuning: skipped: no verified candidate to tune");
    return;
  }
  if (!config_.tuning) {
    note(fmt::format("tuning: skipped: {} answers with verified kernels, not a model",
                     s_.provider.name()));
    return;
  }
  phase("tuning");
  if (!timed(*start))
    note(
        fmt::format("tuning: starts from #{}, the correct candidate with the lowest error "
                    "(unranked: no timings)",
                    start->id));
  GuardDecision decision = decide_tuning(*start, config_.guard);
  if (!decision.reason.empty()) note("guard: " + decision.reason);
  for (const std::string& stage : tuning_stages()) {
    if (std::find(decision.run.begin(), decision.run.end(), stage) == decision.run.end()) {
      note(fmt::format("guard: {} skipped", stage));
      continue;
    }
    if (stopping()) break;
    CandidatePtr base = best();
    prompts::Vars vars = vars_for(*base);
    vars["adapt_persistent"] = decision.adapt ? "yes" : "";
    vars["guard_reason"] = decision.reason;
    vars["best_id"] = std::to_string(base->id);
    auto candidate = produce(stage, stage, base->id, 0, vars, base->diagnosis);
    if (!candidate) continue;
    repair_chain(candidate);
  }
}

}  // namespace kforge::pipeline

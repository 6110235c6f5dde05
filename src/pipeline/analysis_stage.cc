// The analysis rescue: when the best score is below the threshold, the model analyses the seeds
// and an optimised candidate (with its repair chain) follows from each analysis worth acting on.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <future>
#include <string>
#include <vector>

#include "pipeline/run.h"
#include "prompts/prompt_vars.h"

namespace kforge::pipeline {

void Run::analysis_phase(const std::vector<CandidatePtr>& seeds) {
  CandidatePtr current = best();
  if (stopping()) {
    note("analysis: skipped: the run is stopping");
    return;
  }
  if (config_.analysis == "never") {
    note("analysis: skipped (--analysis never)");
    return;
  }
  if (!current) {
    note("analysis: skipped: no verified candidate to analyse");
    return;
  }
  const auto& score = current->evaluation.score;
  if (config_.analysis == "auto" && score && *score >= config_.analysis_threshold) {
    note(fmt::format("analysis: skipped: best #{} scores {:.4f} >= threshold {:g}", current->id,
                     *score, config_.analysis_threshold));
    return;
  }
  std::vector<CandidatePtr> targets;
  for (const CandidatePtr& seed : seeds) {
    if (!seed || !seed->verified()) continue;
    const auto& s = seed->evaluation.score;
    if (config_.analysis == "auto" && s && *s >= config_.analysis_threshold) continue;
    if (std::find(targets.begin(), targets.end(), seed) == targets.end()) targets.push_back(seed);
  }
  phase("analysis");
  std::string why = config_.analysis == "always" ? "--analysis always"
                    : score ? fmt::format("best score {:.4f} < threshold {:g}", *score,
                                          config_.analysis_threshold)
                            : std::string("no timing (CPU mode): scores unknown");
  std::vector<std::string> ids;
  for (const CandidatePtr& t : targets) ids.push_back(fmt::format("#{}", t->id));
  note(fmt::format("analysis: {}; analysing {}", why, fmt::format("{}", fmt::join(ids, ", "))));
  std::vector<std::future<CandidatePtr>> chains;
  for (const CandidatePtr& target : targets)
    chains.push_back(
        std::async(std::launch::async, [this, target] { return analysis_chain(target); }));
  for (auto& chain : chains) chain.get();
}

CandidatePtr Run::analysis_chain(const CandidatePtr& target) {
  int k = target->lineage;
  prompts::Vars vars = vars_for(*target);
  std::string key = fmt::format("analysis{}", k);
  auto reply = ask(key, "analysis", "analysis", fmt::format("{}_analysis", target->id), vars);
  if (!reply) return nullptr;
  auto diagnosis = parse_analysis(reply->content);
  if (!diagnosis) {
    note(fmt::format("analysis of #{}: {} — asking once more", target->id,
                     diagnosis.error().message));
    vars["validation_error"] = diagnosis.error().message;
    vars["previous_reply"] = prompts::trim_for_prompt(reply->content, 80, 6000);
    auto retry = ask(key + ".retry", "analysis", "analysis_retry",
                     fmt::format("{}_analysis_retry", target->id), vars);
    if (!retry) return nullptr;
    diagnosis = parse_analysis(retry->content);
    if (!diagnosis) {
      note(fmt::format("analysis of #{} is still invalid: {} — no optimised candidate from it",
                       target->id, diagnosis.error().message));
      return nullptr;
    }
  }
  const AnalysisDiagnosis& d = *diagnosis;
  note(fmt::format(
      "analysis of #{}: worth optimising: {} ({}); bottleneck: {}; method: {}; complexity: {}; "
      "kernel_type: {}; expected speed-up: {}",
      target->id, d.worth_optimizing ? "yes" : "no", first_line(d.reason), first_line(d.bottleneck),
      first_line(d.optimisation_method), to_string(d.implementation_complexity), d.kernel_type,
      first_line(d.expected_speedup)));
  if (!d.worth_optimizing) return nullptr;
  prompts::merge(vars, diagnosis_vars(d));
  auto candidate = produce(fmt::format("optimise{}", k), "optimise", target->id, k, vars, d);
  if (!candidate) return nullptr;
  return repair_chain(candidate);
}

}  // namespace kforge::pipeline

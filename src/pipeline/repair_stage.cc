// The repair stage: a failed candidate goes back with its trimmed error, up to --repairs times.

#include <fmt/format.h>

#include <string>

#include "pipeline/run.h"

namespace kforge::pipeline {

CandidatePtr Run::repair_chain(CandidatePtr current) {
  const std::string root = current->key;
  const std::string origin = current->stage;
  for (int attempt = 1; attempt <= config_.repairs && !current->verified(); ++attempt) {
    if (failed_) break;
    prompts::Vars vars = vars_for(*current);
    vars["attempt"] = std::to_string(attempt);
    vars["origin_stage"] = origin;
    auto next = produce(fmt::format("{}.r{}", root, attempt), "repair", current->id,
                        current->lineage, vars, current->diagnosis);
    if (!next) break;
    current = next;
  }
  return current;
}

}  // namespace kforge::pipeline

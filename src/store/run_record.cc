#include "store/run_record.h"

namespace kforge::store {

std::optional<std::pair<std::string, double>> RunBaselines::best() const {
  std::optional<std::pair<std::string, double>> best;
  for (const auto& [name, ms] : {std::pair{"eager", eager_ms}, std::pair{"compile", compile_ms},
                                 std::pair{"cuda_graph", cuda_graph_ms}})
    if (ms && *ms > 0 && (!best || *ms < best->second)) best = std::pair{std::string(name), *ms};
  return best;
}

const CandidateRecord* find_candidate(const RunRecord& run, int id) {
  for (const CandidateRecord& candidate : run.candidates)
    if (candidate.id == id) return &candidate;
  return nullptr;
}

TokenRow total_tokens(const RunRecord& run) {
  TokenRow total{"total"};
  for (const TokenRow& row : run.tokens) {
    total.calls += row.calls;
    total.prompt_tokens += row.prompt_tokens;
    total.completion_tokens += row.completion_tokens;
    total.reasoning_tokens += row.reasoning_tokens;
    total.cached_tokens += row.cached_tokens;
    total.cost_usd += row.cost_usd;
  }
  return total;
}

}  // namespace kforge::store

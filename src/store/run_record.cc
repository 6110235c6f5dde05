#include "store/run_record.h"

namespace kforge::store {

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

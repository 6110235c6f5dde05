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

eval::EvalSettings eval_settings(const RunConfig& config) {
  eval::EvalSettings settings;
  settings.device = eval::parse_device(config.device).value_or(settings.device);
  settings.shrink = config.shrink;
  settings.precision = eval::parse_precision(config.precision).value_or(settings.precision);
  settings.numerics = eval::parse_numerics(config.numerics).value_or(settings.numerics);
  settings.input_sets = config.input_sets;
  settings.trials = config.trials;
  settings.warmup = config.warmup;
  settings.flush_l2 = config.flush_l2;
  settings.timeout_s = config.timeout_s;
  settings.allow_pytorch_only = config.allow_pytorch_only;
  return settings;
}

void set_eval_settings(RunConfig& config, const eval::EvalSettings& settings) {
  config.device = std::string(eval::device_name(settings.device));
  config.shrink = settings.shrink;
  config.precision = std::string(eval::precision_name(settings.precision));
  config.numerics = std::string(eval::to_string(settings.numerics));
  config.input_sets = settings.input_sets;
  config.trials = settings.trials;
  config.warmup = settings.warmup;
  config.flush_l2 = settings.flush_l2;
  config.timeout_s = settings.timeout_s;
  config.allow_pytorch_only = settings.allow_pytorch_only;
}

}  // namespace kforge::store

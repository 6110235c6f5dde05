#include "cli/run_flags.h"

#include "prompts/target_gpu.h"

namespace kforge::cli {

util::Result<store::RunConfig> read_run_config(const Options& options,
                                               const eval::EvalSettings& settings) {
  if (!prompts::find_target_gpu(options.target_gpu))
    return util::fail("failed to read --target-gpu: expected one of {}, got {}",
                      prompts::known_target_gpus(), options.target_gpu);
  if (options.analysis != "auto" && options.analysis != "always" && options.analysis != "never")
    return util::fail("failed to read --analysis: expected auto, always or never, got {}",
                      options.analysis);
  if (options.seeds < 1)
    return util::fail("failed to read --seeds: expected at least 1, got {}", options.seeds);
  if (options.repairs < 0)
    return util::fail("failed to read --repairs: expected 0 or more, got {}", options.repairs);
  store::RunConfig c;
  store::set_eval_settings(c, settings);
  c.target_gpu = options.target_gpu;
  c.seeds = options.seeds;
  c.repairs = options.repairs;
  c.budget_tokens = options.budget_tokens;
  c.max_candidates = options.max_candidates;
  c.time_limit_s = options.time_limit_s;
  c.analysis_threshold = options.analysis_threshold;
  c.analysis = options.analysis;
  c.guard = !options.no_guard;
  return c;
}

void apply_provider_strategy(llm::Api api, store::RunConfig& config) {
  if (api != llm::Api::kLibrary) return;
  config.seeds = 1;
  config.repairs = 0;
  config.analysis = "never";
  config.tuning = false;
}

}  // namespace kforge::cli

#pragma once

// The pipeline flags (--seeds, --repairs, --analysis, --target-gpu, budgets, ...) read into one
// store::RunConfig, for `kforge run` and `kforge suite run` alike.

#include "cli/options.h"
#include "eval/eval_settings.h"
#include "llm/provider_config.h"
#include "store/run_record.h"
#include "util/error.h"

namespace kforge::cli {

/// The configuration of a new run from the pipeline flags and `settings` (read_eval_settings);
/// task, provider and model are left to the caller. Errors name the flag ("failed to read
/// --seeds: expected at least 1, got 0").
util::Result<store::RunConfig> read_run_config(const Options& options,
                                               const eval::EvalSettings& settings);

/// The strategy a provider of kind `api` allows, applied to a new run's `config`: a kernel
/// library is not a model, it gives one answer per task with nothing to repair, analyse or tune.
void apply_provider_strategy(llm::Api api, store::RunConfig& config);

}  // namespace kforge::cli

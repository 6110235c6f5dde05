#pragma once

// The evaluation flags (--device, --trials, --timeout, ...) read into one eval::EvalSettings.

#include "cli/options.h"
#include "eval/eval_settings.h"
#include "util/error.h"

namespace kforge::cli {

/// Parses and validates the evaluation flags once; errors name the flag ("failed to read
/// --trials: expected at least 1, got 0", "failed to read --device: expected cuda or cpu, got
/// gpu"). Commands pass the result on by value and never read those Options fields again.
util::Result<eval::EvalSettings> read_eval_settings(const Options& options);

}  // namespace kforge::cli

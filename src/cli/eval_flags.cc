#include "cli/eval_flags.h"

namespace kforge::cli {

util::Result<eval::EvalSettings> read_eval_settings(const Options& options) {
  eval::EvalSettings settings;
  auto device = eval::parse_device(options.device);
  if (!device) return std::unexpected(device.error().context("failed to read --device"));
  settings.device = *device;
  auto precision = eval::parse_precision(options.precision);
  if (!precision) return std::unexpected(precision.error().context("failed to read --precision"));
  settings.precision = *precision;
  auto numerics = eval::parse_numerics(options.numerics);
  if (!numerics) return std::unexpected(numerics.error().context("failed to read --numerics"));
  settings.numerics = *numerics;
  settings.shrink = options.shrink;
  settings.input_sets = options.input_sets;
  settings.trials = options.trials;
  settings.warmup = options.warmup;
  settings.flush_l2 = !options.no_l2_flush;
  settings.timeout_s = options.timeout_s;
  settings.allow_pytorch_only = options.allow_pytorch_only;
  if (auto valid = settings.validate(); !valid) return std::unexpected(valid.error());
  return settings;
}

}  // namespace kforge::cli

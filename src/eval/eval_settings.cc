#include "eval/eval_settings.h"

#include <algorithm>
#include <cmath>

namespace kforge::eval {

std::string_view device_name(Device device) {
  return device == Device::kCpu ? "cpu" : "cuda";
}

std::string_view precision_name(Precision precision) {
  return precision == Precision::kKernelBench ? "kernelbench" : "calibrated";
}

util::Result<Device> parse_device(std::string_view text) {
  if (text == "cuda") return Device::kCuda;
  if (text == "cpu") return Device::kCpu;
  return util::fail("expected cuda or cpu, got {}", text);
}

util::Result<Precision> parse_precision(std::string_view text) {
  if (text == "calibrated") return Precision::kCalibrated;
  if (text == "kernelbench") return Precision::kKernelBench;
  return util::fail("expected calibrated or kernelbench, got {}", text);
}

std::string_view to_string(NumericsPolicy policy) {
  return policy == NumericsPolicy::kStrict ? "strict" : "tolerance";
}

util::Result<NumericsPolicy> parse_numerics(std::string_view text) {
  if (text == "tolerance") return NumericsPolicy::kTolerance;
  if (text == "strict") return NumericsPolicy::kStrict;
  return util::fail("expected tolerance or strict, got {}", text);
}

double EvalSettings::baseline_timeout_s() const {
  return std::max(timeout_s, min_baseline_timeout_s);
}

util::Result<void> EvalSettings::validate() const {
  if (input_sets < 1)
    return util::fail("failed to read --input-sets: expected at least 1, got {}", input_sets);
  if (trials < 1) return util::fail("failed to read --trials: expected at least 1, got {}", trials);
  if (warmup < 0) return util::fail("failed to read --warmup: expected 0 or more, got {}", warmup);
  if (!(timeout_s > 0) || !std::isfinite(timeout_s))
    return util::fail("failed to read --timeout: expected a positive number of seconds, got {}",
                      timeout_s);
  return {};
}

}  // namespace kforge::eval

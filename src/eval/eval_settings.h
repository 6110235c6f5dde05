#pragma once

// How candidates are evaluated: one struct, one default for each setting, parsed once.

#include <string_view>

#include "util/error.h"

namespace kforge::eval {

/// Which correctness verdict decides (docs/correctness.md): a different thing from the numerics
/// policy below.
enum class Precision { kCalibrated, kKernelBench };
/// What precision a candidate may compute in (docs/numerics.md): `kTolerance` (KernelBench's
/// semantics: whatever passes the correctness verdict) or `kStrict` (the reference's dtypes for
/// operands and accumulation; TF32 only where PyTorch's flags allow it for the reference).
enum class NumericsPolicy { kTolerance, kStrict };
enum class Device { kCuda, kCpu };

/// "cuda" / "cpu", as the worker protocol and the run record write it.
std::string_view device_name(Device device);
/// "calibrated" / "kernelbench".
std::string_view precision_name(Precision precision);
/// Errors read "expected cuda or cpu, got gpu" (the caller names the flag or field).
util::Result<Device> parse_device(std::string_view text);
util::Result<Precision> parse_precision(std::string_view text);
/// "tolerance" / "strict".
std::string_view to_string(NumericsPolicy policy);
/// Errors read "expected tolerance or strict, got loose".
util::Result<NumericsPolicy> parse_numerics(std::string_view text);

/// How candidates are checked and timed. Read once from the flags, the environment and the
/// config (cli/eval_flags.h) or from a run's record, validated there, then passed by value; the
/// defaults below are the only ones (Options, EvalRequest, BaselineRequest and store::RunConfig
/// take theirs from kDefaultEvalSettings).
struct EvalSettings {
  Device device = Device::kCuda;
  /// Shrink the task's shape constants (CPU checks).
  bool shrink = false;
  Precision precision = Precision::kCalibrated;
  NumericsPolicy numerics = NumericsPolicy::kTolerance;
  /// Input sets checked for correctness.
  int input_sets = 5;
  /// Timed trials, and warm-up runs before them.
  int trials = 100;
  int warmup = 10;
  bool flush_l2 = true;
  /// Wall-clock limit of one evaluation, seconds.
  double timeout_s = 300;
  /// Timing the reference compiles it with torch.compile, which can take minutes on its own: a
  /// baseline gets at least this limit.
  double min_baseline_timeout_s = 900;
  /// Limit of a task inspection or a candidate analysis within a run (a static look and at most
  /// one forward), seconds. `kforge analyze` takes --timeout instead.
  double inspect_timeout_s = 120;
  /// Accept candidates that launch no kernel of their own.
  bool allow_pytorch_only = false;

  /// The limit of a baseline request: timeout_s, at least min_baseline_timeout_s.
  double baseline_timeout_s() const;
  /// Errors name the flag of the first invalid value: "failed to read --trials: expected at
  /// least 1, got 0".
  util::Result<void> validate() const;
};

inline constexpr EvalSettings kDefaultEvalSettings{};

}  // namespace kforge::eval

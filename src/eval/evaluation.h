#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "eval/eval_settings.h"

namespace kforge::eval {

/// How a candidate ended. Mirrors the worker protocol's `status` (docs/protocol.md).
enum class Status {
  kOk,
  kSyntaxError,
  kCompileError,
  kRuntimeError,
  kWrongOutput,
  kTimeout,
  kCrashed,
  kRejected,
};

std::string_view to_string(Status status);
/// nullopt when `text` names no status.
std::optional<Status> status_from_string(std::string_view text);

/// What the pool asks a worker to do with one candidate (make one with evaluate_request).
struct EvalRequest {
  std::filesystem::path task;
  std::filesystem::path candidate;
  Device device = kDefaultEvalSettings.device;
  bool shrink = kDefaultEvalSettings.shrink;
  Precision precision = kDefaultEvalSettings.precision;
  NumericsPolicy numerics = kDefaultEvalSettings.numerics;
  int input_sets = kDefaultEvalSettings.input_sets;
  int trials = kDefaultEvalSettings.trials;
  int warmup = kDefaultEvalSettings.warmup;
  bool flush_l2 = kDefaultEvalSettings.flush_l2;
  double timeout_s = kDefaultEvalSettings.timeout_s;
  bool allow_pytorch_only = kDefaultEvalSettings.allow_pytorch_only;
  bool check_generalization = true;
  std::vector<std::string> baselines = {"eager"};
  /// Shape constants to override (name → value), applied before `shrink`'s own choices.
  std::map<std::string, long long> overrides;
  /// Profile a forward to count launches and list kernels.
  bool profile = true;
  /// A run's secret input seed: every candidate of one run is checked on the same input sets,
  /// so their errors compare, while no candidate can predict them (drawn from the OS when the
  /// run starts, never sent to a candidate's process). Unset: fresh sets per evaluation.
  std::optional<std::uint64_t> input_seed;
};

/// An evaluate request for `candidate` of `task` under `settings`; baselines: eager alone (the
/// caller adds more).
EvalRequest evaluate_request(const EvalSettings& settings, const std::filesystem::path& task,
                             const std::filesystem::path& candidate);
/// The request that scores one candidate on its own (`kforge eval`, each file of `kforge suite
/// eval`): evaluate_request, and on CUDA the three baselines (eager, torch.compile, CUDA graph)
/// timed beside it. Empty `task` and `candidate` make a template filled in per file.
EvalRequest scoring_request(const EvalSettings& settings, const std::filesystem::path& task,
                            const std::filesystem::path& candidate);

/// Latency statistics over the timed trials, in milliseconds.
struct LatencyStats {
  double median_ms = 0;
  double mean_ms = 0;
  double std_ms = 0;
  double min_ms = 0;
  int trials = 0;
};

struct Correctness {
  std::string precision;
  int input_sets = 0;
  bool pass_calibrated = false;
  bool pass_kernelbench = false;
  double max_abs_err = 0;
  double mean_abs_err = 0;
  double max_abs_err_fp64 = 0;
  double mean_abs_err_fp64 = 0;
  double reference_err_fp64 = 0;
  double tolerance = 0;
  std::optional<std::string> first_failure;
};

/// The precision the candidate computed in, as the worker saw it (numerics_report.py): evidence
/// from the candidate's own process explains, it does not prove (docs/trust.md "Limits").
struct NumericsReport {
  std::string policy;     // tolerance | strict
  std::string reference;  // the reference's narrowest floating dtype, e.g. "fp32"
  std::string summary;    // "fp16 operands, fp32 accumulate"; "" when nothing was seen
  bool lowered = false;   // lower than the reference's (rejected under strict)
  std::vector<std::string> evidence;
};

struct KernelSeen {
  std::string name;
  double calls_per_forward = 0;
  double time_share = 0;
  bool own = false;
};

/// The verdict on one candidate, parsed from the worker's reply.
struct Evaluation {
  Status status = Status::kCrashed;
  std::string error;
  std::optional<std::string> error_location;
  std::vector<std::string> reasons;
  std::optional<Correctness> correctness;
  std::optional<NumericsReport> numerics;
  std::string generalizes = "unknown";
  std::optional<LatencyStats> candidate;
  std::optional<LatencyStats> eager;
  std::optional<LatencyStats> compiled;
  std::optional<LatencyStats> cuda_graph;
  std::optional<double> score;
  std::optional<double> speedup_vs_best_baseline;
  std::optional<int> launches_per_forward;
  std::vector<KernelSeen> kernels;
  std::map<std::string, std::string> device;
  std::map<std::string, std::string> versions;
  std::map<std::string, double> shapes;
  double wall_s = 0;
  double timed_s = 0;
  /// Baselines that could not be timed, with the reason (e.g. torch.compile failed).
  std::map<std::string, std::string> baseline_errors;
  /// Remarks that do not change the verdict (e.g. the candidate changed global numerics).
  std::vector<std::string> notes;
  /// The last lines the candidate printed, and how many bytes it printed in all.
  std::string output_tail;
  long long output_bytes = 0;
  /// The worker's reply as it came, kept so the run store can write it verbatim.
  std::string raw_json;
};

}  // namespace kforge::eval

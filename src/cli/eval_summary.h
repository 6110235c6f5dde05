#pragma once

// The readable summaries that `kforge eval` and `kforge baseline` print (without --json).

#include <filesystem>
#include <optional>
#include <string>

#include "eval/evaluation.h"
#include "eval/protocol_codec.h"
#include "eval/worker_pool.h"
#include "util/error.h"

namespace kforge::cli {

/// What a summary is about besides the result itself.
struct SummaryContext {
  std::filesystem::path task;
  std::filesystem::path candidate;
  eval::Device device = eval::Device::kCuda;
  /// The worker's `hello` (device and versions); nullopt when it is not known.
  std::optional<eval::WorkerInfo> worker;
};

/// Status, error text, both correctness verdicts with their errors, the timing table
/// (candidate / eager / compile / cuda_graph: median, mean, std, min), score and speed-up vs the
/// best baseline (never in CPU mode), launches per forward, kernels, device, versions, shapes.
std::string format_evaluation(const eval::Evaluation& evaluation, const SummaryContext& context);

/// The baseline timings, the best of them and its ratio to eager (not in CPU mode), device,
/// versions and shapes.
std::string format_baseline(const eval::BaselineResult& baseline, const SummaryContext& context);

/// Ends `kforge <command>` (eval or baseline) on `error`: prints "kforge <command>: <message>" on
/// stderr and, with `json`, `{"error": …, "kforge": …}` on stdout; returns the exit code of the
/// error's kind (also written into `output`).
int report_error(std::string_view command, bool json, eval::OutputContext& output,
                 const util::Error& error);

}  // namespace kforge::cli

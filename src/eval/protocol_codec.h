#pragma once

// The worker protocol's edge (docs/protocol.md): request structs become JSON lines, reply lines
// become structs. nlohmann::json stays behind this header.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "eval/evaluation.h"
#include "eval/worker_pool.h"
#include "util/error.h"

namespace kforge::eval {

/// One reply line split into its envelope: `{"id", "ok", "result" | "error", "poisoned"}`.
struct Reply {
  /// nullopt when the worker could not read the request's id (it answers `"id": null`).
  std::optional<std::int64_t> id;
  bool ok = false;
  /// The worker's message when `ok` is false.
  std::string error;
  /// The `result` object as compact JSON text when `ok` is true.
  std::string result_json;
  /// The worker says its CUDA context is unusable: answer, then restart it.
  bool poisoned = false;
};

std::string encode_hello_request(std::int64_t id);
std::string encode_shutdown_request(std::int64_t id);
std::string encode_evaluate_request(std::int64_t id, const EvalRequest& request);
std::string encode_baseline_request(std::int64_t id, const BaselineRequest& request);
std::string encode_inspect_task_request(std::int64_t id, const InspectTaskRequest& request);
std::string encode_analyze_request(std::int64_t id, const AnalyzeRequest& request);

/// Parses one reply line. Malformed JSON gives a located error:
/// "failed to parse worker reply: worker reply:1:3: syntax error …" with the line and a caret.
util::Result<Reply> decode_reply(std::string_view line);

/// Parse a reply's `result` object (Reply::result_json). A field of the wrong type or an unknown
/// status gives a located error naming the field ("correctness.max_abs_err: expected a number or
/// \"nan\"/\"inf\"/\"-inf\", got true"); absent optional fields keep their defaults.
util::Result<Evaluation> decode_evaluation(std::string_view result_json);
util::Result<WorkerInfo> decode_worker_info(std::string_view result_json);
util::Result<BaselineResult> decode_baseline(std::string_view result_json);

/// What kforge adds to a worker result in `--json` output, under the key "kforge".
struct OutputContext {
  std::string kforge_version;
  std::filesystem::path task;
  std::filesystem::path candidate;  // empty for baseline
  Device device = Device::kCuda;
  std::optional<WorkerInfo> worker;
  /// `kforge eval`'s verdict: the candidate is correct (status ok).
  bool correct = false;
  int exit_code = 0;
};

/// The evaluation as one JSON object: the worker's result as it came (or, for verdicts the pool
/// made itself such as a crash or time-out, built from the struct), plus `"kforge": {…}`. In CPU
/// mode `score` and `speedup_vs_best_baseline` are forced to null.
std::string encode_evaluation_output(const Evaluation& evaluation, const OutputContext& context);
/// The same for `kforge baseline`.
std::string encode_baseline_output(const BaselineResult& baseline, const OutputContext& context);
/// `{"error": message, "kforge": {…}}` for a command that failed before it had a result.
std::string encode_error_output(std::string_view message, const OutputContext& context);

}  // namespace kforge::eval

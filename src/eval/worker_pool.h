#pragma once

// CONTRACT (kept stable for src/pipeline and src/cli): the pool's public face. The implementation
// (worker_pool.cc, process launcher, protocol codec) belongs to src/eval.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eval/evaluation.h"
#include "util/error.h"

namespace kforge::eval {

/// The worker's answer to `hello`: versions and the device it drives.
struct WorkerInfo {
  std::string worker_version;
  std::string python;
  std::string torch;
  std::string triton;
  std::optional<std::string> cuda;
  std::optional<std::string> device_name;
  int sm_count = 0;
  double memory_gb = 0;
  bool interpret = false;
  std::string numpy;
  /// Compute capability as the worker reports it, e.g. "9.0".
  std::optional<std::string> capability;
  long pid = 0;
  /// The `hello` result as it came.
  std::string raw_json;
};

/// Timings of the reference alone (`kforge baseline`).
struct BaselineResult {
  std::optional<LatencyStats> eager;
  std::optional<LatencyStats> compiled;
  std::optional<LatencyStats> cuda_graph;
  std::map<std::string, std::string> device;
  std::map<std::string, std::string> versions;
  std::map<std::string, double> shapes;
  /// Baselines that could not be timed, with the reason (e.g. torch.compile failed).
  std::map<std::string, std::string> errors;
  double wall_s = 0;
  double timed_s = 0;
  std::string raw_json;
};

/// What the pool asks a worker to time: the task's reference alone (make one with
/// baseline_request).
struct BaselineRequest {
  std::filesystem::path task;
  Device device = kDefaultEvalSettings.device;
  bool shrink = kDefaultEvalSettings.shrink;
  int trials = kDefaultEvalSettings.trials;
  int warmup = kDefaultEvalSettings.warmup;
  bool flush_l2 = kDefaultEvalSettings.flush_l2;
  std::vector<std::string> baselines = {"eager", "compile", "cuda_graph"};
  double timeout_s = kDefaultEvalSettings.baseline_timeout_s();
  std::map<std::string, long long> overrides;
};

/// A baseline request for `task` under `settings` (eager, torch.compile and CUDA graph).
BaselineRequest baseline_request(const EvalSettings& settings, const std::filesystem::path& task);

/// `inspect_task`: what a task computes, as facts (docs/protocol.md, TaskInfo). The reply's
/// `result` is parsed by task::parse_task_info (src/task owns the TaskInfo type).
struct InspectTaskRequest {
  std::filesystem::path task;
  /// At the shrunk shapes: enough when only the structure matters, and a CPU forward.
  bool shrink = false;
  double timeout_s = kDefaultEvalSettings.inspect_timeout_s;
};

/// `analyze`: the facts the worker extracts from a candidate (syntax tree, and with `runtime` one
/// profiled forward). The reply's `result` is parsed by analysis::parse_facts.
struct AnalyzeRequest {
  std::filesystem::path candidate;
  /// The task whose inputs a runtime analysis runs the candidate on; nullopt = static only.
  std::optional<std::filesystem::path> task;
  Device device = Device::kCuda;
  bool shrink = false;
  bool runtime = false;
  double timeout_s = kDefaultEvalSettings.inspect_timeout_s;
};

/// What the pool needs to start workers.
struct PoolOptions {
  /// Python interpreter that has torch and triton (KFORGE_PYTHON).
  std::string python = "python3";
  /// Folder holding the kforge_worker package (put on PYTHONPATH).
  std::filesystem::path worker_dir;
  /// GPU indices, one worker each; empty = one worker on the default device (or the CPU).
  std::vector<int> gpus;
  Device device = Device::kCuda;
  /// Optional command prefix, e.g. {"ssh", "gpu-host"} or {"srun", "--gres=gpu:1"}.
  std::vector<std::string> launcher;
  /// Added to each request's own limit before the pool gives up on a silent worker.
  double grace_s = 30;
  /// Python module to run (`python -m <module>`); tests point it at a fake worker.
  std::string module = "kforge_worker";
  /// How long a starting worker may take to answer `hello` (importing torch can be slow).
  double start_timeout_s = 180;
  /// Consecutive failed starts of one worker slot before the pool gives up on it; later calls
  /// get the last start error at once.
  int start_attempts = 2;
  /// After `shutdown`, how long to wait for a worker to exit before killing it.
  double shutdown_grace_s = 5;
  /// Append each worker's stderr to <log_dir>/worker-<n>.log; empty = no log file.
  std::filesystem::path log_dir;
  /// Copy each worker's stderr to kforge's stderr, prefixed "[worker <n>] ".
  bool forward_stderr = false;
  /// How many evaluations the caller will ask of each worker, when it knows (`kforge eval`: 1;
  /// baseline, analyze, doctor: 0): a worker starts no more candidate processes ahead than it
  /// will use (KFORGE_EVALUATIONS, worker/kforge_worker/warm_pool.py). nullopt: open-ended.
  std::optional<int> evaluations;
};

/// The one client of the worker protocol (docs/protocol.md): one request type per message, and
/// no other file builds protocol JSON (protocol_codec.cc does, for this pool).
/// A pool of kforge-worker processes, one per GPU. Thread-safe: several threads may call
/// evaluate() at once; each call waits for a free worker. A worker that dies, hangs past its
/// limit or reports a poisoned CUDA context is killed and restarted, and the call that hit it
/// gets an Evaluation with status crashed or timeout rather than an error.
class WorkerPool {
 public:
  virtual ~WorkerPool() = default;
  virtual util::Result<WorkerInfo> hello() = 0;
  /// Errors only when no worker can be started or the request is malformed; a failing candidate
  /// is an Evaluation with a non-ok status.
  virtual util::Result<Evaluation> evaluate(const EvalRequest& request) = 0;
  virtual util::Result<BaselineResult> baseline(const BaselineRequest& request) = 0;
  /// The `result` object of an `inspect_task` reply as JSON text (task::inspect_task parses it).
  /// Errors are the worker's own ("failed to load task …") or the pool's.
  virtual util::Result<std::string> inspect_task(const InspectTaskRequest& request) = 0;
  /// The `result` object of an `analyze` reply as JSON text (analysis::analyze_candidate parses
  /// it).
  virtual util::Result<std::string> analyze(const AnalyzeRequest& request) = 0;
  virtual std::size_t size() const = 0;
};

class ProcessLauncher;

/// The pool with real worker processes (fork/exec, see process_launcher.h). Starts nothing yet:
/// each worker starts on first use. The destructor shuts the workers down.
std::unique_ptr<WorkerPool> make_worker_pool(const PoolOptions& options);
/// The same over any launcher (tests pass a fake).
std::unique_ptr<WorkerPool> make_worker_pool(const PoolOptions& options,
                                             std::shared_ptr<ProcessLauncher> launcher);

}  // namespace kforge::eval

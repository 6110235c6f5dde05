#pragma once

// Turning command-line options into a worker pool configuration; shared by the subcommands that
// start workers (eval, baseline, run, analyze, doctor).

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options.h"
#include "eval/evaluation.h"
#include "eval/worker_pool.h"
#include "util/error.h"

namespace kforge::cli {

/// Splits a launcher prefix such as `ssh -p 2222 host` or `srun --gres=gpu:1` into words; single
/// and double quotes group words. Errors on an unterminated quote.
util::Result<std::vector<std::string>> split_command(std::string_view text);

/// "cuda" or "cpu"; errors name the flag: "failed to read --device: expected cuda or cpu, got
/// gpu".
util::Result<eval::Device> parse_device(std::string_view text);

/// Errors (bad input) when --gpus lists a negative index, or, on cuda, one index twice: two
/// workers on one GPU time-slice it, and each one's timings (and the wall-clock cross-check of
/// the candidate's own) take in the other's work, so honest candidates read slower or are
/// rejected (2026-11-27, four workers on one H100). The CPU may repeat indices (workers only).
util::Result<void> check_gpus(eval::Device device, const std::vector<int>& gpus);

/// Finds Python and the worker (eval/worker_locator.h) and fills the pool options: device, GPUs
/// (at most `max_workers` of them; 0 = all; check_gpus), launcher, and forwarding of worker
/// stderr with -v. Errors are environment problems (exit code 3), but for a bad --gpus list (bad
/// input).
util::Result<eval::PoolOptions> make_pool_options(const Options& options, std::size_t max_workers);

/// How start_worker_pool starts a pool.
struct PoolStart {
  /// At most this many workers, one per GPU of --gpus; 0 = one per GPU given.
  std::size_t max_workers = 1;
  /// Ask a worker `hello` before returning: StartedPool::info is filled, and a worker that cannot
  /// start is an error here. False leaves the workers to start on first use (`info` empty), for
  /// commands that put their own context on that error (analyze, run).
  bool hello = true;
  /// Evaluations the command will ask for, when it knows (eval::PoolOptions::evaluations).
  std::optional<int> evaluations;
};

/// A pool the flags describe and, unless PoolStart::hello was false, the worker's `hello` answer.
struct StartedPool {
  std::unique_ptr<eval::WorkerPool> pool;
  eval::WorkerInfo info;
};

/// Makes the pool the flags describe (make_pool_options) as `start` says; by default one worker
/// that has answered `hello`. Any error is of kind environment (exit 3). Whether the device is
/// usable is the caller's check (require_cuda_device).
util::Result<StartedPool> start_worker_pool(const Options& options, PoolStart start = {});

/// Errors (kind environment) when `device` is cuda but the worker's torch sees no CUDA device;
/// `hint` ends the message (e.g. "use --device cpu").
util::Result<void> require_cuda_device(eval::Device device, const eval::WorkerInfo& info,
                                       std::string_view hint);

/// Checks that `path` names a readable regular file: "failed to read task tasks/x.py: no such
/// file". `what` is "task" or "candidate".
util::Result<void> check_input_file(std::string_view what, const std::string& path);

}  // namespace kforge::cli

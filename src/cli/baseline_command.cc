// `kforge baseline`: time the task's reference (eager, torch.compile, CUDA graph) in one worker.

#include <fmt/core.h>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/eval_summary.h"
#include "cli/pool_config.h"
#include "eval/protocol_codec.h"
#include "eval/worker_pool.h"

namespace kforge::cli {

namespace {

util::Result<eval::BaselineRequest> make_baseline_request(const Options& options) {
  if (auto task = check_input_file("task", options.task); !task)
    return std::unexpected(task.error());
  auto settings = read_eval_settings(options);
  if (!settings) return std::unexpected(settings.error());
  if (settings->device == eval::Device::kCpu)
    return util::fail(
        "failed to time the baseline of {}: CPU mode has no timings (run it with --device cuda on "
        "a GPU machine)",
        options.task);
  if (auto launcher = split_command(options.launcher); !launcher)
    return std::unexpected(launcher.error());
  // torch.compile can take minutes on its own: the baseline gets at least its own minimum limit.
  eval::BaselineRequest request = eval::baseline_request(*settings, options.task);
  return request;
}

}  // namespace

int run_baseline_command(const Options& options) {
  eval::OutputContext output;
  output.kforge_version = KFORGE_VERSION;
  output.task = options.task;
  output.device = eval::parse_device(options.device).value_or(eval::kDefaultEvalSettings.device);
  auto give_up = [&](const util::Error& error) {
    return report_error("baseline", options.json, output, error);
  };

  auto request = make_baseline_request(options);
  if (!request) return give_up(request.error());
  auto started = start_worker_pool(options, {.evaluations = 0});
  if (!started) return give_up(started.error());
  output.worker = started->info;
  if (auto cuda = require_cuda_device(request->device, started->info, "use --device cpu"); !cuda)
    return give_up(cuda.error());
  auto& pool = started->pool;

  auto baseline = pool->baseline(*request);
  if (!baseline) return give_up(baseline.error());
  output.exit_code = kExitOk;
  if (options.json)
    fmt::print("{}\n", eval::encode_baseline_output(*baseline, output));
  else
    fmt::print("{}", format_baseline(*baseline, {.task = options.task,
                                                 .device = request->device,
                                                 .worker = started->info}));
  return kExitOk;
}

}  // namespace kforge::cli

// `kforge eval`: check and time one candidate against its task through one worker.

#include <fmt/core.h>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/eval_summary.h"
#include "cli/pool_config.h"
#include "eval/protocol_codec.h"
#include "eval/worker_pool.h"
#include "util/printable.h"

namespace kforge::cli {

namespace {

util::Result<eval::EvalRequest> make_eval_request(const Options& options) {
  if (auto task = check_input_file("task", options.task); !task)
    return std::unexpected(task.error());
  if (auto candidate = check_input_file("candidate", options.candidate); !candidate)
    return std::unexpected(candidate.error());
  auto settings = read_eval_settings(options);
  if (!settings) return std::unexpected(settings.error());
  if (auto launcher = split_command(options.launcher); !launcher)
    return std::unexpected(launcher.error());
  return eval::scoring_request(*settings, options.task, options.candidate);
}

}  // namespace

int run_eval_command(const Options& options) {
  eval::OutputContext output;
  output.kforge_version = KFORGE_VERSION;
  output.task = options.task;
  output.candidate = options.candidate;
  output.device = eval::parse_device(options.device).value_or(eval::kDefaultEvalSettings.device);
  auto give_up = [&](const util::Error& error) {
    return report_error("eval", options.json, output, error);
  };

  auto request = make_eval_request(options);
  if (!request) return give_up(request.error());
  auto started = start_worker_pool(options, {.evaluations = 1});
  if (!started) return give_up(started.error());
  output.worker = started->info;
  if (auto cuda = require_cuda_device(request->device, started->info,
                                      "use --device cpu for a correctness check");
      !cuda)
    return give_up(cuda.error());
  auto& pool = started->pool;

  auto evaluation = pool->evaluate(*request);
  if (!evaluation) return give_up(evaluation.error());
  output.correct = evaluation->status == eval::Status::kOk;
  output.exit_code = output.correct ? kExitOk : kExitFailed;
  if (options.json) {
    fmt::print("{}\n", eval::encode_evaluation_output(*evaluation, output));
  } else {
    fmt::print("{}", util::printable(format_evaluation(*evaluation, {.task = options.task,
                                                                     .candidate = options.candidate,
                                                                     .device = request->device,
                                                                     .worker = started->info})));
  }
  return output.exit_code;
}

}  // namespace kforge::cli

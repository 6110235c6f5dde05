// `kforge analyze C.py [--task T.py] [--runtime] [--json]`: what a candidate really does, printed
// like compiler diagnostics (src/analysis). Exit 1 when any diagnostic is an error.

#include <fmt/core.h>

#include <fstream>
#include <sstream>

#include "analysis/analysis.h"
#include "analysis/diagnostic_format.h"
#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/pool_config.h"
#include "util/file_text.h"

namespace kforge::cli {

int run_analyze_command(const Options& options) {
  auto give_up = [&](int code, const util::Error& error) {
    fmt::print(stderr, "kforge analyze: {}\n", error.message);
    return code;
  };
  if (options.path.empty())
    return give_up(kExitUsage, util::Error{"failed to analyze: no candidate file given"});
  if (auto ok = check_input_file("candidate", options.path); !ok)
    return give_up(kExitUsage, ok.error());
  analysis::AnalyzeOptions analyze;
  if (!options.task.empty()) {
    if (auto ok = check_input_file("task", options.task); !ok)
      return give_up(kExitUsage, ok.error());
    analyze.task = options.task;
  }
  auto settings = read_eval_settings(options);
  if (!settings) return give_up(kExitUsage, settings.error());
  analyze.device = settings->device;
  analyze.runtime = options.runtime;
  if (analyze.runtime && !analyze.task)
    return give_up(kExitUsage, util::Error{"failed to analyze: --runtime needs --task (the "
                                           "inputs to run the candidate on)"});
  analyze.shrink = settings->shrink;
  analyze.timeout_s = settings->timeout_s;

  // The worker starts on first use, so that a failed start reads "failed to analyze C.py: ...".
  auto started = start_worker_pool(options, {.hello = false, .evaluations = 0});
  if (!started) return give_up(kExitEnvironment, started.error());
  auto report = analysis::analyze_candidate(*started->pool, options.path, analyze);
  if (!report) {
    return give_up(exit_code_for(report.error()), report.error());
  }
  if (options.json) {
    fmt::print("{}\n", analysis::report_to_json(*report));
  } else {
    std::string source = util::read_file(options.path).value_or("");
    for (const analysis::Diagnostic& diagnostic : report->diagnostics)
      fmt::print("{}\n", analysis::format_diagnostic(diagnostic, source));
    fmt::print("{}\n", analysis::format_summary(*report));
  }
  return report->has_errors() ? kExitFailed : kExitOk;
}

}  // namespace kforge::cli

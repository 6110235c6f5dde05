#pragma once

#include "cli/options.h"

namespace kforge::cli {

/// Exit codes shared by all subcommands.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailed = 1,       // the command ran and the answer is "no" (e.g. candidate incorrect)
  kExitUsage = 2,        // bad flags or input files
  kExitEnvironment = 3,  // worker, endpoint or device unavailable
};

// One function per subcommand, each in <name>_command.cc.
int run_eval_command(const Options& options);
int run_baseline_command(const Options& options);
int run_run_command(const Options& options);
int run_analyze_command(const Options& options);
int run_report_command(const Options& options);
int run_rank_command(const Options& options);
int run_library_command(const Options& options);
int run_doctor_command(const Options& options);
int run_suite_command(const Options& options);

}  // namespace kforge::cli

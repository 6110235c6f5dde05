#pragma once

#include "cli/exit_code.h"
#include "cli/options.h"

namespace kforge::cli {

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

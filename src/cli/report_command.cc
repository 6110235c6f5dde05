#include <fmt/core.h>

#include "cli/commands.h"

namespace kforge::cli {

// Placeholder until its owner lands it.
int run_report_command(const Options&) {
  fmt::print(stderr, "kforge report: not built yet\n");
  return kExitEnvironment;
}

}  // namespace kforge::cli

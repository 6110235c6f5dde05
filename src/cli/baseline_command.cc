#include <fmt/core.h>

#include "cli/commands.h"

namespace kforge::cli {

// Placeholder until its owner lands it.
int run_baseline_command(const Options&) {
  fmt::print(stderr, "kforge baseline: not built yet\n");
  return kExitEnvironment;
}

}  // namespace kforge::cli

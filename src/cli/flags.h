#pragma once

#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/options.h"

namespace kforge::cli {

/// One subcommand: its name, one line of help and the function that runs it.
struct Subcommand {
  std::string_view name;
  std::string_view help;
  int (*run)(const Options&);
};

/// The subcommand table (ninja's kTools).
const std::vector<Subcommand>& subcommands();

/// Registers every flag of the flag table on `app` and its subcommands; each flag declares its
/// environment variable and the subcommands that take it.
void register_flags(CLI::App& app, Options& options);

}  // namespace kforge::cli

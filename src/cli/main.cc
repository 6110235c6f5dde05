// kforge: parse → run → exit code. Business logic lives in the components.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>

#include "cli/commands.h"
#include "cli/flags.h"

int main(int argc, char** argv) {
  using namespace kforge::cli;
  // Not dumpable: another process of the same user (a candidate where no pid namespace is
  // available, docs/trust.md) can neither read /proc/<kforge>/environ or mem (API keys) nor
  // ptrace kforge. Children that exec are dumpable again, as they must be for their own tools.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  CLI::App app{"kforge: language-model-written GPU kernels, verified and measured"};
  app.set_version_flag("--version", KFORGE_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // global flags may follow the subcommand
  for (const Subcommand& command : subcommands())
    app.add_subcommand(std::string(command.name), std::string(command.help));
  Options options;
  register_flags(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? kExitOk : kExitUsage;
  }
  // The config file may hold an API key: the workers hide the file KFORGE_CONFIG names from
  // candidate code (worker/kforge_worker/confinement.py), so name the one given by --config.
  if (!options.config.empty()) {
    std::error_code error;
    std::filesystem::path config = std::filesystem::absolute(options.config, error);
    if (!error) ::setenv("KFORGE_CONFIG", config.c_str(), 1);
  }
  // Logs go to stderr: stdout carries the command's answer (one JSON object with --json).
  spdlog::set_default_logger(spdlog::stderr_color_mt("kforge"));
  spdlog::set_level(options.verbose ? spdlog::level::debug : spdlog::level::info);
  spdlog::set_pattern("%v");
  for (const Subcommand& command : subcommands())
    if (app.got_subcommand(std::string(command.name))) return command.run(options);
  return kExitUsage;
}

#pragma once

// Exit codes, and the one table that maps an error's kind to its exit code.

#include <string_view>

#include "util/error.h"

namespace kforge::cli {

/// Exit codes shared by all subcommands.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailed = 1,       // the command ran and the answer is "no" (e.g. candidate incorrect)
  kExitUsage = 2,        // bad flags or input files
  kExitEnvironment = 3,  // worker, endpoint or device unavailable
};

/// The exit code for an error of kind `kind`: bad input 2, environment 3, a candidate, model or
/// internal fault 1 (the work ran and failed).
ExitCode exit_code_for(util::ErrorKind kind);

inline ExitCode exit_code_for(const util::Error& error) {
  return exit_code_for(error.kind);
}

/// Prints "kforge `command`: <message>" to stderr and returns `code`: how a subcommand gives up.
int exit_with_error(std::string_view command, int code, const util::Error& error);

}  // namespace kforge::cli

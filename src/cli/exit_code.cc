#include "cli/exit_code.h"

#include <fmt/core.h>

#include <cstdio>
#include <utility>

namespace kforge::cli {

ExitCode exit_code_for(util::ErrorKind kind) {
  using util::ErrorKind;
  static constexpr std::pair<ErrorKind, ExitCode> kTable[] = {
      {ErrorKind::kBadInput, kExitUsage},        {ErrorKind::kEnvironment, kExitEnvironment},
      {ErrorKind::kCandidateFault, kExitFailed}, {ErrorKind::kModelFault, kExitFailed},
      {ErrorKind::kInternal, kExitFailed},
  };
  for (const auto& [k, code] : kTable)
    if (k == kind) return code;
  return kExitFailed;
}

int exit_with_error(std::string_view command, int code, const util::Error& error) {
  fmt::print(stderr, "kforge {}: {}\n", command, error.message);
  return code;
}

}  // namespace kforge::cli

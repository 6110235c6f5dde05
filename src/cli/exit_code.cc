#include "cli/exit_code.h"

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

}  // namespace kforge::cli

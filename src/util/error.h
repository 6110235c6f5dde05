#pragma once

#include <fmt/format.h>

#include <expected>
#include <string>
#include <utility>

namespace kforge::util {

/// What kind of failure an error reports. It travels with the error, so that `main` picks the exit
/// code from the kind (cli/exit_code.h, one table) and never from the message's text.
enum class ErrorKind {
  /// A flag, file or request the user gave is wrong (the default: most errors are parse errors).
  kBadInput,
  /// Something kforge needs is unavailable: a worker that cannot start, an endpoint, a device, a
  /// folder it cannot write.
  kEnvironment,
  /// The work ran and failed on what it was given: the worker died or timed out on a candidate.
  kCandidateFault,
  /// The model endpoint failed or answered with something unusable.
  kModelFault,
  /// A broken invariant: a reply that breaks the worker protocol, an unreachable branch.
  kInternal,
};

/// An error as a value: one message of the form "failed to <verb> <object>: <cause>" and its
/// kind. Errors are returned, not thrown; `main` turns their kinds into exit codes.
struct Error {
  std::string message;
  ErrorKind kind = ErrorKind::kBadInput;

  /// Wraps this error as the cause of a higher-level failure, keeping its kind:
  /// `Error{"no such file"}.context("failed to load task {}", path)` gives
  /// "failed to load task t.py: no such file".
  template <typename... Args>
  Error context(fmt::format_string<Args...> format, Args&&... args) const {
    return Error{fmt::format(format, std::forward<Args>(args)...) + ": " + message, kind};
  }

  /// The same message with another kind.
  Error as(ErrorKind new_kind) const { return Error{message, new_kind}; }
};

template <typename T>
using Result = std::expected<T, Error>;

/// Builds an unexpected Error (kind kBadInput) from a format string:
/// `return fail("failed to open {}", path);`
template <typename... Args>
std::unexpected<Error> fail(fmt::format_string<Args...> format, Args&&... args) {
  return std::unexpected(Error{fmt::format(format, std::forward<Args>(args)...)});
}

/// The same with a kind: `return fail(ErrorKind::kEnvironment, "failed to start worker: {}", why);`
template <typename... Args>
std::unexpected<Error> fail(ErrorKind kind, fmt::format_string<Args...> format, Args&&... args) {
  return std::unexpected(Error{fmt::format(format, std::forward<Args>(args)...), kind});
}

}  // namespace kforge::util

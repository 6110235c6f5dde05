#pragma once

#include <expected>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace kforge::util {

/// An error as a value: one message of the form "failed to <verb> <object>: <cause>".
/// Errors are returned, not thrown; `main` turns them into exit codes.
struct Error {
  std::string message;

  /// Wraps this error as the cause of a higher-level failure:
  /// `Error{"no such file"}.context("failed to load task {}", path)` gives
  /// "failed to load task t.py: no such file".
  template <typename... Args>
  Error context(fmt::format_string<Args...> format, Args&&... args) const {
    return Error{fmt::format(format, std::forward<Args>(args)...) + ": " + message};
  }
};

template <typename T>
using Result = std::expected<T, Error>;

/// Builds an unexpected Error from a format string: `return fail("failed to open {}", path);`
template <typename... Args>
std::unexpected<Error> fail(fmt::format_string<Args...> format, Args&&... args) {
  return std::unexpected(Error{fmt::format(format, std::forward<Args>(args)...)});
}

}  // namespace kforge::util

#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kforge::util {

/// A position in a text: 1-based line and column. Column 0 means "the whole line".
struct SourceLocation {
  std::string file;
  std::size_t line = 0;
  std::size_t column = 0;
};

/// Formats a parse error the way compilers do, for task files, candidates, model replies and
/// worker JSON alike:
///
///     file:line:col: message
///         the offending line
///              ^
///
/// `text` is the whole source; when `location.line` is 0 or past the end, only the first line is
/// printed.
std::string format_located_error(const SourceLocation& location, std::string_view text,
                                 std::string_view message);

/// The location of byte `offset` in `text` (for parsers that report byte offsets, such as
/// nlohmann::json).
SourceLocation location_of_offset(std::string file, std::string_view text, std::size_t offset);

}  // namespace kforge::util

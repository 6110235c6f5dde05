#include "util/source_location.h"

#include <fmt/format.h>

namespace kforge::util {

namespace {

std::string_view line_at(std::string_view text, std::size_t line) {
  std::size_t start = 0;
  for (std::size_t current = 1; current < line; ++current) {
    std::size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) return {};
    start = newline + 1;
  }
  std::size_t end = text.find('\n', start);
  return text.substr(start, end == std::string_view::npos ? text.size() - start : end - start);
}

}  // namespace

std::string format_located_error(const SourceLocation& location, std::string_view text,
                                 std::string_view message) {
  std::string out;
  if (location.line == 0) {
    out = fmt::format("{}: {}", location.file, message);
    return out;
  }
  out = location.column == 0
            ? fmt::format("{}:{}: {}", location.file, location.line, message)
            : fmt::format("{}:{}:{}: {}", location.file, location.line, location.column, message);
  std::string_view source_line = line_at(text, location.line);
  if (source_line.empty()) return out;
  out += fmt::format("\n    {}", source_line);
  if (location.column > 0) {
    // Tabs keep their width so the caret lines up under the offending character.
    std::string pad;
    for (std::size_t i = 0; i + 1 < location.column && i < source_line.size(); ++i)
      pad += source_line[i] == '\t' ? '\t' : ' ';
    out += fmt::format("\n    {}^", pad);
  }
  return out;
}

SourceLocation location_of_offset(std::string file, std::string_view text, std::size_t offset) {
  SourceLocation location{std::move(file), 1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++location.line;
      location.column = 1;
    } else {
      ++location.column;
    }
  }
  return location;
}

}  // namespace kforge::util

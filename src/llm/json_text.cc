#include "llm/json_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "util/source_location.h"

namespace kforge::llm {

util::Result<nlohmann::json> parse_json_text(std::string_view text, std::string_view what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    std::string message = error.what();
    // nlohmann says "[json.exception.parse_error.101] parse error at line 1, column 25: …";
    // keep only the cause, the location is printed our way.
    if (std::size_t column = message.find("column "); column != std::string::npos) {
      if (std::size_t colon = message.find(": ", column); colon != std::string::npos)
        message = message.substr(colon + 2);
    } else if (std::size_t bracket = message.find("] "); bracket != std::string::npos) {
      message = message.substr(bracket + 2);
    }
    std::size_t offset = std::min(error.byte > 0 ? error.byte - 1 : 0, text.size());
    util::SourceLocation location = util::location_of_offset(std::string(what), text, offset);
    // Reply bodies are often one long line: show a window of it around the error.
    std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    line_start = line_start == std::string_view::npos || offset == 0 ? 0 : line_start + 1;
    std::size_t line_end = text.find('\n', offset);
    if (line_end == std::string_view::npos) line_end = text.size();
    constexpr std::size_t kHalfWindow = 60;
    if (line_end - line_start <= 2 * kHalfWindow)
      return std::unexpected(util::Error{util::format_located_error(location, text, message)});
    std::size_t from = std::max(line_start, offset > kHalfWindow ? offset - kHalfWindow : 0);
    std::size_t to = std::min(line_end, offset + kHalfWindow);
    std::string shown(location.line - 1, '\n');
    shown += text.substr(from, to - from);
    util::SourceLocation shown_at = location;
    shown_at.column = offset - from + 1;
    std::string out = util::format_located_error(shown_at, shown, message);
    // The header keeps the real column.
    std::string real_header =
        fmt::format("{}:{}:{}:", location.file, location.line, location.column);
    std::string shown_header =
        fmt::format("{}:{}:{}:", location.file, location.line, shown_at.column);
    if (out.starts_with(shown_header)) out.replace(0, shown_header.size(), real_header);
    return std::unexpected(util::Error{out});
  }
}

}  // namespace kforge::llm

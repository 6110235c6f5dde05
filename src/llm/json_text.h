#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "util/error.h"

namespace kforge::llm {

/// Parses JSON text; on failure the error names `what` and the place, compiler style:
/// "what:1:25: syntax error while parsing value - unexpected end of input" plus the line and a
/// caret (util::format_located_error).
util::Result<nlohmann::json> parse_json_text(std::string_view text, std::string_view what);

}  // namespace kforge::llm

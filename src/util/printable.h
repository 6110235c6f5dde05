#pragma once

// Text a candidate controls (its errors, its output), made safe for a terminal and a Markdown
// file: a carriage return or an ANSI escape in it must not redraw or hide what kforge printed.

#include <string>
#include <string_view>

namespace kforge::util {

/// `text` with every control character other than newline and tab written as a visible escape
/// ("\r" -> "\x0d", ESC -> "\x1b"); everything else, UTF-8 included, as it is.
std::string printable(std::string_view text);

}  // namespace kforge::util

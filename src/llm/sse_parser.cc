#include "llm/sse_parser.h"

namespace kforge::llm {

std::vector<SseEvent> SseParser::feed(std::string_view chunk) {
  std::vector<SseEvent> out;
  for (char c : chunk) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (c == '\n') continue;
    }
    if (c == '\r' || c == '\n') {
      skip_lf_ = c == '\r';
      process_line(line_, out);
      line_.clear();
    } else {
      line_ += c;
    }
  }
  return out;
}

bool SseParser::has_partial_event() const {
  return has_fields_ || !line_.empty();
}

void SseParser::process_line(std::string_view line, std::vector<SseEvent>& out) {
  if (line.empty()) {
    if (has_data_) out.push_back(std::move(event_));
    event_ = SseEvent{};
    has_data_ = false;
    has_fields_ = false;
    return;
  }
  if (line.front() == ':') return;  // comment (keep-alive)
  std::size_t colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  has_fields_ = true;
  if (field == "data") {
    if (has_data_) event_.data += '\n';
    event_.data += value;
    has_data_ = true;
  } else if (field == "event") {
    event_.type = value.empty() ? "message" : std::string(value);
  }
}

}  // namespace kforge::llm

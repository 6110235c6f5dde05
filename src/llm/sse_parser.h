#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kforge::llm {

/// One server-sent event: its `event:` type ("message" when none was given) and its `data:`
/// lines joined by '\n'.
struct SseEvent {
  std::string type = "message";
  std::string data;
};

/// Incremental parser for a text/event-stream body (the WHATWG rules): lines end in \n, \r\n or
/// \r; `data:` lines accumulate, a blank line dispatches; `event:` sets the type; comments (`:`),
/// `id:` and `retry:` are ignored. Chunks may split lines and events anywhere.
class SseParser {
 public:
  /// Feeds the next chunk; returns the events it completed.
  std::vector<SseEvent> feed(std::string_view chunk);
  /// True when bytes of an unfinished event are pending (a stream that stops here was cut off).
  bool has_partial_event() const;

 private:
  void process_line(std::string_view line, std::vector<SseEvent>& out);

  std::string line_;
  bool skip_lf_ = false;
  SseEvent event_;
  bool has_data_ = false;
  bool has_fields_ = false;
};

}  // namespace kforge::llm

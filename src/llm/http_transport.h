#pragma once

#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kforge::llm {

/// One HTTP POST: where, what, and how long to wait. Headers may carry secrets (Authorization,
/// x-api-key): implementations must never log them.
struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  /// Limit for establishing the connection (TCP + TLS), seconds.
  double connect_timeout_s = 10;
  /// Limit for the whole exchange, seconds; 0 = none.
  double timeout_s = 600;
  /// Abort when fewer than one byte arrives for this many seconds (a stalled stream); 0 = off.
  double low_speed_time_s = 0;
  /// When set, the body of a 2xx response is handed over chunk by chunk as it arrives (for
  /// server-sent events) instead of being collected in HttpResponse::body. Returning false aborts
  /// the transfer. Bodies of other statuses are always collected.
  std::function<bool(std::string_view chunk)> on_data;
  /// Polled during the transfer (about every second and on each chunk); returning true aborts it
  /// (TransportError::Kind::kAborted). Unset = never.
  std::function<bool()> cancelled;
};

/// What came back. Header names are lower-cased.
struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
};

/// Why no response came back at all.
struct TransportError {
  enum class Kind {
    kTimeout,     // connect, total or low-speed limit hit
    kConnection,  // refused, reset, closed early, nothing received: worth a retry
    kAborted,     // on_data returned false
    kOther,       // bad URL, unresolvable host, TLS failure: not worth a retry
  };
  Kind kind = Kind::kOther;
  std::string message;
};

/// Sends HTTP requests. Abstract so tests can record requests or fake failures; the real one is
/// libcurl (make_curl_transport). Thread-safe: several requests may be in flight at once.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual std::expected<HttpResponse, TransportError> post(const HttpRequest& request) = 0;
};

/// The libcurl transport. Local hosts (localhost, 127.0.0.1, ::1) never go through a proxy.
std::shared_ptr<HttpTransport> make_curl_transport();

}  // namespace kforge::llm

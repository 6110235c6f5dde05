#pragma once

// Test-only: a model server on 127.0.0.1 (ephemeral port) inside the test binary, speaking the
// OpenAI chat-completions and Anthropic messages wire formats, plus a fake clock. Included by
// *_test.cc files only.

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "llm/clock.h"

namespace kforge::llm::testing {

/// One request as the server saw it.
struct SeenRequest {
  std::string path;
  std::string authorization;
  std::string api_key;  // x-api-key
  std::string anthropic_version;
  nlohmann::json body;
};

/// A local HTTP server whose replies the test scripts with `handler`. `call` (1-based) counts
/// requests, so a handler can fail first and succeed later.
class ModelServer {
 public:
  using Handler = std::function<void(int call, const SeenRequest&, httplib::Response&)>;

  explicit ModelServer(Handler handler) : handler_(std::move(handler)) {
    auto serve = [this](const httplib::Request& request, httplib::Response& response) {
      SeenRequest seen{request.path, request.get_header_value("Authorization"),
                       request.get_header_value("x-api-key"),
                       request.get_header_value("anthropic-version"),
                       nlohmann::json::parse(request.body, nullptr, false)};
      int call = 0;
      {
        std::lock_guard lock(mutex_);
        seen_.push_back(seen);
        call = static_cast<int>(seen_.size());
      }
      handler_(call, seen, response);
    };
    server_.Post("/v1/chat/completions", serve);
    server_.Post("/v1/messages", serve);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  ~ModelServer() {
    stopping_ = true;
    server_.stop();
    thread_.join();
  }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  int calls() const {
    std::lock_guard lock(mutex_);
    return static_cast<int>(seen_.size());
  }
  std::vector<SeenRequest> seen() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }
  /// Sleeps up to `seconds`, returning early when the server shuts down.
  void stall(double seconds) const {
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!stopping_ && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

 private:
  Handler handler_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<bool> stopping_ = false;
  mutable std::mutex mutex_;
  std::vector<SeenRequest> seen_;
};

/// Sends `events` (each a complete "data: …\n\n" or "event: …\ndata: …\n\n" text) as a
/// text/event-stream body. `complete` false drops the connection after them, mid-body.
inline void send_events(httplib::Response& response, std::vector<std::string> events,
                        bool complete = true) {
  response.set_chunked_content_provider(
      "text/event-stream",
      [events = std::move(events), complete](std::size_t, httplib::DataSink& sink) {
        for (const std::string& event : events) sink.write(event.data(), event.size());
        if (!complete) return false;
        sink.done();
        return true;
      });
}

/// A Clock whose sleeps return at once and are recorded; now() advances by them.
class FakeClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point now() override {
    std::lock_guard lock(mutex_);
    return start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(slept_);
  }
  void sleep_for(Duration duration) override {
    std::lock_guard lock(mutex_);
    sleeps_.push_back(duration.count());
    slept_ += duration;
  }
  std::vector<double> sleeps() const {
    std::lock_guard lock(mutex_);
    return sleeps_;
  }

 private:
  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  Duration slept_{0};
  std::vector<double> sleeps_;
};

}  // namespace kforge::llm::testing

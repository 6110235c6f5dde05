#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <semaphore>
#include <stop_token>
#include <string>

#include "llm/attempt_runner.h"
#include "llm/chat_protocol.h"
#include "llm/clock.h"
#include "llm/http_transport.h"
#include "llm/provider.h"
#include "llm/provider_config.h"
#include "llm/token_ledger.h"

namespace kforge::llm {

/// A Provider that talks to a model server over HTTP in one ChatProtocol (OpenAI or Anthropic).
/// Owns what both have in common: at most `max_concurrent_requests` requests in flight, retries
/// with back-off, time-outs, streaming with live progress, parameters the server rejected, cost,
/// the ledger and transcripts. Thread-safe.
class HttpProvider final : public Provider {
 public:
  HttpProvider(ProviderConfig config, std::unique_ptr<ChatProtocol> protocol,
               std::shared_ptr<HttpTransport> transport, std::shared_ptr<Clock> clock,
               std::shared_ptr<TokenLedger> ledger);

  util::Result<ChatReply> chat(const ChatRequest& request) override;
  std::string name() const override { return config_.name; }
  std::string model() const override { return config_.model; }

  /// The parameters learned so far (for tests and `kforge doctor`).
  WireParams wire_params() const;

 private:
  /// How one attempt ended when it did not give a reply.
  struct Failure {
    CallError error;
    std::optional<double> retry_after_s;
    /// Set when the server rejected a parameter kforge can drop or replace.
    std::string rejected_parameter;
  };

  /// One HTTP exchange; `timeout_s` is its hard limit (the soft, per-stage time-out is
  /// run_attempts'); `stop` abandons it.
  AttemptResult attempt(const ChatRequest& request, const std::string& body, bool stream,
                        double timeout_s, std::stop_token stop);
  Failure http_failure(const HttpResponse& response) const;
  /// Adjusts the learned parameters after `parameter` was rejected; false when nothing changes.
  bool learn_rejection(const std::string& parameter, bool stream);
  double jittered_backoff(int attempt);

  ProviderConfig config_;
  std::unique_ptr<ChatProtocol> protocol_;
  std::shared_ptr<HttpTransport> transport_;
  std::shared_ptr<Clock> clock_;
  std::shared_ptr<TokenLedger> ledger_;
  std::string url_;
  std::counting_semaphore<1024> slots_;
  mutable std::mutex mutex_;  // guards params_ and rng_
  WireParams params_;
  std::mt19937_64 rng_;
};

}  // namespace kforge::llm

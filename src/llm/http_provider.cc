#include "llm/http_provider.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "llm/api_error.h"
#include "llm/attempt_runner.h"
#include "llm/transcript.h"

namespace kforge::llm {

namespace {

using SteadyClock = std::chrono::steady_clock;

double seconds_between(SteadyClock::time_point from, SteadyClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

/// Holds a semaphore slot until scope exit; gives up waiting for one when `stop` is requested.
class SlotGuard {
 public:
  SlotGuard(std::counting_semaphore<1024>& slots, const std::stop_token& stop) : slots_(slots) {
    while (!stop.stop_requested())
      if (slots_.try_acquire_for(std::chrono::milliseconds(100))) {
        held_ = true;
        break;
      }
  }
  ~SlotGuard() {
    if (held_) slots_.release();
  }
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;
  bool held() const { return held_; }

 private:
  std::counting_semaphore<1024>& slots_;
  bool held_ = false;
};

}  // namespace

HttpProvider::HttpProvider(ProviderConfig config, std::unique_ptr<ChatProtocol> protocol,
                           std::shared_ptr<HttpTransport> transport, std::shared_ptr<Clock> clock,
                           std::shared_ptr<TokenLedger> ledger)
    : config_(std::move(config)),
      protocol_(std::move(protocol)),
      transport_(std::move(transport)),
      clock_(std::move(clock)),
      ledger_(std::move(ledger)),
      url_(protocol_->endpoint(config_.base_url)),
      slots_(std::clamp(config_.max_concurrent_requests, 1, 1024)),
      rng_(std::random_device{}()) {
  params_.use_max_completion_tokens =
      protocol_->api() == "openai" && is_openai_reasoning_model(config_.model);
}

WireParams HttpProvider::wire_params() const {
  std::lock_guard lock(mutex_);
  return params_;
}

double HttpProvider::jittered_backoff(int attempt) {
  std::lock_guard lock(mutex_);
  return config_.retry.backoff_s(attempt, rng_);
}

bool HttpProvider::learn_rejection(const std::string& parameter, bool stream) {
  std::lock_guard lock(mutex_);
  WireParams before = params_;
  if (parameter == "max_tokens" && !params_.use_max_completion_tokens)
    params_.use_max_completion_tokens = true;
  else if (parameter == "max_completion_tokens" && params_.use_max_completion_tokens)
    params_.use_max_completion_tokens = false;
  else if (parameter == "temperature")
    params_.send_temperature = false;
  else if (parameter == "stream_options" && stream)
    params_.send_stream_options = false;
  bool changed = before.use_max_completion_tokens != params_.use_max_completion_tokens ||
                 before.send_temperature != params_.send_temperature ||
                 before.send_stream_options != params_.send_stream_options;
  if (changed)
    spdlog::info("{} rejected the parameter '{}'; not sending it again", config_.name, parameter);
  return changed;
}

HttpProvider::Failure HttpProvider::http_failure(const HttpResponse& response) const {
  ApiError error = parse_api_error(response.body);
  std::string message = redact(error.message, config_.api_key);
  int status = response.status;
  Failure failure;
  if (status == 429) {
    failure.error = {true, fmt::format("HTTP 429: rate limited: {}", message)};
    if (auto it = response.headers.find("retry-after"); it != response.headers.end())
      failure.retry_after_s = parse_retry_after(it->second, std::chrono::system_clock::now());
    return failure;
  }
  if (status >= 500 || status == 408 || status == 409) {
    failure.error = {true, fmt::format("HTTP {}: server error: {}", status, message)};
    if (auto it = response.headers.find("retry-after"); it != response.headers.end())
      failure.retry_after_s = parse_retry_after(it->second, std::chrono::system_clock::now());
    return failure;
  }
  if (status == 401) {
    std::string cause =
        config_.api_key.empty()
            ? fmt::format("no API key was sent (set {})",
                          fmt::join(config_.api_key_variables, " or "))
            : fmt::format("bad API key (the key from {} was refused)", config_.api_key_source);
    failure.error = {false, fmt::format("HTTP 401: {}: {}", cause, message)};
    return failure;
  }
  if (status == 403) {
    failure.error = {
        false, fmt::format("HTTP 403: access denied (the key from {} may not use "
                           "model {}): {}",
                           config_.api_key_source.empty() ? "nowhere" : config_.api_key_source,
                           config_.model, message)};
    return failure;
  }
  if (status == 404) {
    failure.error = {false, fmt::format("HTTP 404: unknown model '{}' or wrong endpoint {}: {}",
                                        config_.model, url_, message)};
    return failure;
  }
  if (status == 400 || status == 413 || status == 422) {
    failure.rejected_parameter = rejected_parameter(error);
    if (is_context_length_error(error))
      failure.error = {false, fmt::format("HTTP {}: context too long: {}", status, message)};
    else
      failure.error = {false, fmt::format("HTTP {}: bad request: {}", status, message)};
    return failure;
  }
  failure.error = {false, fmt::format("HTTP {}: {}", status, message)};
  return failure;
}

AttemptResult HttpProvider::attempt(const ChatRequest& request, const std::string& body,
                                    bool stream, double timeout_s, std::stop_token stop) {
  HttpRequest http;
  http.url = url_;
  http.headers = protocol_->headers(config_.api_key);
  http.body = body;
  http.connect_timeout_s = std::min(config_.connect_timeout_s, timeout_s);
  http.timeout_s = timeout_s;
  http.cancelled = [&stop] { return stop.stop_requested(); };

  // Waiting for a free slot is not latency; an attempt abandoned while waiting never starts.
  SlotGuard slot(slots_, stop);
  if (!slot.held()) return std::unexpected(AttemptFailure{false, "abandoned", {}, false, {}});
  SteadyClock::time_point started = SteadyClock::now();
  std::unique_ptr<StreamDecoder> decoder;
  SseParser parser;
  std::optional<CallError> stream_error;
  std::string raw;  // the body while no event arrived, in case the server ignored "stream"
  bool saw_event = false;
  if (stream) {
    decoder = protocol_->stream_decoder();
    http.low_speed_time_s = config_.stall_timeout_s;
    http.on_data = [&](std::string_view chunk) {
      if (stop.stop_requested()) return false;
      if (!saw_event && raw.size() < (1u << 22)) raw.append(chunk);
      for (const SseEvent& event : parser.feed(chunk)) {
        saw_event = true;
        if (auto consumed = decoder->on_event(event); !consumed) {
          stream_error = consumed.error();
          return false;
        }
        if (request.on_progress) {
          auto [tokens, reasoning] = decoder->tokens_so_far();
          double elapsed = seconds_between(started, SteadyClock::now());
          request.on_progress(
              StreamProgress{tokens, elapsed > 0 ? tokens / elapsed : 0, elapsed, reasoning});
        }
      }
      return true;
    };
  }
  // What a stream had delivered when it failed, for the transcript.
  auto failed = [&](bool retryable, std::string message) {
    AttemptFailure failure{retryable, std::move(message), {}, false, {}};
    if (decoder)
      failure.partial = {decoder->reply().content, decoder->reply().reasoning,
                         decoder->tokens_so_far().first};
    return std::unexpected(std::move(failure));
  };

  auto response = transport_->post(http);
  double latency = seconds_between(started, SteadyClock::now());
  // A stream whose end was seen is complete even if the connection then drops (before the
  // usage chunk or the final [DONE]).
  bool stream_complete = stream && decoder->complete() && !stream_error;
  if (!response && stream_complete && response.error().kind == TransportError::Kind::kConnection)
    response = HttpResponse{200, {}, {}};
  if (!response) {
    const TransportError& error = response.error();
    if (stop.stop_requested()) return failed(false, "abandoned");
    switch (error.kind) {
      case TransportError::Kind::kAborted:
        if (stream_error) return failed(stream_error->retryable, stream_error->message);
        return failed(false, "transfer aborted");
      case TransportError::Kind::kTimeout:
        return failed(true, fmt::format("timed out after {:.1f} s: {}", latency, error.message));
      case TransportError::Kind::kConnection:
        return failed(true, fmt::format("connection failed: {}", error.message));
      case TransportError::Kind::kOther:
        return failed(false, fmt::format("request failed: {}", error.message));
    }
  }
  if (response->status < 200 || response->status >= 300) {
    Failure failure = http_failure(*response);
    AttemptFailure out{failure.error.retryable,
                       redact(failure.error.message, config_.api_key),
                       failure.retry_after_s,
                       false,
                       {}};
    if (!failure.rejected_parameter.empty() && learn_rejection(failure.rejected_parameter, stream))
      out.adjusted = true;
    return std::unexpected(std::move(out));
  }

  ChatReply reply;
  auto content_type = response->headers.find("content-type");
  bool json_body = content_type != response->headers.end() &&
                   content_type->second.find("json") != std::string::npos;
  if (stream && !(json_body && !saw_event)) {
    if (!decoder->complete()) {
      return failed(
          true, fmt::format("stream ended before the reply was complete ({} characters "
                            "received)",
                            decoder->reply().content.size() + decoder->reply().reasoning.size()));
    }
    reply = decoder->reply();
    if (reply.usage.completion_tokens == 0)
      reply.usage.completion_tokens = decoder->tokens_so_far().first;
  } else {
    // Not streamed after all (the server ignored "stream": true) or a plain reply.
    auto parsed = protocol_->parse_reply(stream ? raw : response->body);
    if (!parsed) return failed(parsed.error().retryable, parsed.error().message);
    reply = std::move(*parsed);
  }
  reply.latency_s = latency;
  return reply;
}

util::Result<ChatReply> HttpProvider::chat(const ChatRequest& request) {
  const bool stream = request.stream.value_or(config_.stream);
  Transcript transcript{config_.name, config_.model, request.stage, url_, stream, {}, {}, {}, 0};
  std::mutex body_mutex;  // attempts may overlap (a late answer is still taken)

  AttemptFn attempt_fn = [&](int, double hard_timeout_s, std::stop_token stop) {
    nlohmann::json body = protocol_->body(request, config_.model, stream, wire_params());
    {
      std::lock_guard lock(body_mutex);
      transcript.request = body;
    }
    return attempt(request, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                   stream, hard_timeout_s, std::move(stop));
  };
  AttemptLimits limits{config_.request_timeout_for(request.stage), config_.retry};
  AttemptRun run = run_attempts(
      attempt_fn, limits, *clock_, [this](int n) { return jittered_backoff(n); }, config_.name);
  transcript.attempts = static_cast<int>(run.attempts.size());
  transcript.attempt_log = run.attempts;
  transcript.late = run.late;

  util::Result<ChatReply> result;
  if (run.reply) {
    ChatReply reply = std::move(*run.reply);
    std::string priced_model = config_.prices.find(config_.model) ? config_.model : reply.model;
    reply.cost_usd = config_.prices.cost(priced_model, reply.usage);
    if (reply.model.empty()) reply.model = config_.model;
    if (reply.truncated)
      spdlog::warn("{} reply for stage {} was cut off at the token limit (finish_reason {})",
                   config_.name, request.stage.empty() ? "?" : request.stage, reply.finish_reason);
    result = std::move(reply);
  } else {
    result = util::fail("failed to query {} model {}: {}", config_.name, config_.model,
                        redact(run.reply.error(), config_.api_key));
  }
  if (result) {
    transcript.reply = *result;
    if (ledger_) ledger_->record(request.stage, *result);
  } else {
    transcript.error = result.error().message;
    if (ledger_) ledger_->record_failure(request.stage);
  }
  if (!request.transcript_path.empty()) {
    if (auto written = write_transcript(request.transcript_path, transcript, config_.api_key);
        !written)
      spdlog::warn("{}", written.error().message);
  }
  return result;
}

}  // namespace kforge::llm

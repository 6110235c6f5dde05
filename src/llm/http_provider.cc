#include "llm/http_provider.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "llm/api_error.h"
#include "llm/transcript.h"

namespace kforge::llm {

namespace {

using SteadyClock = std::chrono::steady_clock;

double seconds_between(SteadyClock::time_point from, SteadyClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

/// Releases a semaphore slot on scope exit.
class SlotGuard {
 public:
  explicit SlotGuard(std::counting_semaphore<1024>& slots) : slots_(slots) { slots_.acquire(); }
  ~SlotGuard() { slots_.release(); }
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;

 private:
  std::counting_semaphore<1024>& slots_;
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

std::expected<ChatReply, HttpProvider::Failure> HttpProvider::attempt(const ChatRequest& request,
                                                                      const std::string& body,
                                                                      bool stream,
                                                                      double timeout_s) {
  HttpRequest http;
  http.url = url_;
  http.headers = protocol_->headers(config_.api_key);
  http.body = body;
  http.connect_timeout_s = std::min(config_.connect_timeout_s, timeout_s);
  http.timeout_s = timeout_s;

  // Waiting for a free slot is not latency.
  SlotGuard slot(slots_);
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

  auto response = transport_->post(http);
  double latency = seconds_between(started, SteadyClock::now());
  // A stream whose end was seen is complete even if the connection then drops (before the
  // usage chunk or the final [DONE]).
  bool stream_complete = stream && decoder->complete() && !stream_error;
  if (!response && stream_complete && response.error().kind == TransportError::Kind::kConnection)
    response = HttpResponse{200, {}, {}};
  if (!response) {
    const TransportError& error = response.error();
    switch (error.kind) {
      case TransportError::Kind::kAborted:
        if (stream_error) return std::unexpected(Failure{*stream_error, {}, {}});
        return std::unexpected(Failure{{false, "transfer aborted"}, {}, {}});
      case TransportError::Kind::kTimeout:
        return std::unexpected(Failure{
            {true, fmt::format("timed out after {:.1f} s: {}", latency, error.message)}, {}, {}});
      case TransportError::Kind::kConnection:
        return std::unexpected(
            Failure{{true, fmt::format("connection failed: {}", error.message)}, {}, {}});
      case TransportError::Kind::kOther:
        return std::unexpected(
            Failure{{false, fmt::format("request failed: {}", error.message)}, {}, {}});
    }
  }
  if (response->status < 200 || response->status >= 300)
    return std::unexpected(http_failure(*response));

  ChatReply reply;
  auto content_type = response->headers.find("content-type");
  bool json_body = content_type != response->headers.end() &&
                   content_type->second.find("json") != std::string::npos;
  if (stream && !(json_body && !saw_event)) {
    if (!decoder->complete()) {
      return std::unexpected(Failure{
          {true, fmt::format("stream ended before the reply was complete ({} characters "
                             "received)",
                             decoder->reply().content.size() + decoder->reply().reasoning.size())},
          {},
          {}});
    }
    reply = decoder->reply();
    if (reply.usage.completion_tokens == 0)
      reply.usage.completion_tokens = decoder->tokens_so_far().first;
  } else {
    // Not streamed after all (the server ignored "stream": true) or a plain reply.
    auto parsed = protocol_->parse_reply(stream ? raw : response->body);
    if (!parsed) return std::unexpected(Failure{parsed.error(), {}, {}});
    reply = std::move(*parsed);
  }
  reply.latency_s = latency;
  return reply;
}

util::Result<ChatReply> HttpProvider::chat(const ChatRequest& request) {
  const bool stream = request.stream.value_or(config_.stream);
  const SteadyClock::time_point start = clock_->now();
  const double deadline_s = config_.retry.total_deadline_s;
  Transcript transcript{config_.name, config_.model, request.stage, url_, stream, {}, {}, {}, 0};

  auto finish = [&](util::Result<ChatReply> result) -> util::Result<ChatReply> {
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
  };
  auto fail = [&](const std::string& cause) {
    return finish(util::fail("failed to query {} model {}: {}", config_.name, config_.model,
                             redact(cause, config_.api_key)));
  };

  int attempts = 0;     // counted against max_attempts
  int adjustments = 0;  // retries after a rejected parameter, not counted
  while (true) {
    double remaining = deadline_s > 0 ? deadline_s - seconds_between(start, clock_->now())
                                      : config_.request_timeout_s;
    if (remaining <= 0)
      return fail(fmt::format("no reply within the total deadline of {:.0f} s", deadline_s));
    nlohmann::json body = protocol_->body(request, config_.model, stream, wire_params());
    transcript.request = body;
    ++attempts;
    transcript.attempts = attempts + adjustments;
    auto result =
        attempt(request, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                stream, std::min(config_.request_timeout_s, remaining));
    if (result) {
      ChatReply reply = std::move(*result);
      reply.attempts = attempts + adjustments;
      std::string priced_model = config_.prices.find(config_.model) ? config_.model : reply.model;
      reply.cost_usd = config_.prices.cost(priced_model, reply.usage);
      if (reply.model.empty()) reply.model = config_.model;
      if (reply.truncated)
        spdlog::warn("{} reply for stage {} was cut off at the token limit (finish_reason {})",
                     config_.name, request.stage.empty() ? "?" : request.stage,
                     reply.finish_reason);
      return finish(std::move(reply));
    }
    const Failure& failure = result.error();
    if (!failure.rejected_parameter.empty() && adjustments < 3 &&
        learn_rejection(failure.rejected_parameter, stream)) {
      --attempts;
      ++adjustments;
      continue;
    }
    if (!failure.error.retryable) return fail(failure.error.message);
    if (attempts >= config_.retry.max_attempts)
      return fail(fmt::format("gave up after {} attempt{}: {}", attempts, attempts == 1 ? "" : "s",
                              failure.error.message));
    double wait = failure.retry_after_s ? *failure.retry_after_s : jittered_backoff(attempts);
    double elapsed = seconds_between(start, clock_->now());
    if (deadline_s > 0 && elapsed + wait >= deadline_s)
      return fail(
          fmt::format("gave up after {} attempt{}: waiting {:.1f} s more would pass the "
                      "total deadline of {:.0f} s: {}",
                      attempts, attempts == 1 ? "" : "s", wait, deadline_s, failure.error.message));
    spdlog::warn("{} request failed ({}); retrying in {:.1f} s (attempt {} of {})", config_.name,
                 redact(failure.error.message, config_.api_key), wait, attempts + 1,
                 config_.retry.max_attempts);
    clock_->sleep_for(Clock::Duration(wait));
  }
}

}  // namespace kforge::llm

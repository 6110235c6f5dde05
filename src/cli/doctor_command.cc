// `kforge doctor`: which endpoint and model are configured, where the key comes from (never the
// key), whether the endpoint answers a tiny request, and whether a worker starts.

#include <fmt/core.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/pool_config.h"
#include "cli/provider_options.h"
#include "eval/worker_pool.h"
#include "llm/chat_protocol.h"
#include "llm/provider_factory.h"

namespace kforge::cli {

namespace {

using nlohmann::json;

/// What the endpoint check found.
struct EndpointCheck {
  bool ok = false;
  std::string error;
  llm::ChatReply reply;
};

/// What the worker check found.
struct WorkerCheck {
  bool ok = false;
  std::string error;
  eval::WorkerInfo info;
};

std::string endpoint_url(const llm::ProviderConfig& config) {
  switch (config.api) {
    case llm::Api::kOpenAi:
      return llm::make_openai_protocol({})->endpoint(config.base_url);
    case llm::Api::kAnthropic:
      return llm::make_anthropic_protocol({})->endpoint(config.base_url);
    case llm::Api::kLibrary:
      return "(offline: verified kernels in library/)";
    case llm::Api::kExec:
      return "command: " + config.command;
    case llm::Api::kReplay:
      return "recorded run " + config.replay_dir;
  }
  return "";
}

EndpointCheck check_endpoint(llm::ProviderConfig config) {
  EndpointCheck check;
  if (config.api == llm::Api::kLibrary) {
    check.ok = true;  // nothing to reach
    return check;
  }
  if (config.api == llm::Api::kReplay) {
    // Readable recorded calls are all there is to check; asking would use one up.
    auto provider = llm::make_provider(config);
    check.ok = provider.has_value();
    if (!provider) check.error = provider.error().message;
    return check;
  }
  // A quick verdict: two attempts, short limits.
  config.retry.max_attempts = 2;
  config.retry.total_deadline_s = 90;
  config.request_timeout_s = 60;
  config.connect_timeout_s = 10;
  config.protocol.thinking_budget_tokens.reset();
  auto provider = llm::make_provider(config);
  if (!provider) {
    check.error = provider.error().message;
    return check;
  }
  llm::ChatRequest request;
  request.messages = {{"user", "Reply with the single word: ok"}};
  request.stage = "doctor";
  request.max_tokens = 8;
  auto reply = (*provider)->chat(request);
  if (!reply) {
    check.error = reply.error().message;
    return check;
  }
  check.ok = true;
  check.reply = *reply;
  return check;
}

WorkerCheck check_worker(const Options& options) {
  WorkerCheck check;
  auto started = start_worker_pool(options, {.evaluations = 0});
  if (!started) {
    check.error = started.error().message;
    return check;
  }
  check.ok = true;
  check.info = started->info;
  return check;
}

std::string worker_summary(const eval::WorkerInfo& info) {
  std::string device = info.device_name ? fmt::format("{} ({} SMs, {:.0f} GB)", *info.device_name,
                                                      info.sm_count, info.memory_gb)
                                        : std::string("no GPU");
  return fmt::format("python {}, torch {}, triton {}{}, {}{}", info.python, info.torch, info.triton,
                     info.cuda ? ", CUDA " + *info.cuda : "", device,
                     info.interpret ? ", Triton interpreter" : "");
}

std::string one_line(std::string text, std::size_t limit) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

json to_json(const llm::ProviderConfig& config, const EndpointCheck& endpoint,
             const WorkerCheck& worker) {
  json out = {
      {"config_file", config.config_file.empty() ? json(nullptr) : json(config.config_file)},
      {"provider", config.name},
      {"api", llm::to_string(config.api)},
      {"endpoint", endpoint_url(config)},
      {"model", config.model},
      {"key_source", config.api_key_source.empty() ? json(nullptr) : json(config.api_key_source)},
      {"key_variables", config.api_key_variables},
      {"stream", config.stream},
      {"max_concurrent_requests", config.max_concurrent_requests},
      {"endpoint_ok", endpoint.ok},
  };
  if (endpoint.ok) {
    out["latency_s"] = endpoint.reply.latency_s;
    out["reply_model"] = endpoint.reply.model;
    out["reply"] = endpoint.reply.content;
    out["usage"] = {{"prompt_tokens", endpoint.reply.usage.prompt_tokens},
                    {"completion_tokens", endpoint.reply.usage.completion_tokens}};
  } else {
    out["endpoint_error"] = endpoint.error;
  }
  json w = {{"ok", worker.ok}};
  if (worker.ok) {
    w["python"] = worker.info.python;
    w["torch"] = worker.info.torch;
    w["triton"] = worker.info.triton;
    w["cuda"] = worker.info.cuda ? json(*worker.info.cuda) : json(nullptr);
    w["device_name"] = worker.info.device_name ? json(*worker.info.device_name) : json(nullptr);
    w["sm_count"] = worker.info.sm_count;
  } else {
    w["error"] = worker.error;
  }
  out["worker"] = w;
  return out;
}

void print_text(const llm::ProviderConfig& config, const EndpointCheck& endpoint,
                const WorkerCheck& worker) {
  auto row = [](std::string_view name, const std::string& value) {
    fmt::print("  {:<10} {}\n", name, value);
  };
  fmt::print("kforge doctor\n");
  row("config",
      config.config_file.empty() ? "none (flags, environment and presets)" : config.config_file);
  row("provider", fmt::format("{} ({} API)", config.name, llm::to_string(config.api)));
  row("endpoint", endpoint_url(config));
  row("model", config.model);
  bool has_endpoint = config.api == llm::Api::kOpenAi || config.api == llm::Api::kAnthropic;
  if (has_endpoint) {
    if (!config.api_key_source.empty())
      row("key", "from " + config.api_key_source);
    else
      row("key", fmt::format("none{} (looked at {})", config.needs_key ? " - NEEDED" : "",
                             fmt::join(config.api_key_variables, ", ")));
    row("streaming", config.stream ? "on" : "off");
  }
  if (endpoint.ok && config.api != llm::Api::kLibrary && config.api != llm::Api::kReplay) {
    const llm::ChatReply& reply = endpoint.reply;
    row("answer", fmt::format("ok in {:.2f} s (model {}, {}+{} tokens): \"{}\"", reply.latency_s,
                              reply.model, reply.usage.prompt_tokens, reply.usage.completion_tokens,
                              one_line(reply.content, 40)));
  } else if (!endpoint.ok) {
    row("answer", "FAILED: " + endpoint.error);
  }
  row("worker", worker.ok ? "ok: " + worker_summary(worker.info) : "FAILED: " + worker.error);
}

}  // namespace

int run_doctor_command(const Options& options) {
  auto config = load_provider_config(options);
  if (!config) {
    fmt::print(stderr, "kforge doctor: {}\n", config.error().message);
    if (options.json)
      fmt::print("{}\n", json{{"endpoint_ok", false}, {"error", config.error().message}}.dump());
    return kExitUsage;
  }
  EndpointCheck endpoint = check_endpoint(*config);
  WorkerCheck worker = check_worker(options);
  if (options.json)
    fmt::print("{}\n", to_json(*config, endpoint, worker).dump(2));
  else
    print_text(*config, endpoint, worker);
  return endpoint.ok && worker.ok ? kExitOk : kExitEnvironment;
}

}  // namespace kforge::cli

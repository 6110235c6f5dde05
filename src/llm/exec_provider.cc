#include "llm/exec_provider.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "llm/transcript.h"

namespace kforge::llm {

namespace {

using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

/// Output beyond this is an error, not a reply.
constexpr std::size_t kMaxOutputBytes = 16u << 20;

bool looks_secret(std::string_view name) {
  for (std::string_view suffix : {"_KEY", "_TOKEN", "_SECRET", "_PASSWORD"})
    if (name.ends_with(suffix)) return true;
  return name == "KFORGE_API_KEY";
}

std::int64_t estimate_tokens(std::size_t characters) {
  return static_cast<std::int64_t>((characters + 3) / 4);
}

}  // namespace

util::Result<ChatReply> parse_command_output(const std::string& output) {
  ChatReply reply;
  std::size_t first = output.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && output[first] == '{') {
    json object = json::parse(output, nullptr, false);
    if (!object.is_discarded() && object.is_object() && object.contains("content") &&
        object["content"].is_string()) {
      std::vector<std::string> wrong;
      auto text = [&](const char* key, std::string& out) {
        if (!object.contains(key) || object[key].is_null()) return;
        if (object[key].is_string())
          out = object[key].get<std::string>();
        else
          wrong.push_back(fmt::format("{} must be a string", key));
      };
      text("content", reply.content);
      text("reasoning", reply.reasoning);
      text("finish_reason", reply.finish_reason);
      text("model", reply.model);
      if (object.contains("usage") && !object["usage"].is_null()) {
        const json& usage = object["usage"];
        if (!usage.is_object()) {
          wrong.emplace_back("usage must be an object");
        } else {
          auto count = [&](const char* key, std::int64_t& out) {
            if (!usage.contains(key) || usage[key].is_null()) return;
            if (usage[key].is_number_integer() && usage[key].get<std::int64_t>() >= 0)
              out = usage[key].get<std::int64_t>();
            else
              wrong.push_back(fmt::format("usage.{} must be a non-negative integer", key));
          };
          count("prompt_tokens", reply.usage.prompt_tokens);
          count("completion_tokens", reply.usage.completion_tokens);
          count("reasoning_tokens", reply.usage.reasoning_tokens);
          count("cached_tokens", reply.usage.cached_tokens);
        }
      }
      if (!wrong.empty())
        return util::fail("failed to read the command's JSON reply: {}", fmt::join(wrong, "; "));
      reply.truncated = reply.finish_reason == "length" || reply.finish_reason == "max_tokens";
      return reply;
    }
  }
  reply.content = output;
  if (reply.content.ends_with('\n')) reply.content.pop_back();
  return reply;
}

ExecProvider::ExecProvider(ProviderConfig config, std::shared_ptr<eval::ProcessLauncher> launcher,
                           std::shared_ptr<Clock> clock, std::shared_ptr<TokenLedger> ledger)
    : config_(std::move(config)),
      launcher_(std::move(launcher)),
      clock_(std::move(clock)),
      ledger_(std::move(ledger)),
      rng_(std::random_device{}()) {
  for (const auto& [name, value] : eval::current_environment())
    if (looks_secret(name) && value.size() >= 8) secrets_.push_back(value);
  if (config_.api_key.size() >= 8) secrets_.push_back(config_.api_key);
}

std::string ExecProvider::redact_secrets(std::string text) const {
  for (const std::string& secret : secrets_) text = redact(std::move(text), secret);
  return text;
}

AttemptResult ExecProvider::attempt(const std::string& input, double timeout_s,
                                    const std::stop_token& stop) {
  eval::LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", config_.command};
  spec.env = eval::current_environment();
  auto launched = launcher_->launch(spec);
  if (!launched)
    return std::unexpected(AttemptFailure{false, launched.error().message, {}, false, {}});
  std::unique_ptr<eval::Process> process = std::move(*launched);
  const SteadyClock::time_point started = SteadyClock::now();
  const SteadyClock::time_point hard_deadline =
      started +
      std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(timeout_s));

  // The request may be larger than a pipe holds: write it beside the reading, so that a command
  // that answers before reading all of it (or never reads it) cannot block kforge.
  std::thread writer([&process, &input] {
    (void)process->write_line(input);
    process->close_stdin();
  });
  std::string output;
  std::optional<AttemptFailure> failure;
  while (true) {
    eval::LineRead read = process->read_line(SteadyClock::now() + std::chrono::milliseconds(100));
    if (read.kind == eval::LineRead::Kind::kLine) {
      output += read.line;
      output += '\n';
      if (output.size() > kMaxOutputBytes) {
        failure = AttemptFailure{
            false,
            fmt::format("the command wrote more than {} MiB to stdout", kMaxOutputBytes >> 20),
            {},
            false,
            {}};
        break;
      }
      continue;
    }
    if (read.kind == eval::LineRead::Kind::kClosed) break;
    if (stop.stop_requested()) {
      failure = AttemptFailure{false, "abandoned", {}, false, {}};
      break;
    }
    if (SteadyClock::now() >= hard_deadline) {
      failure = AttemptFailure{
          true,
          fmt::format("timed out after {:.1f} s: the command's process group was killed",
                      std::chrono::duration<double>(SteadyClock::now() - started).count()),
          {},
          false,
          {}};
      break;
    }
  }
  if (failure) process->kill_group();
  std::optional<eval::ExitStatus> status =
      process->wait(failure ? SteadyClock::now() + std::chrono::seconds(10) : hard_deadline);
  if (!status) {
    process->kill_group();
    status = process->wait(SteadyClock::now() + std::chrono::seconds(10));
    if (!failure)
      failure = AttemptFailure{
          true, "timed out waiting for the command to exit after closing stdout", {}, false, {}};
  }
  writer.join();
  double latency = std::chrono::duration<double>(SteadyClock::now() - started).count();
  if (failure) {
    failure->partial.content = output;
    failure->partial.completion_tokens = estimate_tokens(output.size());
    return std::unexpected(std::move(*failure));
  }
  auto tail = [&] {
    std::string text = process->stderr_tail(20);
    return text.empty() ? std::string("(no stderr)") : "stderr:\n" + text;
  };
  if (status && (status->signaled || status->code != 0)) {
    bool cannot_run = !status->signaled && (status->code == 126 || status->code == 127);
    PartialReply partial{output, {}, estimate_tokens(output.size())};
    return std::unexpected(AttemptFailure{
        !cannot_run,
        fmt::format("the command {} ({}); {}", cannot_run ? "could not be run" : "failed",
                    status->describe(), tail()),
        {},
        false,
        partial});
  }
  if (output.find_first_not_of(" \t\r\n") == std::string::npos)
    return std::unexpected(
        AttemptFailure{false,
                       fmt::format("the command exited 0 but wrote nothing to stdout; {}", tail()),
                       {},
                       false,
                       {}});
  auto reply = parse_command_output(output);
  if (!reply) return std::unexpected(AttemptFailure{false, reply.error().message, {}, false, {}});
  reply->latency_s = latency;
  return *reply;
}

util::Result<ChatReply> ExecProvider::chat(const ChatRequest& request) {
  json messages = json::array();
  std::size_t prompt_characters = 0;
  for (const Message& message : request.messages) {
    messages.push_back({{"role", message.role}, {"content", message.content}});
    prompt_characters += message.content.size();
  }
  json body = {{"stage", request.stage},
               {"task", request.task_path.stem().string()},
               {"task_path", request.task_path.string()},
               {"model", config_.model},
               {"max_tokens", request.max_tokens ? json(*request.max_tokens) : json(nullptr)},
               {"temperature", request.temperature ? json(*request.temperature) : json(nullptr)},
               {"messages", messages}};
  Transcript transcript{config_.name,
                        config_.model,
                        request.stage,
                        "exec: " + config_.command,
                        false,
                        body,
                        {},
                        {},
                        0};

  AttemptFn attempt_fn = [&](int number, double hard_timeout_s, std::stop_token stop) {
    json input = body;
    input["attempt"] = number;
    return attempt(input.dump(-1, ' ', false, json::error_handler_t::replace), hard_timeout_s,
                   stop);
  };
  AttemptLimits limits{config_.request_timeout_for(request.stage), config_.retry};
  auto backoff = [this](int n) {
    std::lock_guard lock(rng_mutex_);
    return config_.retry.backoff_s(n, rng_);
  };
  AttemptRun run = run_attempts(attempt_fn, limits, *clock_, backoff, config_.name);
  transcript.attempts = static_cast<int>(run.attempts.size());
  transcript.attempt_log = run.attempts;
  transcript.late = run.late;

  util::Result<ChatReply> result;
  if (run.reply) {
    ChatReply reply = std::move(*run.reply);
    if (reply.usage.prompt_tokens == 0 && reply.usage.completion_tokens == 0) {
      // The command reported no usage: estimate it, so that budgets still count.
      reply.usage.prompt_tokens = estimate_tokens(prompt_characters);
      reply.usage.completion_tokens =
          estimate_tokens(reply.content.size() + reply.reasoning.size());
    }
    if (reply.model.empty()) reply.model = config_.model;
    reply.cost_usd = config_.prices.cost(reply.model, reply.usage);
    result = std::move(reply);
  } else {
    result = util::fail("failed to query {} model {}: {}", config_.name, config_.model,
                        redact_secrets(run.reply.error()));
  }
  if (result) {
    transcript.reply = *result;
    if (ledger_) ledger_->record(request.stage, *result);
  } else {
    transcript.error = result.error().message;
    if (ledger_) ledger_->record_failure(request.stage);
  }
  if (!request.transcript_path.empty()) {
    if (auto written = write_transcript(request.transcript_path, transcript, secrets_); !written)
      spdlog::warn("{}", written.error().message);
  }
  return result;
}

}  // namespace kforge::llm

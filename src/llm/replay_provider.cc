#include "llm/replay_provider.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/json_text.h"
#include "llm/transcript.h"
#include "util/file_text.h"

namespace kforge::llm {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

/// The leading number of "12_seed.json" (for ordering); a large value when there is none.
long leading_number(const std::string& name) {
  long number = 0;
  std::size_t i = 0;
  for (; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])); ++i)
    number = number * 10 + (name[i] - '0');
  return i == 0 ? 1L << 30 : number;
}

std::string string_field(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return "";
  return object[key].get<std::string>();
}

std::int64_t int_field(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return 0;
  return object[key].get<std::int64_t>();
}

util::Result<ChatReply> reply_from_json(const json& reply, const std::string& where) {
  if (!reply.is_object() || !reply.contains("content") || !reply["content"].is_string())
    return util::fail("failed to read recorded reply {}: no string reply.content", where);
  ChatReply out;
  out.content = reply["content"].get<std::string>();
  out.reasoning = string_field(reply, "reasoning");
  out.finish_reason = string_field(reply, "finish_reason");
  out.model = string_field(reply, "model");
  if (reply.contains("truncated") && reply["truncated"].is_boolean())
    out.truncated = reply["truncated"].get<bool>();
  if (reply.contains("latency_s") && reply["latency_s"].is_number())
    out.latency_s = reply["latency_s"].get<double>();
  if (reply.contains("cost_usd") && reply["cost_usd"].is_number())
    out.cost_usd = reply["cost_usd"].get<double>();
  if (reply.contains("usage")) {
    const json& usage = reply["usage"];
    out.usage.prompt_tokens = int_field(usage, "prompt_tokens");
    out.usage.completion_tokens = int_field(usage, "completion_tokens");
    out.usage.reasoning_tokens = int_field(usage, "reasoning_tokens");
    out.usage.cached_tokens = int_field(usage, "cached_tokens");
  }
  return out;
}

util::Result<RecordedCall> read_transcript(const fs::path& path) {
  auto text = util::read_file(path);
  if (!text) return util::fail("failed to read recorded call {}: cannot open it", path.string());
  auto doc = parse_json_text(*text, path.string());
  if (!doc) return util::fail("failed to read recorded call {}", doc.error().message);
  if (!doc->is_object())
    return util::fail("failed to read recorded call {}: not a JSON object", path.string());
  RecordedCall call;
  call.name = path.filename().string();
  call.stage = string_field(*doc, "stage");
  if (call.stage.empty())
    return util::fail("failed to read recorded call {}: no stage", path.string());
  if (doc->contains("request") && (*doc)["request"].contains("messages") &&
      (*doc)["request"]["messages"].is_array())
    for (const json& message : (*doc)["request"]["messages"])
      call.messages.push_back({string_field(message, "role"), string_field(message, "content")});
  if (doc->contains("reply") && !(*doc)["reply"].is_null()) {
    auto reply = reply_from_json((*doc)["reply"], path.string());
    if (!reply) return std::unexpected(reply.error());
    call.reply = std::move(*reply);
  } else {
    call.error = string_field(*doc, "error");
    if (call.error.empty()) call.error = "the recorded call has neither a reply nor an error";
  }
  return call;
}

/// Where `request` first differs from `recorded`: "" when the same.
std::string first_difference(const std::vector<Message>& request,
                             const std::vector<Message>& recorded) {
  if (request.size() != recorded.size())
    return fmt::format("{} messages instead of {}", request.size(), recorded.size());
  for (std::size_t i = 0; i < request.size(); ++i) {
    if (request[i].role != recorded[i].role)
      return fmt::format("message {} is {} instead of {}", i + 1, request[i].role,
                         recorded[i].role);
    const std::string& a = request[i].content;
    const std::string& b = recorded[i].content;
    if (a == b) continue;
    std::size_t at = std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin();
    std::size_t line = 1 + static_cast<std::size_t>(std::count(a.begin(), a.begin() + at, '\n'));
    return fmt::format("message {} ({}) differs from line {} on", i + 1, request[i].role, line);
  }
  return "";
}

}  // namespace

util::Result<std::vector<RecordedCall>> load_recorded_calls(const fs::path& run_dir) {
  std::error_code error;
  if (!fs::is_directory(run_dir, error))
    return util::fail("failed to read recorded run {}: no such directory", run_dir.string());
  fs::path folder = run_dir / "transcripts";
  if (!fs::is_directory(folder, error))
    return util::fail(
        "failed to read recorded run {}: no transcripts/ folder (is it a kforge run directory?)",
        run_dir.string());
  std::vector<RecordedCall> calls;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    auto call = read_transcript(entry.path());
    if (!call) return std::unexpected(call.error());
    calls.push_back(std::move(*call));
  }
  if (error)
    return util::fail("failed to read recorded run {}: {}", folder.string(), error.message());
  std::sort(calls.begin(), calls.end(), [](const RecordedCall& a, const RecordedCall& b) {
    long na = leading_number(a.name), nb = leading_number(b.name);
    return na != nb ? na < nb : a.name < b.name;
  });

  // The journal says in which order the calls finished: its chat entries, matched by reply.
  std::vector<RecordedCall> ordered;
  std::vector<bool> placed(calls.size(), false);
  if (auto journal = util::read_file(run_dir / "journal.jsonl")) {
    std::istringstream lines(*journal);
    std::string line;
    while (std::getline(lines, line)) {
      json entry = json::parse(line, nullptr, false);  // a line torn by a kill is skipped
      if (entry.is_discarded() || string_field(entry, "kind") != "chat") continue;
      std::string content = entry.contains("reply") ? string_field(entry["reply"], "content") : "";
      std::string stage = string_field(entry, "stage");
      for (std::size_t i = 0; i < calls.size(); ++i) {
        if (placed[i] || !calls[i].reply || calls[i].reply->content != content ||
            calls[i].stage != stage)
          continue;
        placed[i] = true;
        ordered.push_back(calls[i]);
        break;
      }
    }
  }
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (!placed[i]) ordered.push_back(std::move(calls[i]));
  return ordered;
}

util::Result<std::unique_ptr<ReplayProvider>> ReplayProvider::open(
    const fs::path& run_dir, std::shared_ptr<TokenLedger> ledger) {
  auto calls = load_recorded_calls(run_dir);
  if (!calls) return std::unexpected(calls.error());
  if (calls->empty())
    return util::fail("failed to read recorded run {}: transcripts/ holds no recorded calls",
                      run_dir.string());
  std::string model;
  if (auto run = util::read_file(run_dir / "run.json")) {
    json doc = json::parse(*run, nullptr, false);
    if (!doc.is_discarded() && doc.contains("config")) model = string_field(doc["config"], "model");
  }
  if (model.empty())
    for (const RecordedCall& call : *calls)
      if (call.reply && !call.reply->model.empty()) {
        model = call.reply->model;
        break;
      }
  if (model.empty()) model = "recorded";
  return std::unique_ptr<ReplayProvider>(
      new ReplayProvider(run_dir, std::move(*calls), std::move(model), std::move(ledger)));
}

ReplayProvider::ReplayProvider(fs::path run_dir, std::vector<RecordedCall> calls, std::string model,
                               std::shared_ptr<TokenLedger> ledger)
    : run_dir_(std::move(run_dir)),
      calls_(std::move(calls)),
      used_(calls_.size(), false),
      model_(std::move(model)),
      ledger_(std::move(ledger)) {}

util::Result<std::size_t> ReplayProvider::take(const ChatRequest& request) {
  std::lock_guard lock(mutex_);
  const std::string stage = request.stage.empty() ? "?" : request.stage;
  auto fail = [&](const std::string& cause) {
    return util::fail("failed to replay {} (stage {}): {}", run_dir_.string(), stage, cause);
  };
  if (!request.transcript_path.empty()) {
    std::string name = request.transcript_path.filename().string();
    auto it = std::find_if(calls_.begin(), calls_.end(),
                           [&](const RecordedCall& c) { return c.name == name; });
    if (it == calls_.end()) {
      std::vector<std::string> names;
      for (const RecordedCall& call : calls_) names.push_back(call.name);
      return fail(fmt::format("the recorded run made no call {} (it made {}: {})", name,
                              calls_.size(), fmt::join(names, ", ")));
    }
    std::size_t index = static_cast<std::size_t>(it - calls_.begin());
    if (it->stage != request.stage)
      return fail(fmt::format("the recorded call {} was stage {}, not {}", name, it->stage, stage));
    if (used_[index]) return fail(fmt::format("the recorded call {} was already replayed", name));
    used_[index] = true;
    return index;
  }
  for (std::size_t i = 0; i < calls_.size(); ++i) {
    if (used_[i]) continue;
    if (calls_[i].stage != request.stage)
      return fail(
          fmt::format("the next recorded call, {}, was stage {}", calls_[i].name, calls_[i].stage));
    used_[i] = true;
    return i;
  }
  return fail(fmt::format("out of recorded calls (all {} were replayed)", calls_.size()));
}

util::Result<ChatReply> ReplayProvider::chat(const ChatRequest& request) {
  auto index = take(request);
  Transcript transcript{
      "replay", model_, request.stage, "replay: " + run_dir_.string(), false, json::object(), {},
      {},       1};
  json messages = json::array();
  for (const Message& message : request.messages)
    messages.push_back({{"role", message.role}, {"content", message.content}});
  transcript.request = {{"messages", messages}, {"model", model_}};
  util::Result<ChatReply> result;
  if (!index) {
    result = std::unexpected(index.error());
  } else {
    const RecordedCall& call = calls_[*index];
    if (std::string where = first_difference(request.messages, call.messages); !where.empty())
      spdlog::warn(
          "replay: the prompt of {} differs from the recorded one ({}); answering with "
          "the recorded reply",
          call.name, where);
    transcript.request["replayed_from"] = call.name;
    if (call.reply)
      result = *call.reply;
    else
      result = util::fail("failed to replay {} (stage {}): the recorded call {} failed: {}",
                          run_dir_.string(), request.stage, call.name, call.error);
  }
  if (result) {
    transcript.reply = *result;
    if (ledger_) ledger_->record(request.stage, *result);
  } else {
    transcript.error = result.error().message;
    if (ledger_) ledger_->record_failure(request.stage);
  }
  if (!request.transcript_path.empty())
    if (auto written = write_transcript(request.transcript_path, transcript, ""); !written)
      spdlog::warn("{}", written.error().message);
  return result;
}

}  // namespace kforge::llm

#include "llm/transcript.h"

#include <fstream>
#include <system_error>

namespace kforge::llm {

std::string redact(std::string text, std::string_view secret) {
  if (secret.size() < 8) return text;
  for (std::size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + 10)) {
    text.replace(at, secret.size(), "[redacted]");  // 10 characters
  }
  return text;
}

std::string transcript_json(const Transcript& transcript, std::string_view secret) {
  nlohmann::json out = {{"provider", transcript.provider}, {"model", transcript.model},
                        {"stage", transcript.stage},       {"url", transcript.url},
                        {"stream", transcript.stream},     {"attempts", transcript.attempts},
                        {"request", transcript.request}};
  if (transcript.reply) {
    const ChatReply& reply = *transcript.reply;
    out["reply"] = {{"content", reply.content},
                    {"reasoning", reply.reasoning},
                    {"finish_reason", reply.finish_reason},
                    {"truncated", reply.truncated},
                    {"model", reply.model},
                    {"usage",
                     {{"prompt_tokens", reply.usage.prompt_tokens},
                      {"completion_tokens", reply.usage.completion_tokens},
                      {"reasoning_tokens", reply.usage.reasoning_tokens},
                      {"cached_tokens", reply.usage.cached_tokens}}},
                    {"latency_s", reply.latency_s},
                    {"cost_usd", reply.cost_usd},
                    {"late", transcript.late}};
  } else {
    out["reply"] = nullptr;
  }
  if (!transcript.error.empty()) out["error"] = transcript.error;
  bool eventful =
      transcript.attempt_log.size() > 1 ||
      (transcript.attempt_log.size() == 1 && transcript.attempt_log[0].outcome != "reply");
  if (eventful) {
    nlohmann::json log = nlohmann::json::array();
    for (const AttemptRecord& a : transcript.attempt_log) {
      nlohmann::json entry = {{"attempt", a.number},  {"outcome", a.outcome},
                              {"error", a.error},     {"started_s", a.started_s},
                              {"ended_s", a.ended_s}, {"timed_out", a.timed_out}};
      if (!a.partial.empty())
        entry["partial"] = {{"content", a.partial.content},
                            {"reasoning", a.partial.reasoning},
                            {"completion_tokens", a.partial.completion_tokens}};
      log.push_back(std::move(entry));
    }
    out["attempt_log"] = std::move(log);
  }
  return redact(out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace), secret);
}

util::Result<void> write_transcript(const std::filesystem::path& path, const Transcript& transcript,
                                    std::string_view secret) {
  return write_transcript(path, transcript, std::vector<std::string>{std::string(secret)});
}

util::Result<void> write_transcript(const std::filesystem::path& path, const Transcript& transcript,
                                    const std::vector<std::string>& secrets) {
  std::error_code error;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), error);
  if (error) return util::fail("failed to write transcript {}: {}", path.string(), error.message());
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    std::string text = transcript_json(transcript, "");
    for (const std::string& secret : secrets) text = redact(std::move(text), secret);
    out << text << '\n';
    if (!out) return util::fail("failed to write transcript {}: write failed", path.string());
  }
  std::filesystem::rename(temporary, path, error);
  if (error) return util::fail("failed to write transcript {}: {}", path.string(), error.message());
  return {};
}

}  // namespace kforge::llm

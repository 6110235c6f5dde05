#include "store/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include "store/json_codec.h"

namespace kforge::store {

using nlohmann::json;

util::Result<std::unique_ptr<Journal>> Journal::open(const std::filesystem::path& file) {
  auto journal = std::make_unique<Journal>();
  journal->file_ = file;
  std::ifstream in(file);
  std::string line;
  while (in && std::getline(in, line)) {
    json entry = json::parse(line, nullptr, false);
    if (entry.is_discarded() || !entry.is_object()) continue;  // cut short by a kill
    std::string kind = entry.value("kind", "");
    std::string key = entry.value("key", "");
    if (kind == "chat") {
      auto reply = reply_from_json(entry.value("reply", json::object()));
      if (reply) journal->chats_[key] = *reply;
    } else if (kind == "evaluation") {
      auto evaluation = evaluation_from_json(entry.value("evaluation", json::object()));
      if (evaluation) journal->evaluations_[key] = *evaluation;
    } else if (kind == "analysis") {
      auto report = report_from_json(entry.value("report", json::object()));
      if (report) journal->analyses_[key] = *report;
    } else if (kind == "candidate") {
      journal->candidates_[key] = entry.value("id", 0);
    } else {
      continue;
    }
    ++journal->loaded_;
  }
  return journal;
}

std::optional<llm::ChatReply> Journal::chat(std::string_view key) const {
  std::lock_guard lock(mutex_);
  auto it = chats_.find(key);
  return it == chats_.end() ? std::nullopt : std::optional(it->second);
}

std::optional<eval::Evaluation> Journal::evaluation(std::string_view key) const {
  std::lock_guard lock(mutex_);
  auto it = evaluations_.find(key);
  return it == evaluations_.end() ? std::nullopt : std::optional(it->second);
}

std::optional<analysis::Report> Journal::analysis(std::string_view key) const {
  std::lock_guard lock(mutex_);
  auto it = analyses_.find(key);
  return it == analyses_.end() ? std::nullopt : std::optional(it->second);
}

std::optional<int> Journal::candidate_id(std::string_view key) const {
  std::lock_guard lock(mutex_);
  auto it = candidates_.find(key);
  return it == candidates_.end() ? std::nullopt : std::optional(it->second);
}

int Journal::max_candidate_id() const {
  std::lock_guard lock(mutex_);
  int max = 0;
  for (const auto& [key, id] : candidates_) max = std::max(max, id);
  return max;
}

util::Result<void> Journal::append(const std::string& line) {
  // O_APPEND + one write per line + fsync: a kill leaves whole lines and at most one torn last
  // line, which open() skips.
  int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return util::fail("failed to write journal {}: cannot open", file_.string());
  std::string data = line + "\n";
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n <= 0) {
      ::close(fd);
      return util::fail("failed to write journal {}: write failed", file_.string());
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  return {};
}

util::Result<void> Journal::record_chat(std::string_view key, std::string_view stage,
                                        const llm::ChatReply& reply) {
  std::lock_guard lock(mutex_);
  chats_[std::string(key)] = reply;
  return append(
      json{{"kind", "chat"}, {"key", key}, {"stage", stage}, {"reply", to_json(reply)}}.dump(
          -1, ' ', false, nlohmann::json::error_handler_t::replace));
}

util::Result<void> Journal::record_evaluation(std::string_view key,
                                              const eval::Evaluation& evaluation) {
  std::lock_guard lock(mutex_);
  evaluations_[std::string(key)] = evaluation;
  return append(
      json{{"kind", "evaluation"}, {"key", key}, {"evaluation", to_json(evaluation)}}.dump(
          -1, ' ', false, nlohmann::json::error_handler_t::replace));
}

util::Result<void> Journal::record_analysis(std::string_view key, const analysis::Report& report) {
  std::lock_guard lock(mutex_);
  analyses_[std::string(key)] = report;
  return append(json{{"kind", "analysis"}, {"key", key}, {"report", to_json(report)}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace));
}

util::Result<void> Journal::record_candidate(std::string_view key, int id, std::string_view stage) {
  std::lock_guard lock(mutex_);
  candidates_[std::string(key)] = id;
  return append(json{{"kind", "candidate"}, {"key", key}, {"id", id}, {"stage", stage}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace kforge::store

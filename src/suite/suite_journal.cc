#include "suite/suite_journal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

namespace kforge::suite {

namespace {

using nlohmann::json;

/// Parses one journal line into the config or a task result; nullopt for a torn or foreign line.
void load_line(const std::string& line, std::optional<SuiteConfig>& config,
               std::map<std::string, TaskResult>& results) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return;
  auto kind = j.find("kind");
  if (kind == j.end() || !kind->is_string()) return;
  if (*kind == "config" && j.contains("config")) {
    if (auto c = decode_config(j["config"].dump()); c && !config) config = std::move(*c);
  } else if (*kind == "task" && j.contains("result")) {
    if (auto r = decode_task_result(j["result"].dump())) results[r->id] = std::move(*r);
  }
}

util::Result<void> load_file(const std::filesystem::path& file, std::optional<SuiteConfig>& config,
                             std::map<std::string, TaskResult>& results) {
  std::ifstream in(file);
  if (!in) return util::fail("failed to read suite journal {}: cannot open", file.string());
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) load_line(line, config, results);
  return {};
}

}  // namespace

std::string journal_name(int shards, int shard) {
  if (shards <= 1) return "journal.jsonl";
  return fmt::format("journal.shard-{}-of-{}.jsonl", shard, shards);
}

util::Result<std::unique_ptr<SuiteJournal>> SuiteJournal::open(const std::filesystem::path& file) {
  std::unique_ptr<SuiteJournal> journal(new SuiteJournal());
  journal->file_ = file;
  std::error_code error;
  if (std::filesystem::exists(file, error)) {
    if (auto ok = load_file(file, journal->config_, journal->results_); !ok)
      return std::unexpected(ok.error());
  }
  return journal;
}

std::map<std::string, TaskResult> SuiteJournal::results() const {
  std::lock_guard lock(mutex_);
  return results_;
}

bool SuiteJournal::has(const std::string& task_id) const {
  std::lock_guard lock(mutex_);
  return results_.contains(task_id);
}

util::Result<void> SuiteJournal::record_config(const SuiteConfig& config) {
  if (auto ok = append(R"({"kind":"config","config":)" + encode_config(config) + "}"); !ok)
    return ok;
  std::lock_guard lock(mutex_);
  config_ = config;
  return {};
}

util::Result<void> SuiteJournal::record_task(const TaskResult& result) {
  if (auto ok = append(R"({"kind":"task","result":)" + encode_task_result(result) + "}"); !ok)
    return ok;
  std::lock_guard lock(mutex_);
  results_[result.id] = result;
  return {};
}

util::Result<void> SuiteJournal::append(const std::string& line) {
  std::lock_guard lock(mutex_);
  int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return util::fail("failed to write suite journal {}: {}", file_.string(), std::strerror(errno));
  // A line torn by an earlier kill must not swallow this one: start on a fresh line.
  std::string text = line + "\n";
  if (::lseek(fd, 0, SEEK_END) > 0) {
    char last = 0;
    int rd = ::open(file_.c_str(), O_RDONLY | O_CLOEXEC);
    if (rd >= 0) {
      off_t size = ::lseek(rd, 0, SEEK_END);
      if (size > 0 && ::pread(rd, &last, 1, size - 1) == 1 && last != '\n') text = "\n" + text;
      ::close(rd);
    }
  }
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int code = errno;
      ::close(fd);
      return util::fail("failed to write suite journal {}: {}", file_.string(),
                        std::strerror(code));
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  return {};
}

util::Result<SuiteJournals> read_suite_journals(const std::filesystem::path& dir) {
  SuiteJournals out;
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error))
    return util::fail("failed to read suite {}: not a directory", dir.string());
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.starts_with("journal") && name.ends_with(".jsonl"))
      out.files.push_back(entry.path());
  }
  // journal.jsonl first, then the shards in name order.
  std::sort(out.files.begin(), out.files.end(), [](const auto& a, const auto& b) {
    bool a_main = a.filename() == "journal.jsonl", b_main = b.filename() == "journal.jsonl";
    if (a_main != b_main) return a_main;
    return a.filename().string() < b.filename().string();
  });
  if (out.files.empty()) return util::fail("failed to read suite {}: no journal", dir.string());
  for (const auto& file : out.files) {
    std::optional<SuiteConfig> config;
    std::map<std::string, TaskResult> results;
    if (auto ok = load_file(file, config, results); !ok) return std::unexpected(ok.error());
    if (config && out.config && config->task_ids != out.config->task_ids)
      out.mismatched.push_back(file.filename().string());
    if (!out.config) out.config = config;
    for (auto& [id, result] : results) {
      if (out.results.contains(id)) {
        out.duplicates.push_back(id);
        continue;
      }
      out.results.emplace(id, std::move(result));
    }
  }
  return out;
}

}  // namespace kforge::suite

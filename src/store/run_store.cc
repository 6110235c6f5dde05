#include "store/run_store.h"

#include <fmt/format.h>

#include <ctime>
#include <fstream>
#include <sstream>

#include "store/json_codec.h"
#include "util/file_text.h"

namespace kforge::store {

using nlohmann::json;

std::string safe_name(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    out += ok ? c : '-';
  }
  return out.empty() ? "unnamed" : out;
}

std::string iso_time(std::chrono::system_clock::time_point time) {
  std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

util::Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  std::filesystem::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return util::fail("failed to write {}: cannot open", path.string());
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) return util::fail("failed to write {}: write failed", path.string());
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) return util::fail("failed to write {}: {}", path.string(), ec.message());
  return {};
}

util::Result<std::unique_ptr<RunStore>> RunStore::create(
    const std::filesystem::path& runs_dir, std::string_view task, std::string_view provider,
    std::string_view model, std::chrono::system_clock::time_point now) {
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
  std::string base =
      fmt::format("{}_{}_{}_{}", stamp, safe_name(task), safe_name(provider), safe_name(model));
  std::error_code ec;
  std::filesystem::create_directories(runs_dir, ec);
  if (ec) return util::fail("failed to create runs folder {}: {}", runs_dir.string(), ec.message());
  std::filesystem::path dir = runs_dir / base;
  for (int suffix = 2; std::filesystem::exists(dir); ++suffix)
    dir = runs_dir / fmt::format("{}_{}", base, suffix);
  for (const char* sub : {"candidates", "transcripts"}) {
    std::filesystem::create_directories(dir / sub, ec);
    if (ec) return util::fail("failed to create run folder {}: {}", dir.string(), ec.message());
  }
  return open(dir);
}

util::Result<std::unique_ptr<RunStore>> RunStore::open(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return util::fail("failed to open run {}: not a folder", dir.string());
  for (const char* sub : {"candidates", "transcripts"})
    std::filesystem::create_directories(dir / sub, ec);
  auto store = std::unique_ptr<RunStore>(new RunStore());
  store->dir_ = std::filesystem::absolute(dir);
  auto journal = Journal::open(store->dir_ / "journal.jsonl");
  if (!journal) return std::unexpected(journal.error());
  store->journal_ = std::move(*journal);
  return store;
}

std::filesystem::path RunStore::candidate_path(int id, std::string_view stage) const {
  return dir_ / "candidates" / fmt::format("{}_{}.py", id, stage);
}

std::filesystem::path RunStore::transcript_path(std::string_view name) const {
  return dir_ / "transcripts" / fmt::format("{}.json", name);
}

util::Result<std::string> RunStore::read_file(const std::filesystem::path& relative) const {
  auto text = util::read_file(dir_ / relative);
  if (!text) return util::fail("failed to read {}: cannot open", (dir_ / relative).string());
  return text;
}

util::Result<void> RunStore::write_file(const std::filesystem::path& relative,
                                        std::string_view text) {
  return write_file_atomically(dir_ / relative, text);
}

util::Result<void> RunStore::write_candidate_source(int id, std::string_view stage,
                                                    std::string_view source) {
  return write_file_atomically(candidate_path(id, stage), source);
}

util::Result<void> RunStore::write_candidate_record(
    const CandidateRecord& record, const eval::Evaluation& evaluation,
    const std::optional<analysis::Report>& report,
    const std::map<std::string, std::string>& diagnosis) {
  RunRecord one;
  one.candidates.push_back(record);
  json body = to_json(one)["candidates"][0];
  body["evaluation"] = to_json(evaluation);
  body["analysis"] = report ? to_json(*report) : json(nullptr);
  body["diagnosis"] = diagnosis.empty() ? json(nullptr) : json(diagnosis);
  std::filesystem::path path = candidate_path(record.id, record.stage);
  path.replace_extension(".json");
  return write_file_atomically(
      path, body.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

util::Result<eval::Evaluation> RunStore::read_candidate_evaluation(
    const CandidateRecord& record) const {
  std::filesystem::path path = dir_ / record.file;
  path.replace_extension(".json");
  auto text = util::read_file(path);
  if (!text) return util::fail("failed to read {}: cannot open", path.string());
  json parsed = json::parse(*text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object())
    return util::fail("failed to read {}: invalid JSON", path.string());
  auto evaluation = evaluation_from_json(parsed.value("evaluation", json()));
  if (!evaluation)
    return std::unexpected(evaluation.error().context("failed to read {}", path.string()));
  return evaluation;
}

util::Result<void> RunStore::write_run(const RunRecord& run) {
  return write_file_atomically(
      dir_ / "run.json",
      to_json(run).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

util::Result<RunRecord> RunStore::read_run() const {
  return read_run_record(dir_);
}

util::Result<RunRecord> read_run_record(const std::filesystem::path& dir) {
  const std::filesystem::path dir_ = dir;
  auto text = util::read_file(dir_ / "run.json");
  if (!text) return util::fail("failed to read {}: cannot open", (dir_ / "run.json").string());
  json parsed = json::parse(*text, nullptr, false);
  if (parsed.is_discarded())
    return util::fail("failed to read {}: invalid JSON", (dir_ / "run.json").string());
  auto run = run_from_json(parsed);
  if (!run)
    return std::unexpected(run.error().context("failed to read {}", (dir_ / "run.json").string()));
  return run;
}

util::Result<void> RunStore::write_best(std::string_view source) {
  return write_file_atomically(dir_ / "best.py", source);
}

void RunStore::append_console(std::string_view line) {
  std::lock_guard lock(console_mutex_);
  std::ofstream out(dir_ / "console.log", std::ios::app);
  out << line << '\n';
}

}  // namespace kforge::store

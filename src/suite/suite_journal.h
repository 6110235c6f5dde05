#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "suite/suite_record.h"
#include "util/error.h"

namespace kforge::suite {

/// A suite's memory, one JSON line per fact, each written and fsync'd before the suite moves on:
/// first the configuration, then one line per finished task. It is the suite's only state:
/// suite.json and the reports are derived from it, so a suite killed at any point resumes from
/// here (a task with a line is never done again; one without is done again, from its run
/// directory's own journal for `suite run`). Each shard writes its own file
/// (journal_name), so shards may share one suite directory on a shared file system.
///
/// A line cut short by a kill is ignored on load. Thread-safe.
class SuiteJournal {
 public:
  /// Opens (creating when absent) `file` and loads what it holds.
  static util::Result<std::unique_ptr<SuiteJournal>> open(const std::filesystem::path& file);

  const std::optional<SuiteConfig>& config() const { return config_; }
  /// The finished tasks found on load and recorded since, by task id.
  std::map<std::string, TaskResult> results() const;
  bool has(const std::string& task_id) const;

  util::Result<void> record_config(const SuiteConfig& config);
  util::Result<void> record_task(const TaskResult& result);

 private:
  util::Result<void> append(const std::string& line);

  std::filesystem::path file_;
  mutable std::mutex mutex_;
  std::optional<SuiteConfig> config_;
  std::map<std::string, TaskResult> results_;
};

/// "journal.jsonl" for an unsharded suite, "journal.shard-<I>-of-<N>.jsonl" for shard I of N.
std::string journal_name(int shards, int shard);

/// Every journal of a suite directory, read together (for merge and reports).
struct SuiteJournals {
  /// The first configuration found (journal.jsonl first, then shards in name order).
  std::optional<SuiteConfig> config;
  /// Finished tasks of every journal; a task found in two journals is kept once (the first) and
  /// named in `duplicates`.
  std::map<std::string, TaskResult> results;
  std::vector<std::string> duplicates;
  /// Journals whose configuration lists another task set than the first.
  std::vector<std::string> mismatched;
  std::vector<std::filesystem::path> files;
};

util::Result<SuiteJournals> read_suite_journals(const std::filesystem::path& dir);

}  // namespace kforge::suite

#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "store/run_record.h"
#include "util/error.h"

struct sqlite3;

namespace kforge::store {

/// One row of the runs table, as listed across runs.
struct IndexedRun {
  std::string id;
  std::string dir;
  std::string task;
  std::string provider;
  std::string model;
  std::string device;
  std::string state;
  std::string started_at;
  std::optional<int> best_id;
  std::optional<double> best_score;
  std::optional<double> best_latency_ms;
  long long total_tokens = 0;
  int candidates = 0;
};

/// runs/index.sqlite: a table of runs and a table of candidates across every run, so that
/// leaderboards and the library can query history without reading every run.json. Recording a
/// run replaces its previous rows (a resumed run is recorded again). Several kforge processes
/// may record at once (SQLite locking, a busy time-out of 10 s).
class RunIndex {
 public:
  static util::Result<std::unique_ptr<RunIndex>> open(const std::filesystem::path& file);
  ~RunIndex();
  RunIndex(const RunIndex&) = delete;
  RunIndex& operator=(const RunIndex&) = delete;

  util::Result<void> record(const RunRecord& run, const std::filesystem::path& dir);
  util::Result<std::vector<IndexedRun>> runs() const;
  /// Candidates of one run as (id, stage, status, score) rows, ordered by id.
  util::Result<std::vector<CandidateRecord>> candidates(const std::string& run_id) const;

 private:
  RunIndex() = default;
  util::Result<void> exec(const char* sql);
  sqlite3* db_ = nullptr;
  std::filesystem::path file_;
};

}  // namespace kforge::store

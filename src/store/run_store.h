#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/analysis.h"
#include "eval/evaluation.h"
#include "store/journal.h"
#include "store/run_record.h"
#include "util/error.h"

namespace kforge::store {

/// One run's directory (docs: DESIGN.md "Run directory"):
///
///     runs/<YYYYMMDD_HHMMSS>_<task>_<provider>_<model>/
///       run.json  console.log  journal.jsonl  best.py  summary.md  report.html
///       candidates/<n>_<stage>.py   candidates/<n>_<stage>.json
///       transcripts/<n>_<stage>.json   transcripts/analysis<k>.json
///
/// Files are written whole (temporary file, then rename) except the append-only console.log
/// and journal.jsonl. Thread-safe. Nothing here ever receives a secret.
class RunStore {
 public:
  /// Creates a fresh directory under `runs_dir`. The name's parts are made filename-safe;
  /// a clash with an existing directory gets a numeric suffix.
  static util::Result<std::unique_ptr<RunStore>> create(const std::filesystem::path& runs_dir,
                                                        std::string_view task,
                                                        std::string_view provider,
                                                        std::string_view model,
                                                        std::chrono::system_clock::time_point now);
  /// Opens an existing run directory (for --resume and reports).
  static util::Result<std::unique_ptr<RunStore>> open(const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return dir_; }
  std::string id() const { return dir_.filename().string(); }
  Journal& journal() { return *journal_; }

  /// candidates/<id>_<stage>.py (absolute).
  std::filesystem::path candidate_path(int id, std::string_view stage) const;
  /// transcripts/<name>.json (absolute).
  std::filesystem::path transcript_path(std::string_view name) const;

  util::Result<void> write_candidate_source(int id, std::string_view stage,
                                            std::string_view source);
  /// candidates/<id>_<stage>.json: the record, the full evaluation and the analysis report.
  util::Result<void> write_candidate_record(const CandidateRecord& record,
                                            const eval::Evaluation& evaluation,
                                            const std::optional<analysis::Report>& report,
                                            const std::map<std::string, std::string>& diagnosis);
  /// The whole evaluation kept beside candidate `record`'s file (its candidates/<n>_<stage>.json,
  /// as write_candidate_record wrote it). Errors: no such file, or no evaluation in it.
  util::Result<eval::Evaluation> read_candidate_evaluation(const CandidateRecord& record) const;
  util::Result<void> write_run(const RunRecord& run);
  util::Result<RunRecord> read_run() const;
  util::Result<void> write_best(std::string_view source);
  /// Appends one line to console.log.
  void append_console(std::string_view line);
  /// Reads `relative` inside the run directory (a candidate file).
  util::Result<std::string> read_file(const std::filesystem::path& relative) const;
  /// Writes `text` to `relative` inside the run directory, whole.
  util::Result<void> write_file(const std::filesystem::path& relative, std::string_view text);

 private:
  std::filesystem::path dir_;
  std::unique_ptr<Journal> journal_;
  std::mutex console_mutex_;
};

/// Reads `dir`/run.json without opening the run (a recorded run may be read-only).
util::Result<RunRecord> read_run_record(const std::filesystem::path& dir);

/// "39_GRU" from "tasks/39_GRU.py"; characters other than [A-Za-z0-9._-] become '-'.
std::string safe_name(std::string_view text);

/// ISO 8601 UTC with seconds: "2026-11-21T10:15:00Z".
std::string iso_time(std::chrono::system_clock::time_point time);

/// Writes `text` to `path` through a temporary file and a rename.
util::Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace kforge::store

#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/analysis.h"
#include "eval/evaluation.h"
#include "llm/provider.h"
#include "util/error.h"

namespace kforge::store {

/// The run's memory of finished steps, one JSON line each in journal.jsonl, written (and
/// flushed) before the pipeline moves on. `kforge run --resume` replays it: a model call or
/// evaluation whose key is in the journal is answered from it instead of being redone.
/// Keys are the pipeline's lineage keys ("seed2", "seed2.r1", "eval:seed2.r1", …), which do not
/// depend on timing, so a resumed run asks for the same keys in the same roles.
///
/// A line cut short by a kill is ignored on load. Thread-safe.
class Journal {
 public:
  /// Opens (creating when absent) the journal file and loads what it holds.
  static util::Result<std::unique_ptr<Journal>> open(const std::filesystem::path& file);

  std::optional<llm::ChatReply> chat(std::string_view key) const;
  std::optional<eval::Evaluation> evaluation(std::string_view key) const;
  std::optional<analysis::Report> analysis(std::string_view key) const;
  /// The candidate number given to `key`, when it was given one.
  std::optional<int> candidate_id(std::string_view key) const;
  /// The highest candidate number in the journal (0 when none).
  int max_candidate_id() const;
  /// How many entries were loaded from disk when the journal was opened.
  std::size_t loaded_entries() const { return loaded_; }

  util::Result<void> record_chat(std::string_view key, std::string_view stage,
                                 const llm::ChatReply& reply);
  util::Result<void> record_evaluation(std::string_view key, const eval::Evaluation& evaluation);
  util::Result<void> record_analysis(std::string_view key, const analysis::Report& report);
  util::Result<void> record_candidate(std::string_view key, int id, std::string_view stage);

 private:
  util::Result<void> append(const std::string& line);

  std::filesystem::path file_;
  mutable std::mutex mutex_;
  std::map<std::string, llm::ChatReply, std::less<>> chats_;
  std::map<std::string, eval::Evaluation, std::less<>> evaluations_;
  std::map<std::string, analysis::Report, std::less<>> analyses_;
  std::map<std::string, int, std::less<>> candidates_;
  std::size_t loaded_ = 0;
};

}  // namespace kforge::store

#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "analysis/analysis.h"
#include "eval/evaluation.h"
#include "llm/provider.h"
#include "pipeline/reply_parser.h"

namespace kforge::pipeline {

/// One candidate of a run: where it came from, its source, and what evaluation and analysis
/// said about it.
struct Candidate {
  int id = 0;
  /// seed | repair | optimise | tune_grid | tune_tiling | tune_memory
  std::string stage;
  std::optional<int> parent;
  /// Lineage key, stable across resumes: "seed2", "seed2.r1", "optimise2", "tune_grid.r1".
  std::string key;
  /// The seed chain it descends from (1-based); 0 for tuning candidates.
  int lineage = 0;
  std::filesystem::path path;
  std::string source;
  eval::Evaluation evaluation;
  std::optional<analysis::Report> report;
  /// The algorithm analysis this candidate was written from (optimise stage and its repairs).
  std::optional<AnalysisDiagnosis> diagnosis;
  llm::Usage usage;
  /// False when the reply held no code: the evaluation is then made up here (syntax_error with
  /// the extraction error) and the worker is not asked.
  bool extracted = true;

  bool verified() const { return evaluation.status == eval::Status::kOk; }
  /// max_abs_err, or +infinity when unknown or not finite (for tie-breaking).
  double error() const;
};

/// Whether `challenger` should replace `best` as the run's best. Only verified candidates
/// compete. A measured score beats no score; a higher score wins; on equal scores (or both
/// unmeasured, as in CPU mode) the lower max_abs_err wins; a full tie keeps `best`, so the best
/// never changes without a reason and never regresses.
bool is_better(const Candidate& challenger, const Candidate& best);

}  // namespace kforge::pipeline

#pragma once

// CONTRACT (kept stable for src/pipeline and src/cli): what the rest of kforge sees of analysis.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "eval/worker_pool.h"
#include "util/error.h"
#include "util/source_location.h"

namespace kforge::analysis {

enum class Severity { kNote, kWarning, kError };

/// One finding about a candidate, printed like a compiler diagnostic
/// (`file:line: severity: message`) and carrying a fix hint written for a repair prompt.
struct Diagnostic {
  std::string rule;  // e.g. "python-time-loop", "missing-grid-barrier"
  Severity severity = Severity::kWarning;
  util::SourceLocation location;
  std::string message;
  std::string fix_hint;
};

/// Everything analysis concludes about one candidate.
struct Report {
  std::vector<Diagnostic> diagnostics;
  /// persistent_recurrent | elementwise | reduction | gemm | conv | mixed | unknown
  std::string kernel_type = "unknown";
  bool persistent = false;
  std::optional<int> launches_per_forward;  // measured, when runtime analysis ran
  bool has_errors() const;
};

struct AnalyzeOptions {
  std::optional<std::filesystem::path> task;
  bool runtime = false;  // also run one forward under the profiler
  eval::Device device = eval::Device::kCuda;
  bool shrink = false;
  double timeout_s = eval::kDefaultEvalSettings.inspect_timeout_s;
};

/// Asks a worker for the candidate's facts and applies the rules (src/analysis/rules.h).
/// Errors when the worker cannot serve the request or its reply is malformed; a candidate that
/// fails to parse is a Report with a syntax-error diagnostic.
util::Result<Report> analyze_candidate(eval::WorkerPool& pool,
                                       const std::filesystem::path& candidate,
                                       const AnalyzeOptions& options);

}  // namespace kforge::analysis

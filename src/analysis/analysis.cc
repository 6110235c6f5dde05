#include "analysis/analysis.h"

#include <algorithm>

#include "analysis/facts.h"
#include "analysis/rules.h"

namespace kforge::analysis {

bool Report::has_errors() const {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

util::Result<Report> analyze_candidate(eval::WorkerPool& pool,
                                       const std::filesystem::path& candidate,
                                       const AnalyzeOptions& options) {
  auto reply = pool.analyze({.candidate = candidate,
                             .task = options.task,
                             .device = options.device,
                             .shrink = options.shrink,
                             .runtime = options.runtime,
                             .timeout_s = options.timeout_s});
  if (!reply)
    return std::unexpected(reply.error().context("failed to analyze {}", candidate.string()));
  auto facts = parse_facts(*reply, "worker reply");
  if (!facts)
    return std::unexpected(facts.error().context("failed to analyze {}", candidate.string()));
  return analyze_facts(*facts);
}

}  // namespace kforge::analysis

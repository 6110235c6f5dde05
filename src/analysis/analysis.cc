#include "analysis/analysis.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "analysis/facts.h"
#include "analysis/rules.h"

namespace kforge::analysis {

bool Report::has_errors() const {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

std::string analyze_request_json(const std::filesystem::path& candidate,
                                 const AnalyzeOptions& options) {
  nlohmann::json request = {
      {"op", "analyze"},
      {"candidate_path", candidate.string()},
      {"runtime", options.runtime},
      {"device", options.device == eval::Device::kCpu ? "cpu" : "cuda"},
      {"shrink", options.shrink},
  };
  if (options.task) request["task_path"] = options.task->string();
  return request.dump();
}

util::Result<Report> analyze_candidate(eval::WorkerPool& pool,
                                       const std::filesystem::path& candidate,
                                       const AnalyzeOptions& options) {
  auto reply = pool.request(analyze_request_json(candidate, options), options.timeout_s);
  if (!reply)
    return std::unexpected(reply.error().context("failed to analyze {}", candidate.string()));
  auto facts = parse_facts(*reply, "worker reply");
  if (!facts)
    return std::unexpected(facts.error().context("failed to analyze {}", candidate.string()));
  return analyze_facts(*facts);
}

}  // namespace kforge::analysis

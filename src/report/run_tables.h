#pragma once

#include <string>
#include <vector>

#include "store/run_record.h"

namespace kforge::report {

/// The seeds' two tables as text cells, shared by summary.md and report.html so both say the
/// same thing: the timeline (stage, candidate, score, latency, status; on a GPU run with
/// baselines also the speed-up vs the best of eager, torch.compile and CUDA-graph replay) and
/// tokens per stage.
struct RunTables {
  std::vector<std::string> timeline_header;
  std::vector<std::vector<std::string>> timeline;
  std::vector<std::string> tokens_header;
  std::vector<std::vector<std::string>> tokens;  // last row: total
  /// One-line facts: task, model, device, state, best.
  std::vector<std::pair<std::string, std::string>> facts;
  /// `kforge rank`'s re-timing of the correct candidates, fastest first; empty when the run was
  /// never ranked afterwards.
  std::vector<std::string> rank_header;
  std::vector<std::vector<std::string>> rank;
};

RunTables make_tables(const store::RunRecord& run);

/// "1.3696" / "—" for an absent number; `digits` after the point.
std::string cell(const std::optional<double>& value, int digits);
/// 126875 → "126,875".
std::string thousands(long long value);

}  // namespace kforge::report

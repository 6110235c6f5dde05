#pragma once

#include <string>

#include "store/run_record.h"

namespace kforge::report {

/// summary.md: the run's facts, the timeline table (stage, candidate, score, latency, status),
/// tokens per stage, and the run's notable events (analysis verdicts, guard decisions, stops).
std::string render_summary_markdown(const store::RunRecord& run);

}  // namespace kforge::report

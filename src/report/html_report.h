#pragma once

#include <string>

#include "store/run_record.h"

namespace kforge::report {

/// report.html: the same tables as summary.md plus two SVG charts — score per candidate (or
/// max_abs_err on a log scale when the run took no timings) with the PyTorch line at 1.0, and
/// input/output tokens per stage. One self-contained file: no scripts, no external resources.
std::string render_html_report(const store::RunRecord& run);

}  // namespace kforge::report

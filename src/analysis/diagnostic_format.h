#pragma once

// How diagnostics are shown: compiler-style text for people, JSON for programs.

#include <string>
#include <string_view>

#include "analysis/analysis.h"

namespace kforge::analysis {

/// "note" | "warning" | "error".
std::string_view to_string(Severity severity);

/// One diagnostic the way compilers print them:
///
///     cand.py:42: error: message [rule]
///         the source line
///     hint: the fix hint
///
/// `source` is the candidate's text (may be empty: no source line then).
std::string format_diagnostic(const Diagnostic& diagnostic, std::string_view source);

/// "classification: kernel_type=gemm persistent=no launches_per_forward=3 (2 errors, 1 warning)"
std::string format_summary(const Report& report);

/// The whole report as one JSON object text: {"diagnostics": [...], "kernel_type",
/// "persistent", "launches_per_forward", "errors", "warnings"}.
std::string report_to_json(const Report& report);

}  // namespace kforge::analysis

#pragma once

// The rule table: each rule turns facts into diagnostics. One rule per rule_<name>.cc.

#include <string_view>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/facts.h"

namespace kforge::analysis {

/// A rule's check: appends its findings about `facts` to `out`.
using RuleCheck = void (*)(const Facts& facts, std::vector<Diagnostic>& out);

/// One row of the rule table.
struct Rule {
  std::string_view name;     // the Diagnostic::rule it produces, e.g. "python-time-loop"
  std::string_view summary;  // one line for documentation and `kforge analyze --help`
  RuleCheck check;
};

/// Every rule, in the order their diagnostics are reported.
const std::vector<Rule>& rules();

/// Applies every rule and classifies the candidate; no worker involved.
Report analyze_facts(const Facts& facts);

// The checks (one file each).
void check_syntax_error(const Facts& facts, std::vector<Diagnostic>& out);
void check_missing_triton_api(const Facts& facts, std::vector<Diagnostic>& out);
void check_nonconstexpr_arange(const Facts& facts, std::vector<Diagnostic>& out);
void check_tensor_subscript(const Facts& facts, std::vector<Diagnostic>& out);
void check_python_time_loop(const Facts& facts, std::vector<Diagnostic>& out);
void check_launch_count(const Facts& facts, std::vector<Diagnostic>& out);
void check_batch_only_grid(const Facts& facts, std::vector<Diagnostic>& out);
void check_missing_grid_barrier(const Facts& facts, std::vector<Diagnostic>& out);
void check_replaced_operator(const Facts& facts, std::vector<Diagnostic>& out);

/// The candidate's location `line`:`column` (column 0 = the whole line).
util::SourceLocation at(const Facts& facts, int line, int column = 0);

/// Whether `values` holds `value`.
bool contains(const std::vector<std::string>& values, std::string_view value);

}  // namespace kforge::analysis

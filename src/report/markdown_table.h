#pragma once

// Markdown tables, for summary.md of a run and of a suite.

#include <string>
#include <string_view>
#include <vector>

namespace kforge::report {

/// `text` as one Markdown table cell: '|' escaped, line breaks as spaces.
std::string markdown_cell(std::string_view text);

/// A Markdown table: the header row, its separator, then one line per row; every cell (header
/// too) through markdown_cell.
std::string markdown_table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows);

}  // namespace kforge::report

#include "report/markdown_table.h"

namespace kforge::report {

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string markdown_table(const std::vector<std::string>& header,
                           const std::vector<std::vector<std::string>>& rows) {
  std::string out = "|";
  for (const std::string& h : header) out += " " + markdown_cell(h) + " |";
  out += "\n|";
  for (std::size_t i = 0; i < header.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& row : rows) {
    out += "|";
    for (const std::string& c : row) out += " " + markdown_cell(c) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace kforge::report

#include "report/summary_markdown.h"

#include <fmt/format.h>

#include "report/run_tables.h"

namespace kforge::report {

namespace {

std::string escape_cell(std::string text) {
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

std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string out = "|";
  for (const std::string& h : header) out += " " + h + " |";
  out += "\n|";
  for (std::size_t i = 0; i < header.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& row : rows) {
    out += "|";
    for (const std::string& c : row) out += " " + escape_cell(c) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace

std::string render_summary_markdown(const store::RunRecord& run) {
  RunTables t = make_tables(run);
  std::string out = fmt::format("# kforge run {}\n\n", run.id);
  for (const auto& [name, value] : t.facts) out += fmt::format("- **{}**: {}\n", name, value);
  out += "\n## Timeline\n\n" + table(t.timeline_header, t.timeline);
  if (!t.rank.empty()) out += "\n## Ranking\n\n" + table(t.rank_header, t.rank);
  out += "\n## Tokens per stage\n\n" + table(t.tokens_header, t.tokens);
  if (!run.phases.empty()) {
    out += "\n## Stages run\n\n";
    for (std::size_t i = 0; i < run.phases.size(); ++i) out += (i ? " → " : "") + run.phases[i];
    out += "\n";
  }
  if (!run.log.empty()) {
    out += "\n## Events\n\n";
    for (const std::string& line : run.log) out += "- " + escape_cell(line) + "\n";
  }
  return out;
}

}  // namespace kforge::report

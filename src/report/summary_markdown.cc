#include "report/summary_markdown.h"

#include <fmt/format.h>

#include "report/markdown_table.h"
#include "report/run_tables.h"

namespace kforge::report {

std::string render_summary_markdown(const store::RunRecord& run) {
  RunTables t = make_tables(run);
  std::string out = fmt::format("# kforge run {}\n\n", run.id);
  for (const auto& [name, value] : t.facts) out += fmt::format("- **{}**: {}\n", name, value);
  out += "\n## Timeline\n\n" + markdown_table(t.timeline_header, t.timeline);
  if (!t.rank.empty()) out += "\n## Ranking\n\n" + markdown_table(t.rank_header, t.rank);
  out += "\n## Tokens per stage\n\n" + markdown_table(t.tokens_header, t.tokens);
  if (!run.phases.empty()) {
    out += "\n## Stages run\n\n";
    for (std::size_t i = 0; i < run.phases.size(); ++i) out += (i ? " → " : "") + run.phases[i];
    out += "\n";
  }
  if (!run.log.empty()) {
    out += "\n## Events\n\n";
    for (const std::string& line : run.log) out += "- " + markdown_cell(line) + "\n";
  }
  return out;
}

}  // namespace kforge::report

#include "report/html_report.h"

#include <fmt/format.h>

#include "report/run_tables.h"
#include "report/svg_chart.h"

namespace kforge::report {

namespace {

std::string status_color(const store::CandidateRecord& c) {
  if (c.status == "ok") return "#3a7";
  if (c.status == "wrong_output") return "#e93";
  return "#c44";
}

std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>\n<tr>";
  for (const std::string& h : header) out += "<th>" + escape_html(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const std::string& c : row) {
      std::string text = escape_html(c);
      if (text.starts_with("**best**")) text = "<b>best</b>" + text.substr(8);
      out += "<td>" + text + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

BarChart candidate_chart(const store::RunRecord& run) {
  bool timed = false;
  for (const auto& c : run.candidates) timed = timed || c.score.has_value();
  BarChart chart;
  if (timed) {
    chart.title = "Score per candidate (eager PyTorch latency / candidate latency)";
    chart.y_label = "score";
    chart.reference_line = 1.0;
    chart.reference_label = "PyTorch eager";
  } else {
    chart.title = "max_abs_err per candidate (no timings in this run)";
    chart.y_label = "max_abs_err (log)";
    chart.log_scale = true;
  }
  for (const auto& c : run.candidates) {
    Bar bar;
    bar.label = fmt::format("#{} {}", c.id, c.stage);
    std::optional<double> value = timed ? c.score : c.max_abs_err;
    if (c.status == "ok" && value) bar.segments.push_back({*value, status_color(c)});
    bar.tooltip =
        fmt::format("#{} {}: {} score {} latency {} ms max_abs_err {}", c.id, c.stage, c.status,
                    cell(c.score, 4), cell(c.latency_ms, 3), cell(c.max_abs_err, 8));
    bar.highlight = run.best_id && *run.best_id == c.id;
    chart.bars.push_back(std::move(bar));
  }
  return chart;
}

BarChart token_chart(const store::RunRecord& run) {
  BarChart chart;
  chart.title = "Tokens per stage (input below, output above)";
  chart.y_label = "tokens";
  for (const auto& row : run.tokens) {
    Bar bar;
    bar.label = row.stage;
    bar.segments = {{static_cast<double>(row.prompt_tokens), "#69c"},
                    {static_cast<double>(row.completion_tokens), "#f90"}};
    bar.tooltip = fmt::format("{}: {} calls, {} in + {} out", row.stage, row.calls,
                              thousands(row.prompt_tokens), thousands(row.completion_tokens));
    chart.bars.push_back(std::move(bar));
  }
  return chart;
}

}  // namespace

std::string render_html_report(const store::RunRecord& run) {
  RunTables t = make_tables(run);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>kforge run {}</title>\n<style>\n"
      "body {{ font-family: sans-serif; margin: 2em; color: #222; }}\n"
      "table {{ border-collapse: collapse; margin: 1em 0; }}\n"
      "th, td {{ border: 1px solid #ccc; padding: 4px 8px; text-align: left; font-size: 13px; }}\n"
      "th {{ background: #f3f3f3; }}\n"
      "dt {{ font-weight: bold; float: left; width: 7em; }} dd {{ margin-left: 8em; }}\n"
      "</style>\n</head>\n<body>\n<h1>kforge run {}</h1>\n<dl>\n",
      escape_html(run.id), escape_html(run.id));
  for (const auto& [name, value] : t.facts)
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", escape_html(name), escape_html(value));
  out += "</dl>\n<h2>Timeline</h2>\n";
  out += render_svg(candidate_chart(run));
  out += html_table(t.timeline_header, t.timeline);
  if (!t.rank.empty()) {
    out += "<h2>Ranking</h2>\n";
    out += html_table(t.rank_header, t.rank);
  }
  out += "<h2>Tokens per stage</h2>\n";
  out += render_svg(token_chart(run));
  out += html_table(t.tokens_header, t.tokens);
  if (!run.log.empty()) {
    out += "<h2>Events</h2>\n<ul>\n";
    for (const std::string& line : run.log) out += "<li>" + escape_html(line) + "</li>\n";
    out += "</ul>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace kforge::report

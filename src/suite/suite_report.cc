#include "suite/suite_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "report/line_chart.h"
#include "report/markdown_table.h"
#include "report/svg_chart.h"
#include "store/run_store.h"
#include "suite/fast_p.h"
#include "util/printable.h"

namespace kforge::suite {

namespace {

using nlohmann::json;

constexpr std::string_view kNoTimings = "unranked / no timings";

std::string num(const std::optional<double>& value, int digits) {
  if (!value) return "—";
  if (std::isnan(*value)) return "nan";
  return fmt::format("{:.{}f}", *value, digits);
}

std::string sci(const std::optional<double>& value) {
  if (!value) return "—";
  return fmt::format("{:.2e}", *value);
}

std::string verdict(const std::optional<bool>& pass) {
  if (!pass) return "—";
  return *pass ? "pass" : "fail";
}

std::string fraction_cell(const FastP& f, bool timed) {
  if (f.p > 0 && !timed) return std::string(kNoTimings);
  if (!f.fraction) return "—";
  return fmt::format("{:.3f} ({}/{})", *f.fraction, f.count, f.total);
}

std::string p_label(double p) {
  return fmt::format("fast_{}", p);
}

/// Statuses in the order failures are listed: the worse and the rarer last.
std::map<std::string, std::vector<const TaskResult*>> by_status(const SuiteRecord& record) {
  std::map<std::string, std::vector<const TaskResult*>> groups;
  for (const TaskResult& t : record.tasks) groups[t.status].push_back(&t);
  return groups;
}

std::string status_color(std::string_view status) {
  if (status == "ok") return "#3a7";
  if (status == "missing" || status == "not_run") return "#aaa";
  if (status == "wrong_output") return "#e93";
  if (status == "rejected") return "#a4c";
  return "#c44";
}

const std::map<std::string, std::string>& baseline_colors() {
  static const std::map<std::string, std::string> colors = {
      {"eager", "#1f77b4"}, {"compile", "#d62728"}, {"cuda_graph", "#2ca02c"}};
  return colors;
}

/// The speed-up over the fastest baseline timed for this task.
std::optional<double> best_baseline_speedup(const TaskResult& t) {
  std::optional<double> lowest;
  for (const std::string& b : fast_p_baselines())
    if (auto s = t.speedup(b); s && (!lowest || *s < *lowest)) lowest = s;
  return lowest;
}

struct Tables {
  std::vector<std::pair<std::string, std::string>> facts;
  std::vector<std::string> fast_p_header;
  std::vector<std::vector<std::string>> fast_p;
  std::vector<std::string> tasks_header;
  std::vector<std::vector<std::string>> tasks;
  bool timed = false;
};

Tables make_tables(const SuiteRecord& r) {
  Tables t;
  t.timed = has_timings(r.tasks);
  const SuiteConfig& c = r.config;
  int correct = 0;
  std::int64_t tokens = 0;
  double cost = 0;
  for (const TaskResult& task : r.tasks) {
    correct += task.correct() ? 1 : 0;
    tokens += task.tokens;
    cost += task.cost_usd;
  }
  t.facts.emplace_back("mode",
                       c.mode == "eval" ? "eval (existing candidates)" : "run (pipeline per task)");
  t.facts.emplace_back("tasks", fmt::format("{} ({} correct)", r.tasks.size(), correct));
  if (!c.candidates_dir.empty()) t.facts.emplace_back("candidates", c.candidates_dir);
  if (!c.provider.empty()) t.facts.emplace_back("model", c.provider + " / " + c.model);
  t.facts.emplace_back("device", std::string(eval::device_name(c.settings.device)) +
                                     (c.settings.shrink ? " (shrunk shapes)" : ""));
  if (!c.gpus.empty()) t.facts.emplace_back("gpus", fmt::format("{}", fmt::join(c.gpus, ",")));
  if (c.shards > 1) t.facts.emplace_back("shards", std::to_string(c.shards));
  t.facts.emplace_back("state",
                       r.state + (r.stop_reason.empty() ? "" : " (" + r.stop_reason + ")"));
  if (tokens > 0 || c.mode == "run")
    t.facts.emplace_back("spent", fmt::format("{} tokens, ${:.4f}", tokens, cost));
  if (!t.timed)
    t.facts.emplace_back(
        "timings",
        fmt::format(
            "none ({}): correctness only; fast_p for p > 0 and speed-ups "
            "are {}",
            c.settings.device == eval::Device::kCpu ? "CPU suite" : "no correct task was timed",
            kNoTimings));
  t.fast_p_header = {"p"};
  for (const std::string& b : fast_p_baselines())
    t.fast_p_header.push_back("vs " + baseline_title(b));
  for (double p : fast_p_thresholds()) {
    std::vector<std::string> row = {p_label(p)};
    for (const std::string& b : fast_p_baselines()) {
      bool timed_b = false;
      for (const TaskResult& task : r.tasks) timed_b = timed_b || task.speedup(b).has_value();
      row.push_back(fraction_cell(fast_p(r.tasks, b, p), timed_b));
    }
    t.fast_p.push_back(std::move(row));
  }
  std::vector<std::string> geo = {"geomean speed-up"};
  for (const std::string& b : fast_p_baselines()) {
    GeoMean g = geomean_speedup(r.tasks, b);
    geo.push_back(g.value ? fmt::format("{:.3f}x over {} tasks", *g.value, g.tasks)
                          : std::string(kNoTimings));
  }
  t.fast_p.push_back(std::move(geo));

  t.tasks_header = {"task",        "status",      "calibrated", "kernelbench",
                    "generalizes", "max_abs_err", "best ms",    "eager ms",
                    "compile ms",  "graph ms",    "x eager",    "x compile",
                    "x graph",     "tokens",      "cost $",     "trust reasons"};
  for (const TaskResult& task : r.tasks) {
    std::string status = task.status;
    if (task.samples > 1)
      status += fmt::format(" ({}/{} samples ok)", task.correct_samples, task.samples);
    t.tasks.push_back(
        {task.id, status, verdict(task.pass_calibrated), verdict(task.pass_kernelbench),
         task.generalizes.empty() ? "—" : task.generalizes, sci(task.max_abs_err),
         num(task.best_ms, 3), num(task.eager_ms, 3), num(task.compile_ms, 3),
         num(task.cuda_graph_ms, 3), num(task.speedup("eager"), 2), num(task.speedup("compile"), 2),
         num(task.speedup("cuda_graph"), 2), std::to_string(task.tokens),
         fmt::format("{:.4f}", task.cost_usd),
         task.reasons.empty() ? "" : fmt::format("{}", fmt::join(task.reasons, "; "))});
  }
  return t;
}

std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows, std::string_view cls) {
  std::string out = fmt::format("<table class=\"{}\">\n<tr>", cls);
  for (const auto& h : header) out += "<th>" + report::escape_html(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const auto& cell : row) out += "<td>" + report::escape_html(cell) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

report::LineChart fast_p_chart(const SuiteRecord& r) {
  report::LineChart chart;
  chart.title = "fast_p: fraction of all tasks correct and faster than p x baseline";
  chart.x_label = "p (speed-up threshold)";
  chart.y_label = "fast_p";
  chart.x_marks = {1.0};
  chart.empty_note =
      "fast_p for p > 0: unranked / no timings (" +
      std::string(r.config.settings.device == eval::Device::kCpu ? "CPU suite" : "nothing timed") +
      ")";
  double x_max = 4;
  for (const std::string& b : fast_p_baselines()) {
    report::Series s{baseline_title(b), baseline_colors().at(b), fast_p_curve(r.tasks, b)};
    for (const auto& [x, y] : s.points) x_max = std::max(x_max, x);
    chart.series.push_back(std::move(s));
  }
  chart.x_max = std::ceil(x_max);
  return chart;
}

report::BarChart status_chart(const SuiteRecord& r) {
  report::BarChart chart;
  chart.title = "Tasks by status";
  chart.y_label = "tasks";
  for (const auto& [status, tasks] : by_status(r)) {
    report::Bar bar;
    bar.label = status;
    bar.segments = {{static_cast<double>(tasks.size()), status_color(status)}};
    bar.tooltip = fmt::format("{}: {} tasks", status, tasks.size());
    chart.bars.push_back(std::move(bar));
  }
  return chart;
}

report::BarChart task_chart(const SuiteRecord& r, bool timed) {
  report::BarChart chart;
  chart.log_scale = true;
  if (timed) {
    chart.title = "Speed-up per task over its fastest baseline (log scale)";
    chart.y_label = "speed-up";
    chart.reference_line = 1.0;
    chart.reference_label = "as fast as the best baseline";
  } else {
    chart.title = "max_abs_err per scored task (no timings in this suite; log scale)";
    chart.y_label = "max_abs_err";
  }
  for (const TaskResult& t : r.tasks) {
    if (t.status == "missing" || t.status == "not_run") continue;
    report::Bar bar;
    bar.label = t.id.size() > 14 ? t.id.substr(0, 13) + "…" : t.id;
    std::optional<double> value = timed ? best_baseline_speedup(t) : t.max_abs_err;
    if (t.correct() && value && *value > 0 && std::isfinite(*value))
      bar.segments.push_back({*value, status_color(t.status)});
    bar.tooltip = fmt::format("{}: {}", t.id, t.status);
    chart.bars.push_back(std::move(bar));
  }
  chart.width = std::max(720, 40 + 26 * static_cast<int>(chart.bars.size()));
  return chart;
}

}  // namespace

SuiteRecord assemble_record(const SuiteConfig& config,
                            const std::map<std::string, TaskResult>& results, bool fill_not_run) {
  SuiteRecord record;
  record.config = config;
  for (std::size_t i = 0; i < config.task_ids.size(); ++i) {
    const std::string& id = config.task_ids[i];
    if (auto it = results.find(id); it != results.end()) {
      record.tasks.push_back(it->second);
    } else if (fill_not_run) {
      TaskResult row;
      row.id = id;
      row.task = config.task_paths[i];
      row.status = "not_run";
      row.error_head = "no shard finished this task";
      record.tasks.push_back(std::move(row));
    }
  }
  return record;
}

namespace {

json suite_json(const SuiteRecord& r) {
  bool timed = has_timings(r.tasks);
  json tasks = json::array();
  for (const TaskResult& t : r.tasks) tasks.push_back(json::parse(encode_task_result(t)));
  json fast = json::object();
  for (const std::string& b : fast_p_baselines()) {
    json per = json::object();
    for (double p : fast_p_thresholds()) {
      FastP f = fast_p(r.tasks, b, p);
      per[fmt::format("{}", p)] = {{"count", f.count},
                                   {"total", f.total},
                                   {"fraction", f.fraction ? json(*f.fraction) : json(nullptr)}};
    }
    fast[b] = per;
  }
  json geo = json::object();
  for (const std::string& b : fast_p_baselines()) {
    GeoMean g = geomean_speedup(r.tasks, b);
    geo[b] = {{"tasks", g.tasks}, {"value", g.value ? json(*g.value) : json(nullptr)}};
  }
  json counts = json::object();
  json failures = json::object();
  for (const auto& [status, group] : by_status(r)) {
    counts[status] = group.size();
    if (status == "ok") continue;
    json list = json::array();
    for (const TaskResult* t : group) list.push_back({{"id", t->id}, {"error", t->error_head}});
    failures[status] = list;
  }
  json out = {{"config", json::parse(encode_config(r.config))},
              {"state", r.state},
              {"stop_reason", r.stop_reason},
              {"elapsed_s", r.elapsed_s},
              {"timed", timed},
              {"ranking", timed ? "ranked" : "unranked"},
              {"fast_p", fast},
              {"geomean_speedup", geo},
              {"counts", counts},
              {"failures", failures},
              {"tasks", tasks}};
  return out;
}

}  // namespace

std::string render_suite_json(const SuiteRecord& r) {
  return suite_json(r).dump(2) + "\n";
}

std::string render_suite_answer(const SuiteRecord& r, const SuiteAnswer& answer) {
  json out = suite_json(r);
  out["suite_dir"] = answer.dir.string();
  out["shard"] = answer.shard;
  out["shards"] = answer.shards;
  auto path = [&](std::string_view name) {
    return answer.reports_written ? json((answer.dir / name).string()) : json(nullptr);
  };
  out["suite_json"] = path("suite.json");
  out["summary"] = path("summary.md");
  out["report"] = path("report.html");
  out["exit_code"] = answer.exit_code;
  return out.dump();
}

std::string render_suite_markdown(const SuiteRecord& r) {
  Tables t = make_tables(r);
  std::string out = "# kforge suite\n\n";
  for (const auto& [name, value] : t.facts) out += fmt::format("- **{}**: {}\n", name, value);
  out +=
      "\n## fast_p\n\nFraction of all tasks (missing and failed ones count) that are correct "
      "and faster than p x the baseline.\n\n";
  out += report::markdown_table(t.fast_p_header, t.fast_p);
  out += "\n## Tasks\n\n" + report::markdown_table(t.tasks_header, t.tasks);
  out += "\n## Failures by status\n";
  bool any = false;
  for (const auto& [status, group] : by_status(r)) {
    if (status == "ok") continue;
    any = true;
    out += fmt::format("\n### {} ({})\n\n", status, group.size());
    for (const TaskResult* task : group)
      out += fmt::format("- {}: {}\n", task->id, report::markdown_cell(task->error_head));
  }
  if (!any) out += "\nnone\n";
  return out;
}

std::string render_suite_html(const SuiteRecord& r) {
  Tables t = make_tables(r);
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>kforge suite</title>\n<style>\n"
      "body { font-family: sans-serif; margin: 2em; color: #222; }\n"
      "table { border-collapse: collapse; margin: 1em 0; }\n"
      "th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; font-size: 13px; }\n"
      "th { background: #f3f3f3; }\n"
      "dt { font-weight: bold; float: left; width: 7em; } dd { margin-left: 8em; }\n"
      ".charts svg { display: block; margin: 1em 0; }\n"
      "</style>\n</head>\n<body>\n<h1>kforge suite</h1>\n<dl>\n";
  for (const auto& [name, value] : t.facts)
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", report::escape_html(name),
                       report::escape_html(value));
  out += "</dl>\n<h2>fast_p</h2>\n<div class=\"charts\">\n";
  out += report::render_line_svg(fast_p_chart(r));
  out += "</div>\n" + html_table(t.fast_p_header, t.fast_p, "fast-p");
  out += "<h2>Tasks</h2>\n<div class=\"charts\">\n";
  out += report::render_svg(status_chart(r));
  out += report::render_svg(task_chart(r, t.timed));
  out += "</div>\n" + html_table(t.tasks_header, t.tasks, "tasks");
  out += "<h2>Failures by status</h2>\n";
  for (const auto& [status, group] : by_status(r)) {
    if (status == "ok") continue;
    out += fmt::format("<h3>{} ({})</h3>\n<ul>\n", report::escape_html(status), group.size());
    for (const TaskResult* task : group)
      out += fmt::format("<li><b>{}</b>: {}</li>\n", report::escape_html(task->id),
                         report::escape_html(task->error_head));
    out += "</ul>\n";
  }
  return out + "</body>\n</html>\n";
}

util::Result<void> write_suite_reports(const std::filesystem::path& dir, const SuiteRecord& r) {
  if (auto ok = store::write_file_atomically(dir / "suite.json", render_suite_json(r)); !ok)
    return ok;
  if (auto ok = store::write_file_atomically(dir / "summary.md",
                                             util::printable(render_suite_markdown(r)));
      !ok)
    return ok;
  return store::write_file_atomically(dir / "report.html", render_suite_html(r));
}

}  // namespace kforge::suite

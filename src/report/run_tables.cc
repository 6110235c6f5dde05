#include "report/run_tables.h"

#include <fmt/format.h>

#include <cmath>

namespace kforge::report {

std::string cell(const std::optional<double>& value, int digits) {
  if (!value) return "—";
  if (std::isnan(*value)) return "nan";
  if (std::isinf(*value)) return *value > 0 ? "inf" : "-inf";
  return fmt::format("{:.{}f}", *value, digits);
}

std::string thousands(long long value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

namespace {

std::string error_cell(const std::optional<double>& value) {
  if (!value) return "—";
  if (!std::isfinite(*value)) return cell(value, 0);
  return fmt::format("{:.3g}", *value);
}

std::string get(const std::map<std::string, std::string>& map, const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? "" : it->second;
}

/// "1.79x": how many times faster than `baseline_ms` a candidate running `latency_ms` is.
std::string speedup_cell(const std::optional<double>& latency_ms, double baseline_ms) {
  if (!latency_ms || *latency_ms <= 0) return "—";
  return fmt::format("{:.2f}x", baseline_ms / *latency_ms);
}

/// "eager 20.700 ms, compile 18.000 ms, cuda_graph 12.000 ms (best: cuda_graph)".
std::string baselines_fact(const store::RunBaselines& b) {
  std::string text;
  for (const auto& [name, ms] : {std::pair{"eager", b.eager_ms}, std::pair{"compile", b.compile_ms},
                                 std::pair{"cuda_graph", b.cuda_graph_ms}})
    if (ms) text += fmt::format("{}{} {} ms", text.empty() ? "" : ", ", name, cell(ms, 3));
  if (auto best = b.best()) text += fmt::format(" (best: {})", best->first);
  if (text.empty()) text = "none timed";
  for (const auto& [name, error] : b.errors)
    text += fmt::format("; {} failed: {}", name, error.substr(0, error.find('\n')));
  return text;
}

}  // namespace

RunTables make_tables(const store::RunRecord& run) {
  RunTables t;
  t.timeline_header = {"#",           "stage",    "from",   "candidate", "score", "latency (ms)",
                       "max_abs_err", "numerics", "status", "note"};
  // Speed figures only on a GPU run whose baselines were timed (CPU mode has no timings).
  const bool cpu = store::eval_settings(run.config).device == eval::Device::kCpu;
  std::optional<std::pair<std::string, double>> best_baseline;
  if (!cpu && run.baselines) best_baseline = run.baselines->best();
  if (best_baseline) t.timeline_header.insert(t.timeline_header.begin() + 6, "vs best baseline");
  for (const store::CandidateRecord& c : run.candidates) {
    std::string status = c.status;
    if (c.status != "ok" && !c.error_head.empty()) status += ": " + c.error_head;
    std::string note = c.note;
    if (run.best_id && *run.best_id == c.id) note = "**best**" + (note.empty() ? "" : "; " + note);
    if (c.persistent) note += note.empty() ? "persistent" : "; persistent";
    std::vector<std::string> row = {std::to_string(c.id),
                                    c.stage,
                                    c.parent ? fmt::format("#{}", *c.parent) : "",
                                    c.file,
                                    cell(c.score, 4),
                                    cell(c.latency_ms, 3),
                                    error_cell(c.max_abs_err),
                                    c.numerics.empty() ? "—" : c.numerics,
                                    status,
                                    note};
    if (best_baseline)
      row.insert(row.begin() + 6, speedup_cell(c.latency_ms, best_baseline->second));
    t.timeline.push_back(std::move(row));
  }
  t.tokens_header = {"stage", "calls", "input tokens", "output tokens", "total", "cost (USD)"};
  for (const store::TokenRow& row : run.tokens)
    t.tokens.push_back({row.stage, std::to_string(row.calls), thousands(row.prompt_tokens),
                        thousands(row.completion_tokens),
                        thousands(row.prompt_tokens + row.completion_tokens),
                        fmt::format("{:.4f}", row.cost_usd)});
  store::TokenRow total = store::total_tokens(run);
  t.tokens.push_back({"total", std::to_string(total.calls), thousands(total.prompt_tokens),
                      thousands(total.completion_tokens),
                      thousands(total.prompt_tokens + total.completion_tokens),
                      fmt::format("{:.4f}", total.cost_usd)});

  t.facts.push_back({"task", fmt::format("{} ({})", run.task_name, run.config.task)});
  t.facts.push_back({"model", fmt::format("{} / {}", run.config.provider, run.config.model)});
  std::string device = get(run.device, "name");
  if (get(run.device, "sm_count") != "" && get(run.device, "sm_count") != "0")
    device += fmt::format(" ({} SMs)", get(run.device, "sm_count"));
  if (cpu) device += " — CPU mode (Triton interpreter, no timings)";
  t.facts.push_back({"device", device});
  t.facts.push_back(
      {"numerics", fmt::format("{} (--numerics; {}); correctness verdict: {}", run.config.numerics,
                               run.config.numerics == "strict"
                                   ? "the reference's dtypes, lower precision rejected"
                                   : "any precision that passes the correctness verdict",
                               run.config.precision)});
  t.facts.push_back({"versions", fmt::format("torch {}, triton {}", get(run.versions, "torch"),
                                             get(run.versions, "triton"))});
  std::string state = run.state;
  if (!run.stop_reason.empty()) state += ": " + run.stop_reason;
  if (!cpu && run.baselines) t.facts.push_back({"baselines", baselines_fact(*run.baselines)});
  t.facts.push_back({"state", state});
  const store::CandidateRecord* best =
      run.best_id ? store::find_candidate(run, *run.best_id) : nullptr;
  if (best) {
    std::string text = fmt::format("#{} {} ({})", best->id, best->stage, best->file);
    if (best->score) {
      text += fmt::format(" — score {} ({} ms vs eager {} ms)", cell(best->score, 4),
                          cell(best->latency_ms, 3), cell(best->eager_ms, 3));
      if (best_baseline && best->latency_ms)
        text += fmt::format(", {} vs best baseline ({} {} ms)",
                            speedup_cell(best->latency_ms, best_baseline->second),
                            best_baseline->first, cell(best_baseline->second, 3));
    } else {
      text += fmt::format(" — verified, max_abs_err {} (no timing)", error_cell(best->max_abs_err));
    }
    if (run.rank && run.rank->best_id == best->id) text += " (ranked by `kforge rank`)";
    t.facts.push_back({"best", text + "; copied to best.py"});
  } else if (run.ranking == "unranked") {
    std::vector<std::string> ids;
    for (const store::CandidateRecord& c : run.candidates)
      if (c.status == "ok") ids.push_back(fmt::format("#{}", c.id));
    t.facts.push_back(
        {"best", fmt::format("unranked — {} correct candidate{} kept ({}); without timings none "
                             "is called best: rank them on a GPU with `kforge rank <run dir> "
                             "--device cuda`",
                             ids.size(), ids.size() == 1 ? "" : "s", fmt::join(ids, ", "))});
  } else {
    t.facts.push_back({"best", "no verified candidate"});
  }
  if (run.rank) {
    t.facts.push_back(
        {"ranked", fmt::format("by `kforge rank` on {} ({}) at {}",
                               run.rank->device_name.empty() ? "?" : run.rank->device_name,
                               run.rank->device, run.rank->ranked_at)});
    t.rank_header = {"rank", "#", "score", "latency (ms)", "max_abs_err", "status"};
    int place = 0;
    for (const store::RankedCandidate& e : run.rank->entries) {
      std::string status = e.status;
      if (e.status != "ok" && !e.error_head.empty()) status += ": " + e.error_head;
      t.rank.push_back({e.score ? std::to_string(++place) : "—", fmt::format("#{}", e.id),
                        cell(e.score, 4), cell(e.latency_ms, 3), error_cell(e.max_abs_err),
                        status});
    }
  }
  t.facts.push_back({"elapsed", fmt::format("{:.0f} s", run.elapsed_s)});
  return t;
}

}  // namespace kforge::report

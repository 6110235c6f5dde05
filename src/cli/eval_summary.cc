#include "cli/eval_summary.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "cli/exit_code.h"

namespace kforge::cli {

namespace {

using eval::LatencyStats;

std::string error_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return fmt::format("{:.2e}", value);
}

/// Indents every line after the first so that multi-line text sits in the value column.
std::string indent_rest(std::string_view text, std::string_view indent) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out;
}

void line(std::string& out, std::string_view label, std::string_view value) {
  out += fmt::format("{:<14}{}\n", label, indent_rest(value, std::string(14, ' ')));
}

/// The last `count` lines of `text`, without a trailing newline.
std::string last_lines(std::string_view text, std::size_t count) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::size_t start = text.size();
  for (std::size_t seen = 0; start > 0 && seen < count;) {
    --start;
    if (text[start] == '\n' && ++seen == count) {
      ++start;
      break;
    }
  }
  return std::string(text.substr(start));
}

struct NamedStats {
  std::string_view name;
  const std::optional<LatencyStats>& stats;
};

void timing_table(std::string& out, const std::vector<NamedStats>& rows,
                  const std::map<std::string, std::string>& errors) {
  out += fmt::format("{:<14}{:>10} {:>10} {:>9} {:>10} {:>7}\n", "timing (ms)", "median", "mean",
                     "std", "min", "trials");
  for (const NamedStats& row : rows) {
    if (!row.stats) {
      auto error = errors.find(std::string(row.name));
      out += error == errors.end() ? fmt::format("  {:<12}{:>10}\n", row.name, "-")
                                   : fmt::format("  {:<12}{:>10}  ({})\n", row.name, "-",
                                                 indent_rest(error->second, std::string(26, ' ')));
      continue;
    }
    const LatencyStats& s = *row.stats;
    out += fmt::format("  {:<12}{:>10.3f} {:>10.3f} {:>9.3f} {:>10.3f} {:>7}\n", row.name,
                       s.median_ms, s.mean_ms, s.std_ms, s.min_ms, s.trials);
  }
}

/// The fastest of the baselines present, by median.
std::optional<NamedStats> best_baseline(const std::vector<NamedStats>& baselines) {
  std::optional<NamedStats> best;
  for (const NamedStats& row : baselines)
    if (row.stats && row.stats->median_ms > 0 &&
        (!best || row.stats->median_ms < best->stats->median_ms))
      best.emplace(row);
  return best;
}

std::string join_map(const std::map<std::string, double>& values) {
  std::string out;
  for (const auto& [name, value] : values) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", name, value);
  }
  return out;
}

std::string device_text(const SummaryContext& context,
                        const std::map<std::string, std::string>& device,
                        const std::map<std::string, std::string>& versions) {
  std::vector<std::string> parts;
  auto find = [](const std::map<std::string, std::string>& map,
                 const std::string& key) -> std::optional<std::string> {
    auto it = map.find(key);
    if (it == map.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
  std::optional<std::string> name = find(device, "name");
  std::optional<std::string> sms = find(device, "sm_count");
  const std::optional<eval::WorkerInfo>& worker = context.worker;
  if (!name && worker && worker->device_name) name = worker->device_name;
  if (!sms && worker && worker->sm_count > 0) sms = std::to_string(worker->sm_count);
  if (context.device == eval::Device::kCpu)
    parts.push_back("CPU (Triton interpreter, correctness only)");
  else if (name)
    parts.push_back(sms ? fmt::format("{} ({} SMs)", *name, *sms) : *name);
  else
    parts.push_back("cuda (device unknown)");
  auto version = [&](const char* key, const std::string& fallback) {
    if (auto value = find(versions, key)) return *value;
    return fallback;
  };
  std::string torch = version("torch", worker ? worker->torch : "");
  std::string triton = version("triton", worker ? worker->triton : "");
  std::string python = version("python", worker ? worker->python : "");
  std::string cuda = version("cuda", worker && worker->cuda ? *worker->cuda : "");
  if (!torch.empty()) parts.push_back("torch " + torch);
  if (!triton.empty()) parts.push_back("triton " + triton);
  if (!python.empty()) parts.push_back("python " + python);
  if (!cuda.empty() && context.device == eval::Device::kCuda) parts.push_back("CUDA " + cuda);
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : " · ") + part;
  return out;
}

}  // namespace

std::string format_evaluation(const eval::Evaluation& e, const SummaryContext& context) {
  const bool cpu = context.device == eval::Device::kCpu;
  std::string out;
  line(out, "task", context.task.string());
  line(out, "candidate", context.candidate.string());
  line(out, "status", std::string(eval::to_string(e.status)));
  if (!e.error.empty()) line(out, "error", e.error);
  if (e.error_location) line(out, "location", *e.error_location);
  for (const std::string& reason : e.reasons) line(out, "rejected", reason);

  if (const auto& c = e.correctness) {
    bool pass = c->precision == "kernelbench" ? c->pass_kernelbench : c->pass_calibrated;
    line(out, "correctness",
         fmt::format("{} under the {} policy ({} input sets)", pass ? "PASS" : "FAIL",
                     c->precision.empty() ? "calibrated" : c->precision, c->input_sets));
    line(out, "  verdicts",
         fmt::format("calibrated {}, kernelbench {}", c->pass_calibrated ? "pass" : "fail",
                     c->pass_kernelbench ? "pass" : "fail"));
    line(out, "  vs fp32 ref",
         fmt::format("max_abs_err {}  mean_abs_err {}", error_number(c->max_abs_err),
                     error_number(c->mean_abs_err)));
    line(out, "  vs fp64 ref",
         fmt::format("max_abs_err {}  mean_abs_err {}", error_number(c->max_abs_err_fp64),
                     error_number(c->mean_abs_err_fp64)));
    line(out, "  tolerance",
         fmt::format("{} (the fp32 reference's own error vs fp64: {})", error_number(c->tolerance),
                     error_number(c->reference_err_fp64)));
    if (c->first_failure) line(out, "  first fail", *c->first_failure);
  }
  if (const auto& n = e.numerics) {
    std::string text = n->summary.empty() ? "not observed" : n->summary;
    text += fmt::format(" (policy {}; reference {}{})", n->policy, n->reference,
                        n->lowered ? ", lower than the reference" : "");
    line(out, "numerics", text);
    for (const std::string& evidence : n->evidence) line(out, "  evidence", evidence);
  }
  if (e.generalizes != "unknown") line(out, "generalizes", e.generalizes);

  if (cpu) {
    if (e.status == eval::Status::kOk)
      line(out, "timing", "not measured in CPU mode (correctness only)");
  } else if (e.candidate || e.eager || e.compiled || e.cuda_graph) {
    timing_table(out,
                 {{"candidate", e.candidate},
                  {"eager", e.eager},
                  {"compile", e.compiled},
                  {"cuda_graph", e.cuda_graph}},
                 e.baseline_errors);
    std::string score;
    if (e.score) score = fmt::format("{:.3f}x vs eager", *e.score);
    auto best =
        best_baseline({{"eager", e.eager}, {"compile", e.compiled}, {"cuda_graph", e.cuda_graph}});
    if (e.speedup_vs_best_baseline)
      score +=
          fmt::format("{}{:.3f}x vs the best baseline{}", score.empty() ? "" : ", ",
                      *e.speedup_vs_best_baseline, best ? fmt::format(" ({})", best->name) : "");
    if (!score.empty()) line(out, "score", score);
  } else if (e.status == eval::Status::kOk) {
    line(out, "timing", "not reported");
  }

  if (e.launches_per_forward)
    line(out, "launches", fmt::format("{} per forward", *e.launches_per_forward));
  for (const eval::KernelSeen& kernel : e.kernels) {
    // Time shares measured under the interpreter say nothing about a GPU.
    std::string share = cpu ? "" : fmt::format(", {:.0f}% of time", kernel.time_share * 100);
    line(out, "kernel",
         fmt::format("{}  x{:g} per forward{}{}", kernel.name, kernel.calls_per_forward, share,
                     kernel.own ? ", own" : ", library"));
  }
  for (const std::string& note : e.notes) line(out, "note", note);
  if (e.status != eval::Status::kOk && !e.output_tail.empty())
    line(out, "printed", last_lines(e.output_tail, 10));
  line(out, "device", device_text(context, e.device, e.versions));
  if (!e.shapes.empty()) line(out, "shapes", join_map(e.shapes));
  if (e.wall_s > 0)
    line(out, "time", fmt::format("{:.2f} s wall, {:.2f} s timed", e.wall_s, e.timed_s));
  return out;
}

std::string format_baseline(const eval::BaselineResult& b, const SummaryContext& context) {
  const bool cpu = context.device == eval::Device::kCpu;
  std::string out;
  line(out, "task", context.task.string());
  std::vector<NamedStats> rows = {
      {"eager", b.eager}, {"compile", b.compiled}, {"cuda_graph", b.cuda_graph}};
  timing_table(out, rows, b.errors);
  if (cpu) {
    line(out, "note", "CPU timings: not comparable with GPU figures; no speed-ups in CPU mode");
  } else if (auto best = best_baseline(rows)) {
    std::string text = fmt::format("{} {:.3f} ms", best->name, best->stats->median_ms);
    if (b.eager && best->name != "eager" && best->stats->median_ms > 0)
      text +=
          fmt::format(" ({:.2f}x faster than eager)", b.eager->median_ms / best->stats->median_ms);
    line(out, "best", text);
  }
  line(out, "device", device_text(context, b.device, b.versions));
  if (!b.shapes.empty()) line(out, "shapes", join_map(b.shapes));
  return out;
}

int report_error(std::string_view command, bool json, eval::OutputContext& output,
                 const util::Error& error) {
  output.exit_code = exit_code_for(error);
  fmt::print(stderr, "kforge {}: {}\n", command, error.message);
  if (json) fmt::print("{}\n", eval::encode_error_output(error.message, output));
  return output.exit_code;
}

}  // namespace kforge::cli

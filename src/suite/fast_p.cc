#include "suite/fast_p.h"

#include <algorithm>
#include <cmath>

namespace kforge::suite {

const std::vector<std::string>& fast_p_baselines() {
  static const std::vector<std::string> names = {"eager", "compile", "cuda_graph"};
  return names;
}

std::string baseline_title(std::string_view baseline) {
  if (baseline == "compile") return "torch.compile";
  if (baseline == "cuda_graph") return "CUDA graph";
  return std::string(baseline);
}

const std::vector<double>& fast_p_thresholds() {
  static const std::vector<double> ps = {0, 1, 1.5, 2, 4};
  return ps;
}

FastP fast_p(const std::vector<TaskResult>& tasks, std::string_view baseline, double p) {
  FastP out;
  out.p = p;
  out.total = static_cast<int>(tasks.size());
  bool timed = false;
  for (const TaskResult& t : tasks) {
    std::optional<double> speedup = t.speedup(baseline);
    timed = timed || speedup.has_value();
    if (!t.correct()) continue;
    if (p <= 0 || (speedup && *speedup > p)) ++out.count;
  }
  if (out.total > 0 && (p <= 0 || timed)) out.fraction = static_cast<double>(out.count) / out.total;
  return out;
}

GeoMean geomean_speedup(const std::vector<TaskResult>& tasks, std::string_view baseline) {
  GeoMean out;
  double log_sum = 0;
  for (const TaskResult& t : tasks)
    if (auto s = t.speedup(baseline); s && *s > 0 && std::isfinite(*s)) {
      log_sum += std::log(*s);
      ++out.tasks;
    }
  if (out.tasks > 0) out.value = std::exp(log_sum / out.tasks);
  return out;
}

std::vector<std::pair<double, double>> fast_p_curve(const std::vector<TaskResult>& tasks,
                                                    std::string_view baseline) {
  std::vector<double> speedups;
  for (const TaskResult& t : tasks)
    if (auto s = t.speedup(baseline); s && std::isfinite(*s)) speedups.push_back(*s);
  if (speedups.empty() || tasks.empty()) return {};
  std::sort(speedups.begin(), speedups.end());
  double p_max = std::max(4.0, speedups.back() * 1.1);
  double n = static_cast<double>(tasks.size());
  std::vector<std::pair<double, double>> curve;
  // Just above 0 every timed correct task counts; each speed-up s is the last p it counts at.
  std::size_t left = speedups.size();
  curve.emplace_back(0.0, left / n);
  for (std::size_t i = 0; i < speedups.size();) {
    double s = speedups[i];
    std::size_t j = i;
    while (j < speedups.size() && speedups[j] == s) ++j;
    if (s >= p_max) break;
    curve.emplace_back(s, left / n);  // still counted at p = s - ε …
    left -= j - i;
    curve.emplace_back(s, left / n);  // … and no longer at p = s (strictly greater than p)
    i = j;
  }
  curve.emplace_back(p_max, left / n);
  return curve;
}

bool has_timings(const std::vector<TaskResult>& tasks) {
  return std::any_of(tasks.begin(), tasks.end(),
                     [](const TaskResult& t) { return t.correct() && t.best_ms.has_value(); });
}

}  // namespace kforge::suite

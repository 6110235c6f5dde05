#include <fmt/format.h>

#include <algorithm>

#include "analysis/rules.h"

namespace kforge::analysis {

/// "Far more than the layers": more than this many launches per layer and direction (and more
/// than kMinimumLaunches in all) — a per-step launch pattern, not a per-layer one.
constexpr int kLaunchesPerLayer = 8;
constexpr int kMinimumLaunches = 16;

void check_launch_count(const Facts& facts, std::vector<Diagnostic>& out) {
  if (!facts.runtime || facts.runtime->status != "ok" || !facts.runtime->launches_per_forward)
    return;
  int launches = *facts.runtime->launches_per_forward;
  int units = 1;
  if (facts.reference && facts.reference->layers)
    units = std::max(1, *facts.reference->layers) * facts.reference->directions;
  if (launches <= std::max(kMinimumLaunches, kLaunchesPerLayer * units)) return;
  std::vector<RuntimeKernel> kernels = facts.runtime->kernels;
  std::sort(kernels.begin(), kernels.end(), [](const RuntimeKernel& a, const RuntimeKernel& b) {
    return a.calls_per_forward > b.calls_per_forward;
  });
  std::vector<std::string> top;
  for (std::size_t i = 0; i < kernels.size() && i < 3; ++i)
    top.push_back(fmt::format("{} x{:g}", kernels[i].name, kernels[i].calls_per_forward));
  out.push_back(
      {"launch-count", Severity::kWarning, at(facts, facts.forward_line.value_or(0)),
       fmt::format("{} kernel launches per forward (measured, {}) for {} layer{}: {:.0f} per "
                   "layer; most launched: {}",
                   launches,
                   facts.runtime->method.empty() ? facts.runtime->device : facts.runtime->method,
                   units, units == 1 ? "" : "s", static_cast<double>(launches) / units,
                   fmt::join(top, ", ")),
       "Each launch costs microseconds of overhead and a round trip through global memory. "
       "Fuse the per-step kernels into one kernel per layer (loop over steps inside the kernel) "
       "and merge elementwise epilogues into the kernel that produces their input."});
}

}  // namespace kforge::analysis

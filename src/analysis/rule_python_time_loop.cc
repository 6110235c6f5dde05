#include <fmt/format.h>

#include <map>
#include <set>

#include "analysis/rules.h"

namespace kforge::analysis {

void check_python_time_loop(const Facts& facts, std::vector<Diagnostic>& out) {
  if (facts.reference && !facts.reference->recurrent) return;
  // One diagnostic per time loop, naming the kernels it launches each step.
  struct Found {
    const HostLoop* loop = nullptr;
    std::set<std::string> kernels;
    int sites = 0;
  };
  std::map<std::pair<std::string, int>, Found> found;
  for (const Launch& launch : facts.launches) {
    if (!launch.in_forward) continue;
    for (const HostLoop& loop : launch.loops) {
      if (!contains(loop.roles, "time")) continue;
      Found& entry = found[{loop.function, loop.line}];
      entry.loop = &loop;
      entry.kernels.insert(launch.kernel);
      ++entry.sites;
      break;
    }
  }
  for (const auto& [key, entry] : found) {
    std::string header = entry.loop->kind == "for"
                             ? fmt::format("for {} in {}", entry.loop->var, entry.loop->iter)
                             : fmt::format("while {}", entry.loop->iter);
    out.push_back(
        {"python-time-loop", Severity::kError, at(facts, entry.loop->line),
         fmt::format("the time loop `{}` runs in Python ({}) and launches kernels every step "
                     "({} launch site{}: {}): launches grow with the sequence length",
                     header, entry.loop->function, entry.sites, entry.sites == 1 ? "" : "s",
                     fmt::join(entry.kernels, ", ")),
         "Move the time loop inside one @triton.jit kernel per layer (a persistent kernel that "
         "runs `for t in range(T)` itself). Compute the input projection x @ W_ih^T + b_ih for "
         "all time steps as one large GEMM before the launch; inside the loop keep only "
         "h @ W_hh^T and the gate math. Target: one or two launches per layer, not per step."});
  }
}

}  // namespace kforge::analysis

#include <fmt/format.h>

#include "analysis/rules.h"

namespace kforge::analysis {

namespace {

/// The loop that walks the hidden size one element per iteration, with loads in it.
const KernelLoop* serial_hidden_loop(const JitFunction& function) {
  for (const KernelLoop& loop : function.loops)
    if (loop.unit_step && !loop.is_static && contains(loop.roles, "hidden") &&
        !contains(loop.roles, "time") && loop.loads > 0)
      return &loop;
  return nullptr;
}

}  // namespace

void check_batch_only_grid(const Facts& facts, std::vector<Diagnostic>& out) {
  for (const Launch& launch : facts.launches) {
    if (!launch.dims) continue;
    const JitFunction* kernel = facts.jit_function(launch.kernel);
    if (kernel == nullptr) continue;
    bool batch = false;
    bool hidden = false;
    for (const GridDim& dim : *launch.dims) {
      batch = batch || contains(dim.roles, "batch");
      hidden = hidden || contains(dim.roles, "hidden");
    }
    if (hidden || !(batch || launch.dims->size() == 1)) continue;
    const KernelLoop* loop = serial_hidden_loop(*kernel);
    if (loop == nullptr) continue;
    out.push_back(
        {"batch-only-grid", Severity::kWarning, at(facts, launch.line, launch.column),
         fmt::format("grid `{}` of {} has {} dimension{} over the batch only, while each program "
                     "walks the hidden size serially in `{}` (line {}): few programs, one "
                     "scalar-vector step per hidden unit",
                     launch.grid, launch.kernel, launch.dims->size(),
                     launch.dims->size() == 1 ? "" : "s",
                     loop->kind == "for" ? fmt::format("for {} in {}", loop->var, loop->iter)
                                         : fmt::format("while {}", loop->iter),
                     loop->line),
         "Parallelise the hidden dimension too: grid = (cdiv(B, BLOCK_B), cdiv(H, BLOCK_H)), "
         "pid_h = tl.program_id(1), offs_h = pid_h * BLOCK_H + tl.arange(0, BLOCK_H); replace "
         "the per-element loop by a tiled one, `for k in range(0, H, BLOCK_K)` with "
         "tl.dot(h_tile, w_tile). Mind that programs splitting the hidden size of a recurrence "
         "then need a grid-wide barrier per step."});
  }
}

}  // namespace kforge::analysis

#include <fmt/format.h>

#include "analysis/rules.h"

namespace kforge::analysis {

namespace {

std::string lines(const std::vector<int>& values) {
  return fmt::format("{}", fmt::join(values, ", "));
}

std::string why_not(std::string_view barrier) {
  if (barrier == "debug_barrier")
    return "; tl.debug_barrier() synchronises the threads of one program only, not the grid";
  if (barrier == "atomic_no_spin")
    return "; atomics are used but no program waits for the others to arrive";
  return "";
}

}  // namespace

void check_missing_grid_barrier(const Facts& facts, std::vector<Diagnostic>& out) {
  for (const JitFunction& function : facts.jit_functions)
    for (const Recurrence& r : function.recurrences) {
      if (!r.cross_program || r.barrier == "grid_barrier") continue;
      const KernelLoop* loop = function.loop(r.loop);
      std::string header = loop == nullptr ? "loop"
                           : loop->kind == "for"
                               ? fmt::format("for {} in {}", loop->var, loop->iter)
                               : fmt::format("while {}", loop->iter);
      std::string axes = r.foreign_axes.empty()
                             ? fmt::format("{}", fmt::join(r.foreign_atoms, ", "))
                             : fmt::format("program_id axis {}", fmt::join(r.foreign_axes, ", "));
      out.push_back(
          {"missing-grid-barrier", Severity::kError, at(facts, r.loop_line),
           fmt::format("cross-program recurrence in {}: `{}` is stored per program (line {}) and "
                       "read back across programs ({}) at line {} in the next iteration of `{}`, "
                       "with no grid-wide barrier{}: a program can read step t-1 before the "
                       "program that owns it has written it",
                       function.name, r.buffer, lines(r.store_lines), axes, lines(r.load_lines),
                       header, why_not(r.barrier)),
           "Make every value read at step t+1 come from the same program, or synchronise the "
           "grid: (a) let one program own the whole hidden vector of its batch rows (grid over "
           "batch blocks only, all of H in one program); or (b) after the store, add a grid "
           "barrier each step (tl.atomic_add on a counter, then spin until it reaches "
           "(t + 1) * num_programs), double-buffer the state (read t % 2, write (t + 1) % 2), "
           "and keep the grid small enough to be resident at once; or (c) launch one kernel "
           "per step."});
    }
}

}  // namespace kforge::analysis

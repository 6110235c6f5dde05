#pragma once

#include <string>
#include <vector>

#include "pipeline/candidate.h"

namespace kforge::pipeline {

/// The three tuning stages, in the order they run.
const std::vector<std::string>& tuning_stages();

/// What the guard decided for the tuning stages of one best candidate.
struct GuardDecision {
  /// Stages to run, a subset of tuning_stages() in order.
  std::vector<std::string> run;
  /// True when the stages that run must keep a persistent design (prompts get `persistent`).
  bool adapt = false;
  /// Why stages were skipped or adapted; empty when tuning runs as usual.
  std::string reason;
};

/// The seeds' guard: tuning that assumes a plain GEMM destroys persistent kernels (time loop
/// inside the kernel, grid tied to batch × hidden, register pressure grows with the blocks) and
/// complex algorithms (Winograd). So:
/// - the diagnosis says implementation_complexity high → skip all tuning;
/// - persistent (kernel analysis `persistent` or kernel_type persistent_recurrent, or the
///   diagnosis says complexity persistent or kernel_type persistent_recurrent) → parameter-only
///   tuning: the grid and tiling stages run adapted (`adapt`: launch configuration, block sizes,
///   num_warps, num_stages; the time loop stays inside the kernel), the memory stage is skipped;
///   a grid problem of the kernel analysis (a diagnostic whose rule mentions "grid") is named;
/// - otherwise run all three. `enabled` false runs all three regardless.
GuardDecision decide_tuning(const Candidate& best, bool enabled);

}  // namespace kforge::pipeline

#pragma once

// What kind of kernels a candidate runs; the pipeline's tuning guard keys on it.

#include <string>

#include "analysis/facts.h"

namespace kforge::analysis {

/// `kernel_type`: persistent_recurrent | elementwise | reduction | gemm | conv | mixed | unknown.
/// `persistent`: a kernel keeps state across a loop inside itself (a time loop with memory
/// traffic, or a buffer stored and re-read across iterations), so re-tiling or re-gridding it
/// as if it were a plain GEMM breaks its design.
struct Classification {
  std::string kernel_type = "unknown";
  bool persistent = false;
};

Classification classify(const Facts& facts);

/// The kind of one jit function alone (conv, gemm, reduction, elementwise), or "" when it
/// touches no memory (a helper such as a hand-written tanh).
std::string kernel_kind(const JitFunction& function);

}  // namespace kforge::analysis

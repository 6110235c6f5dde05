#pragma once

#include <string>
#include <string_view>

#include "util/error.h"

namespace kforge::prompts {

/// The model's algorithm analysis of a slow candidate, validated (prompts/analysis.txt asks for
/// exactly these fields). `implementation_complexity` is one of low, medium, high, persistent;
/// `kernel_type` one of persistent_recurrent, elementwise, reduction, gemm, conv, mixed.
struct Diagnosis {
  bool worth_optimizing = true;
  std::string reason;
  std::string bottleneck;
  std::string optimisation_method;
  std::string modification_plan;
  std::string expected_speedup;
  std::string implementation_complexity;
  std::string kernel_type;
};

/// Finds the JSON object in a model reply (a ```json fence, any fence holding an object, or the
/// outermost braces) and validates it. The error lists every missing or invalid field at once,
/// fit to be sent back to the model: "failed to parse the analysis: missing bottleneck;
/// implementation_complexity must be one of low, medium, high, persistent (got \"huge\")".
/// JSON syntax errors carry `reply:line:col`.
util::Result<Diagnosis> parse_diagnosis(std::string_view reply);

}  // namespace kforge::prompts

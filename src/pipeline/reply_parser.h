#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "prompts/template.h"
#include "util/error.h"

namespace kforge::pipeline {

/// A fenced block (```lang … ```) in a model reply.
struct CodeBlock {
  /// The info string's first word, lower-cased ("python", "json", "" for a bare fence).
  std::string language;
  std::string code;
  /// 1-based line of the block's first code line in the reply.
  std::size_t line = 0;
  /// False when the reply ended inside the block (a truncated reply).
  bool closed = true;
};

/// Every fenced block of `reply`, in order. Fences are ``` or ~~~ lines, indented by up to three
/// spaces, closed by the same fence alone on a line.
std::vector<CodeBlock> find_code_blocks(std::string_view reply);

/// The candidate source found in a reply.
struct CandidateCode {
  std::string code;
  /// The code has a top-level `class ModelNew`.
  bool defines_model_new = false;
  /// The reply ended before the block closed: the code is probably cut off.
  bool unterminated = false;
};

/// Picks the candidate source in a model reply: among the fenced blocks that are python
/// (```python, ```py, ```python3 or bare ```) or define ModelNew, the longest one defining
/// `class ModelNew`; when none does, the longest python block (defines_model_new false); with no
/// fences, the bare source from its first code line when the reply defines ModelNew. Error only
/// when the reply holds no code at all; the text is written to be sent back to the model.
util::Result<CandidateCode> extract_candidate_code(std::string_view reply);

/// extract_candidate_code, but an error also when no code defines `class ModelNew`.
util::Result<std::string> extract_model_new(std::string_view reply);

/// The text of the JSON object in a reply: a ```json block, else a fenced block holding an
/// object, else the first balanced {…} in the prose that parses. Errors name the reply line and
/// column of the syntax error (util::format_located_error, file "reply").
util::Result<std::string> extract_json_object(std::string_view reply);

/// implementation_complexity of an analysis.
enum class Complexity { kLow, kMedium, kHigh, kPersistent };

std::string_view to_string(Complexity complexity);

/// The model's algorithm analysis of a slow candidate ("rescue"), validated.
struct AnalysisDiagnosis {
  bool worth_optimizing = false;
  /// Why (or why not) it is worth optimising.
  std::string reason;
  std::string bottleneck;
  std::string optimisation_method;
  /// A list in the reply becomes one line per item.
  std::string modification_plan;
  /// As the model wrote it ("2-3x", "1.5").
  std::string expected_speedup;
  /// The first number of expected_speedup (2 for "2-3x"); nullopt when it has none.
  std::optional<double> expected_speedup_factor;
  Complexity implementation_complexity = Complexity::kMedium;
  /// Lower-cased: persistent_recurrent, elementwise, reduction, gemm, conv or mixed.
  std::string kernel_type;
};

/// Finds the analysis JSON in a reply (extract_json_object) and validates it against the analysis
/// schema: worth_optimizing (yes/no or true/false, or {"answer", "reason"}) with a reason,
/// bottleneck, optimisation_method (or optimization_method), modification_plan, expected_speedup,
/// implementation_complexity (low|medium|high|persistent) and kernel_type (persistent_recurrent|
/// elementwise|reduction|gemm|conv|mixed); field names may also be spelled with spaces
/// ("optimisation method"). The texts (reason, bottleneck, optimisation_method, modification_plan,
/// expected_speedup) must be complete and bounded: at most 1500 characters (the plan 4000), not
/// cut off (ending in "...", a comma, colon, semicolon, dash or an opening bracket). The error
/// lists every problem at once, to be sent back to the model: "failed to parse the analysis:
/// missing bottleneck, kernel_type; implementation_complexity must be one of low, medium, high,
/// persistent (got \"huge\")".
util::Result<AnalysisDiagnosis> parse_analysis(std::string_view reply);

/// The model's analysis as prompt variables, for the optimise stage.
prompts::Vars diagnosis_vars(const AnalysisDiagnosis& diagnosis);

}  // namespace kforge::pipeline

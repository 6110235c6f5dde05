#include <fmt/format.h>

#include "analysis/rules.h"

namespace kforge::analysis {

void check_syntax_error(const Facts& facts, std::vector<Diagnostic>& out) {
  if (!facts.syntax_error) return;
  out.push_back({"syntax-error", Severity::kError,
                 at(facts, facts.syntax_error->line, facts.syntax_error->column),
                 fmt::format("the candidate is not valid Python: {}", facts.syntax_error->message),
                 "Return one complete Python file: balanced brackets, consistent indentation, no "
                 "prose or markdown fences inside the code."});
}

}  // namespace kforge::analysis

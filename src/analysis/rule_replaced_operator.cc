#include <fmt/format.h>

#include <set>

#include "analysis/rules.h"

namespace kforge::analysis {

void check_replaced_operator(const Facts& facts, std::vector<Diagnostic>& out) {
  if (!facts.reference || facts.reference->replaced_families.empty()) return;
  const ReferenceFacts& reference = *facts.reference;
  bool single_op = reference.replaced_families.size() == 1;
  std::set<std::pair<std::string, int>> seen;
  for (const TorchOp& op : facts.torch_ops) {
    if (!contains(reference.replaced_families, op.family)) continue;
    if (!seen.insert({op.name, op.line}).second) continue;
    Severity severity = op.heavy || single_op ? Severity::kError : Severity::kWarning;
    out.push_back(
        {"replaced-operator", severity, at(facts, op.line),
         fmt::format("calls {} ({}), an operator of the reference this task asks to replace{}",
                     op.name, op.family, op.in_loop ? " (inside a loop)" : ""),
         fmt::format("Compute {} with your own Triton kernels. PyTorch may allocate, reshape and "
                     "hold parameters (a module built in __init__ for its weights is fine as "
                     "long as forward never calls it).",
                     op.family)});
  }
}

}  // namespace kforge::analysis

// Mistakes Triton reports only when it compiles a kernel, caught from the syntax tree first:
// names the installed Triton does not have, tl.arange with run-time bounds, Python subscripts of
// tensors.

#include <fmt/format.h>

#include "analysis/rules.h"

namespace kforge::analysis {

namespace {

std::string api_hint(std::string_view name, std::string_view version) {
  std::string installed =
      version.empty() ? "the installed Triton" : fmt::format("Triton {}", version);
  if (name == "tl.tanh" || name == "tl.math.tanh")
    return fmt::format(
        "{} has no tl.tanh. Use `from triton.language.extra import libdevice` and "
        "libdevice.tanh(x), or compute it in a @triton.jit helper: 2 * tl.sigmoid(2 * x) - 1.",
        installed);
  return fmt::format(
      "Use only names that exist in {} (triton.language, triton.language.extra.libdevice); "
      "write anything missing yourself as a small @triton.jit helper built from tl.exp, "
      "tl.log, tl.where and arithmetic.",
      installed);
}

}  // namespace

void check_missing_triton_api(const Facts& facts, std::vector<Diagnostic>& out) {
  auto report = [&](const MissingApi& api) {
    out.push_back({"missing-triton-api", Severity::kError, at(facts, api.line, api.column),
                   fmt::format("`{}` does not exist in the installed Triton{}", api.name,
                               facts.triton_version.empty() ? "" : " " + facts.triton_version),
                   api_hint(api.name, facts.triton_version)});
  };
  for (const MissingApi& api : facts.import_missing_api) report(api);
  for (const JitFunction& function : facts.jit_functions)
    for (const MissingApi& api : function.missing_api) report(api);
}

void check_nonconstexpr_arange(const Facts& facts, std::vector<Diagnostic>& out) {
  for (const JitFunction& function : facts.jit_functions)
    for (const RuntimeArange& arange : function.nonconstexpr_arange) {
      std::string names = fmt::format("{}", fmt::join(arange.runtime_names, ", "));
      out.push_back(
          {"non-constexpr-arange", Severity::kError, at(facts, arange.line, arange.column),
           fmt::format("`{}` in {}: {} {} a run-time value; tl.arange's bounds must be "
                       "tl.constexpr",
                       arange.expr, function.name, names,
                       arange.runtime_names.size() == 1 ? "is" : "are"),
           fmt::format("Declare the bound as a compile-time parameter (`{}: tl.constexpr`, a "
                       "power of two), pass it by keyword at the launch, and mask the tail with "
                       "`offs < n` when the real size is smaller.",
                       arange.runtime_names.empty() ? "BLOCK" : arange.runtime_names.front())});
    }
}

void check_tensor_subscript(const Facts& facts, std::vector<Diagnostic>& out) {
  for (const JitFunction& function : facts.jit_functions)
    for (const TensorSubscript& subscript : function.tensor_subscripts)
      out.push_back(
          {"tensor-subscript", Severity::kError, at(facts, subscript.line, subscript.column),
           fmt::format("`{}` in {} indexes a Triton tensor with a Python subscript; inside "
                       "@triton.jit only x[:, None] / x[None, :] are allowed",
                       subscript.expr, function.name),
           "Load the elements you need from global memory with tl.load(ptr + idx, mask=...) "
           "instead of indexing a tensor already in registers, or keep the whole block and "
           "combine with broadcasting, tl.where and tl.sum."});
}

}  // namespace kforge::analysis

#include "analysis/classification.h"

#include <algorithm>
#include <set>

#include "analysis/rules.h"

namespace kforge::analysis {

namespace {

bool name_has(std::string_view name, std::string_view word) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find(word) != std::string::npos;
}

bool has_time_loop(const JitFunction& function) {
  for (const KernelLoop& loop : function.loops)
    if (contains(loop.roles, "time") && loop.loads + loop.stores > 0) return true;
  return false;
}

bool is_persistent(const JitFunction& function) {
  return has_time_loop(function) || !function.recurrences.empty();
}

}  // namespace

std::string kernel_kind(const JitFunction& function) {
  if (function.memory.empty()) return "";
  if (name_has(function.name, "conv") || name_has(function.name, "winograd") ||
      name_has(function.name, "im2col"))
    return "conv";
  if (function.dots > 0) return "gemm";
  if (!function.reductions.empty()) return "reduction";
  return "elementwise";
}

Classification classify(const Facts& facts) {
  Classification out;
  std::vector<const JitFunction*> kernels;
  for (const JitFunction& function : facts.jit_functions)
    if (function.launched) kernels.push_back(&function);
  if (kernels.empty())
    for (const JitFunction& function : facts.jit_functions) kernels.push_back(&function);
  std::set<std::string> kinds;
  bool recurrent_loop = false;
  for (const JitFunction* function : kernels) {
    if (is_persistent(*function)) {
      out.persistent = true;
      if (has_time_loop(*function) || !function->recurrences.empty()) recurrent_loop = true;
    }
    std::string kind = kernel_kind(*function);
    if (!kind.empty()) kinds.insert(kind);
  }
  if (out.persistent && recurrent_loop)
    out.kernel_type = "persistent_recurrent";
  else if (kinds.size() == 1)
    out.kernel_type = *kinds.begin();
  else if (kinds.size() > 1)
    out.kernel_type = "mixed";
  return out;
}

}  // namespace kforge::analysis

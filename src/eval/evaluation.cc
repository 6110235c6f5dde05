#include "eval/evaluation.h"

#include <array>
#include <utility>

namespace kforge::eval {

namespace {
constexpr std::array<std::pair<Status, std::string_view>, 8> kStatusNames = {{
    {Status::kOk, "ok"},
    {Status::kSyntaxError, "syntax_error"},
    {Status::kCompileError, "compile_error"},
    {Status::kRuntimeError, "runtime_error"},
    {Status::kWrongOutput, "wrong_output"},
    {Status::kTimeout, "timeout"},
    {Status::kCrashed, "crashed"},
    {Status::kRejected, "rejected"},
}};
}  // namespace

std::string_view to_string(Status status) {
  for (const auto& [value, name] : kStatusNames)
    if (value == status) return name;
  return "crashed";
}

std::string_view to_string(NumericsPolicy policy) {
  return policy == NumericsPolicy::kStrict ? "strict" : "tolerance";
}

std::optional<NumericsPolicy> numerics_policy_from_string(std::string_view text) {
  if (text == "tolerance") return NumericsPolicy::kTolerance;
  if (text == "strict") return NumericsPolicy::kStrict;
  return std::nullopt;
}

std::optional<Status> status_from_string(std::string_view text) {
  for (const auto& [value, name] : kStatusNames)
    if (name == text) return value;
  return std::nullopt;
}

}  // namespace kforge::eval

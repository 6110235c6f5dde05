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

std::optional<Status> status_from_string(std::string_view text) {
  for (const auto& [value, name] : kStatusNames)
    if (name == text) return value;
  return std::nullopt;
}

}  // namespace kforge::eval

namespace kforge::eval {

EvalRequest evaluate_request(const EvalSettings& settings, const std::filesystem::path& task,
                             const std::filesystem::path& candidate) {
  EvalRequest request;
  request.task = task;
  request.candidate = candidate;
  request.device = settings.device;
  request.shrink = settings.shrink;
  request.precision = settings.precision;
  request.numerics = settings.numerics;
  request.input_sets = settings.input_sets;
  request.trials = settings.trials;
  request.warmup = settings.warmup;
  request.flush_l2 = settings.flush_l2;
  request.timeout_s = settings.timeout_s;
  request.allow_pytorch_only = settings.allow_pytorch_only;
  return request;
}

EvalRequest scoring_request(const EvalSettings& settings, const std::filesystem::path& task,
                            const std::filesystem::path& candidate) {
  EvalRequest request = evaluate_request(settings, task, candidate);
  if (request.device == Device::kCuda) request.baselines = {"eager", "compile", "cuda_graph"};
  return request;
}

}  // namespace kforge::eval

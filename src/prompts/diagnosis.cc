#include "prompts/diagnosis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <vector>

#include "util/source_location.h"

namespace kforge::prompts {

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 4> kComplexities = {"low", "medium", "high", "persistent"};
constexpr std::array<std::string_view, 6> kKernelTypes = {
    "persistent_recurrent", "elementwise", "reduction", "gemm", "conv", "mixed"};

/// The text of the JSON object in `reply`: a ```json fence first, then any fence that starts
/// with '{', then the outermost braces.
std::string_view find_object(std::string_view reply) {
  std::size_t fence = reply.find("```json");
  if (fence != std::string_view::npos) {
    std::size_t body = reply.find('\n', fence);
    std::size_t close = body == std::string_view::npos ? body : reply.find("```", body);
    if (body != std::string_view::npos && close != std::string_view::npos)
      return reply.substr(body + 1, close - body - 1);
  }
  std::size_t open = reply.find('{');
  std::size_t close = reply.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return {};
  return reply.substr(open, close - open + 1);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/// The string at the first of `names` present (models vary "optimisation_method",
/// "optimization_method", "optimisation method"); numbers and booleans are written out.
std::optional<std::string> field(const json& object,
                                 std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    auto it = object.find(std::string(name));
    if (it == object.end() || it->is_null()) continue;
    if (it->is_string()) return it->get<std::string>();
    if (it->is_boolean()) return it->get<bool>() ? "yes" : "no";
    if (it->is_number() || it->is_array() || it->is_object())
      return it->dump(-1, ' ', false, json::error_handler_t::replace);
  }
  return std::nullopt;
}

}  // namespace

util::Result<Diagnosis> parse_diagnosis(std::string_view reply) {
  std::string_view text = find_object(reply);
  if (text.empty())
    return util::fail("failed to parse the analysis: the reply holds no JSON object");
  json object = json::parse(text, nullptr, false);
  if (object.is_discarded()) {
    // Re-parse with exceptions on to learn the byte offset of the syntax error.
    try {
      json strict = json::parse(text);
      (void)strict;
    } catch (const json::parse_error& error) {
      util::SourceLocation location = util::location_of_offset("reply", text, error.byte - 1);
      return util::fail("failed to parse the analysis: {}",
                        util::format_located_error(location, text, "invalid JSON"));
    }
    return util::fail("failed to parse the analysis: invalid JSON");
  }
  if (!object.is_object())
    return util::fail("failed to parse the analysis: the JSON is not an object");

  Diagnosis diagnosis;
  std::vector<std::string> missing;
  std::vector<std::string> invalid;
  auto take = [&](std::string& out, std::string_view name,
                  std::initializer_list<std::string_view> names) {
    std::optional<std::string> value = field(object, names);
    if (!value || value->empty())
      missing.emplace_back(name);
    else
      out = *value;
  };

  // worth_optimizing may be "yes"/"no", a boolean, or {"answer": …, "reason": …}.
  auto worth = object.find("worth_optimizing");
  if (worth != object.end() && worth->is_object()) {
    std::optional<std::string> answer = field(*worth, {"answer", "value", "decision"});
    if (answer) diagnosis.reason = field(*worth, {"reason"}).value_or("");
    if (answer) {
      std::string a = lower(*answer);
      if (a == "yes" || a == "true")
        diagnosis.worth_optimizing = true;
      else if (a == "no" || a == "false")
        diagnosis.worth_optimizing = false;
      else
        invalid.push_back(fmt::format("worth_optimizing must be yes or no (got \"{}\")", *answer));
    } else {
      missing.emplace_back("worth_optimizing");
    }
  } else {
    std::optional<std::string> answer = field(object, {"worth_optimizing", "worth optimizing"});
    if (!answer) {
      missing.emplace_back("worth_optimizing");
    } else {
      std::string a = lower(*answer);
      if (a.starts_with("yes") || a == "true")
        diagnosis.worth_optimizing = true;
      else if (a.starts_with("no") || a == "false")
        diagnosis.worth_optimizing = false;
      else
        invalid.push_back(fmt::format("worth_optimizing must be yes or no (got \"{}\")", *answer));
    }
  }
  if (diagnosis.reason.empty())
    take(diagnosis.reason, "reason", {"reason", "worth_optimizing_reason"});
  take(diagnosis.bottleneck, "bottleneck", {"bottleneck"});
  take(
      diagnosis.optimisation_method, "optimisation_method",
      {"optimisation_method", "optimization_method", "optimisation method", "optimization method"});
  take(diagnosis.modification_plan, "modification_plan",
       {"modification_plan", "modification plan"});
  take(diagnosis.expected_speedup, "expected_speedup", {"expected_speedup", "expected speedup"});
  take(diagnosis.implementation_complexity, "implementation_complexity",
       {"implementation_complexity", "implementation complexity"});
  take(diagnosis.kernel_type, "kernel_type", {"kernel_type", "kernel type"});

  auto check_enum = [&](std::string& value, std::string_view name, auto allowed) {
    if (value.empty()) return;
    std::string normal = lower(value);
    if (std::find(allowed.begin(), allowed.end(), normal) != allowed.end()) {
      value = normal;
      return;
    }
    invalid.push_back(
        fmt::format("{} must be one of {} (got \"{}\")", name, fmt::join(allowed, ", "), value));
  };
  check_enum(diagnosis.implementation_complexity, "implementation_complexity", kComplexities);
  check_enum(diagnosis.kernel_type, "kernel_type", kKernelTypes);

  if (missing.empty() && invalid.empty()) return diagnosis;
  std::vector<std::string> problems;
  if (!missing.empty()) problems.push_back(fmt::format("missing {}", fmt::join(missing, ", ")));
  problems.insert(problems.end(), invalid.begin(), invalid.end());
  return util::fail("failed to parse the analysis: {}", fmt::join(problems, "; "));
}

}  // namespace kforge::prompts

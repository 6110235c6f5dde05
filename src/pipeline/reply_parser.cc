#include "pipeline/reply_parser.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>
#include <tuple>

#include "util/source_location.h"

namespace kforge::pipeline {

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 6> kKernelTypes = {
    "persistent_recurrent", "elementwise", "reduction", "gemm", "conv", "mixed"};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

/// The lines of `text` with their byte offsets.
std::vector<std::pair<std::size_t, std::string_view>> lines_of(std::string_view text) {
  std::vector<std::pair<std::size_t, std::string_view>> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(start, line);
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

/// The fence ("```" or "~~~" or longer) opening `line`, or empty.
std::string_view fence_of(std::string_view line) {
  std::size_t indent = 0;
  while (indent < line.size() && indent < 3 && line[indent] == ' ') ++indent;
  line.remove_prefix(indent);
  if (line.size() < 3 || (line[0] != '`' && line[0] != '~')) return {};
  std::size_t length = 0;
  while (length < line.size() && line[length] == line[0]) ++length;
  return length >= 3 ? line.substr(0, length) : std::string_view();
}

bool defines_model_new(std::string_view code) {
  for (const auto& [offset, line] : lines_of(code)) {
    if (!line.starts_with("class ")) continue;  // top level only
    std::string_view rest = trim(line.substr(6));
    if (rest.starts_with("ModelNew") &&
        (rest.size() == 8 || rest[8] == '(' || rest[8] == ':' || rest[8] == ' '))
      return true;
  }
  return false;
}

bool is_python(std::string_view language) {
  return language.empty() || language == "python" || language == "py" || language == "python3";
}

/// The first line of bare source: an import, a definition, a decorator or a comment.
bool starts_code(std::string_view line) {
  for (std::string_view start : {"import ", "from ", "class ", "def ", "@", "#", "\"\"\""})
    if (line.starts_with(start)) return true;
  return false;
}

/// `text` with trailing commas before } or ] removed (outside strings), a common model slip.
std::string without_trailing_commas(std::string_view text) {
  std::string out;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == ',') {
      std::size_t next = text.find_first_not_of(" \t\r\n", i + 1);
      if (next != std::string_view::npos && (text[next] == '}' || text[next] == ']')) continue;
    }
    out += c;
  }
  return out;
}

/// Where a JSON parse failed.
struct JsonFailure {
  std::size_t offset = 0;  // in the reply
  std::string message;
};

/// Parses `text` (found at `offset` in the reply) as a JSON object, tolerating comments and
/// trailing commas.
std::expected<json, JsonFailure> parse_object(std::string_view text, std::size_t offset) {
  try {
    json value = json::parse(text, nullptr, true, /*ignore_comments=*/true);
    if (!value.is_object()) return std::unexpected(JsonFailure{offset, "not a JSON object"});
    return value;
  } catch (const json::parse_error& error) {
    json value = json::parse(without_trailing_commas(text), nullptr, false, true);
    if (!value.is_discarded() && value.is_object()) return value;
    std::string message = error.what();
    if (std::size_t column = message.find("column "); column != std::string::npos)
      if (std::size_t colon = message.find(": ", column); colon != std::string::npos)
        message = message.substr(colon + 2);
    std::size_t at = std::min(error.byte > 0 ? error.byte - 1 : 0, text.size());
    return std::unexpected(JsonFailure{offset + at, message});
  }
}

/// The end (one past) of the balanced object starting at `open`, or npos.
std::size_t matching_brace(std::string_view text, std::size_t open) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

/// The object in the reply and where it failed when none parsed.
struct FoundObject {
  std::optional<json> object;
  std::optional<JsonFailure> failure;
};

FoundObject find_object(std::string_view reply) {
  FoundObject found;
  auto attempt = [&](std::string_view text, std::size_t offset) {
    auto parsed = parse_object(text, offset);
    if (parsed) {
      found.object = std::move(*parsed);
      return true;
    }
    if (!found.failure) found.failure = parsed.error();
    return false;
  };
  std::vector<CodeBlock> blocks = find_code_blocks(reply);
  auto offset_of = [&](const CodeBlock& block) {
    auto lines = lines_of(reply);
    return block.line - 1 < lines.size() ? lines[block.line - 1].first : 0;
  };
  for (const CodeBlock& block : blocks)
    if (block.language.starts_with("json") && attempt(block.code, offset_of(block))) return found;
  for (const CodeBlock& block : blocks)
    if (!block.language.starts_with("json") && trim(block.code).starts_with("{") &&
        attempt(block.code, offset_of(block)))
      return found;
  for (std::size_t open = reply.find('{'); open != std::string_view::npos;
       open = reply.find('{', open + 1)) {
    std::size_t end = matching_brace(reply, open);
    std::string_view text =
        reply.substr(open, end == std::string_view::npos ? reply.size() - open : end - open);
    if (attempt(text, open)) return found;
    if (end == std::string_view::npos) break;
  }
  return found;
}

/// `value` as JSON text; bytes that are not UTF-8 become U+FFFD instead of throwing.
std::string dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// The string at the first of `names` present; numbers written out; lists joined by lines.
std::optional<std::string> text_field(const json& object,
                                      std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    auto it = object.find(name);
    if (it == object.end() || it->is_null()) continue;
    if (it->is_string()) return std::string(trim(it->get<std::string>()));
    if (it->is_number()) return dump(*it);
    if (it->is_array()) {
      std::string joined;
      for (const json& item : *it)
        joined += (joined.empty() ? "" : "\n") +
                  (item.is_string() ? item.get<std::string>() : dump(item));
      return joined;
    }
    return dump(*it);
  }
  return std::nullopt;
}

std::optional<double> first_number(std::string_view text) {
  std::size_t at = text.find_first_of("0123456789");
  if (at == std::string_view::npos) return std::nullopt;
  double value = 0;
  auto [end, error] = std::from_chars(text.data() + at, text.data() + text.size(), value);
  if (error != std::errc()) return std::nullopt;
  return value;
}

/// Why no object was found, with the place of the first syntax error.
std::string json_failure(const FoundObject& found, std::string_view reply) {
  if (!found.failure) return "the reply holds no JSON object";
  util::SourceLocation location = util::location_of_offset("reply", reply, found.failure->offset);
  return util::format_located_error(location, reply, found.failure->message);
}

}  // namespace

std::vector<CodeBlock> find_code_blocks(std::string_view reply) {
  std::vector<CodeBlock> blocks;
  auto lines = lines_of(reply);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view fence = fence_of(lines[i].second);
    if (fence.empty()) continue;
    std::string_view info =
        trim(lines[i].second.substr(lines[i].second.find(fence) + fence.size()));
    CodeBlock block;
    block.language = lower(info.substr(0, info.find_first_of(" \t{")));
    block.line = i + 2;
    block.closed = false;
    std::size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      std::string_view closing = trim(lines[j].second);
      if (closing.size() >= fence.size() &&
          closing.find_first_not_of(fence[0]) == std::string_view::npos) {
        block.closed = true;
        break;
      }
      block.code += lines[j].second;
      block.code += '\n';
    }
    blocks.push_back(std::move(block));
    i = j;
  }
  return blocks;
}

util::Result<CandidateCode> extract_candidate_code(std::string_view reply) {
  std::vector<CodeBlock> blocks = find_code_blocks(reply);
  const CodeBlock* best = nullptr;
  bool best_defines = false;
  for (const CodeBlock& block : blocks) {
    bool defines = defines_model_new(block.code);
    if (!defines && !is_python(block.language)) continue;
    if (trim(block.code).empty()) continue;
    bool better = best == nullptr || (defines && !best_defines) ||
                  (defines == best_defines && block.code.size() >= best->code.size());
    if (better) {
      best = &block;
      best_defines = defines;
    }
  }
  if (best != nullptr) return CandidateCode{best->code, best_defines, !best->closed};
  if (!blocks.empty())
    return util::fail(
        "failed to extract code from the reply: no ```python block (found {} "
        "block{} in other languages)",
        blocks.size(), blocks.size() == 1 ? "" : "s");
  if (!defines_model_new(reply))
    return util::fail(
        "failed to extract code from the reply: no ```python block and no class "
        "ModelNew");
  for (const auto& [offset, line] : lines_of(reply))
    if (starts_code(line)) return CandidateCode{std::string(reply.substr(offset)), true, false};
  return CandidateCode{std::string(reply), true, false};
}

util::Result<std::string> extract_model_new(std::string_view reply) {
  util::Result<CandidateCode> candidate = extract_candidate_code(reply);
  if (!candidate) return std::unexpected(candidate.error());
  if (!candidate->defines_model_new)
    return util::fail(
        "failed to extract code from the reply: no code block defines class "
        "ModelNew(nn.Module)");
  return std::move(candidate->code);
}

util::Result<std::string> extract_json_object(std::string_view reply) {
  FoundObject found = find_object(reply);
  if (found.object) return found.object->dump();
  return util::fail("failed to parse the JSON in the reply: {}", json_failure(found, reply));
}

std::string_view to_string(Complexity complexity) {
  switch (complexity) {
    case Complexity::kLow:
      return "low";
    case Complexity::kMedium:
      return "medium";
    case Complexity::kHigh:
      return "high";
    case Complexity::kPersistent:
      return "persistent";
  }
  return "?";
}

namespace {

/// Why an analysis text cannot be reused as it is ("" when it can): too long, or cut off (it ends
/// in "...", a comma, colon, semicolon, dash or an opening bracket). Brackets are not counted:
/// a half-open range "[a, b)" is normal in a plan.
std::string text_problem(const std::string& text, std::size_t limit) {
  if (text.size() > limit)
    return fmt::format("is {} characters long (at most {})", text.size(), limit);
  std::string_view t = trim(text);
  for (std::string_view end : {"...", "\u2026", ",", ";", ":", "(", "[", "-", "\u2014"})
    if (t.ends_with(end))
      return fmt::format("looks cut off (it ends with \"{}\"): write it out in full", end);
  return "";
}

}  // namespace

util::Result<AnalysisDiagnosis> parse_analysis(std::string_view reply) {
  FoundObject found = find_object(reply);
  if (!found.object)
    return util::fail("failed to parse the analysis: {}", json_failure(found, reply));
  const json& object = *found.object;
  AnalysisDiagnosis diagnosis;
  std::vector<std::string> missing, invalid;

  // worth_optimizing: "yes"/"no" (possibly followed by a reason), a boolean, or an object.
  const json* worth = nullptr;
  for (std::string_view name : {"worth_optimizing", "worth optimizing"})
    if (auto it = object.find(name); worth == nullptr && it != object.end() && !it->is_null())
      worth = &*it;
  std::optional<std::string> answer;
  if (worth != nullptr && worth->is_object()) {
    answer = text_field(*worth, {"answer", "value", "decision", "worth_optimizing"});
    diagnosis.reason = text_field(*worth, {"reason", "why"}).value_or("");
  } else if (worth != nullptr && worth->is_boolean()) {
    answer = worth->get<bool>() ? "yes" : "no";
  } else if (worth != nullptr) {
    answer = text_field(object, {"worth_optimizing", "worth optimizing"});
  }
  if (!answer) {
    missing.emplace_back("worth_optimizing");
  } else {
    std::string a = lower(*answer);
    auto word = [&](std::string_view w) {
      return a.starts_with(w) &&
             (a.size() == w.size() || !std::isalpha(static_cast<unsigned char>(a[w.size()])));
    };
    if (word("yes") || word("true"))
      diagnosis.worth_optimizing = true;
    else if (word("no") || word("false"))
      diagnosis.worth_optimizing = false;
    else
      invalid.push_back(fmt::format("worth_optimizing must be yes or no (got \"{}\")", *answer));
    if (diagnosis.reason.empty()) {
      // "yes - the grid is too small": the reason follows the answer.
      for (std::string_view w : {"yes", "true", "no", "false"}) {
        if (!word(w)) continue;
        std::string_view rest = std::string_view(*answer).substr(w.size());
        // separators, the UTF-8 dashes (— –) included
        while (!rest.empty()) {
          if (std::string_view(" -,:;.").find(rest.front()) != std::string_view::npos)
            rest.remove_prefix(1);
          else if (rest.starts_with("\u2014") || rest.starts_with("\u2013"))
            rest.remove_prefix(3);
          else
            break;
        }
        diagnosis.reason = std::string(trim(rest));
        break;
      }
    }
  }
  if (diagnosis.reason.empty())
    diagnosis.reason = text_field(object, {"reason", "worth_optimizing_reason"}).value_or("");
  if (diagnosis.reason.empty()) missing.emplace_back("reason");

  auto take = [&](std::string& out, std::string_view name,
                  std::initializer_list<std::string_view> names) {
    std::optional<std::string> value = text_field(object, names);
    if (!value || value->empty())
      missing.emplace_back(name);
    else
      out = *value;
  };
  take(diagnosis.bottleneck, "bottleneck", {"bottleneck"});
  take(
      diagnosis.optimisation_method, "optimisation_method",
      {"optimisation_method", "optimization_method", "optimisation method", "optimization method"});
  take(diagnosis.modification_plan, "modification_plan",
       {"modification_plan", "modification plan"});
  take(diagnosis.expected_speedup, "expected_speedup", {"expected_speedup", "expected speedup"});
  diagnosis.expected_speedup_factor = first_number(diagnosis.expected_speedup);
  std::string complexity;
  take(complexity, "implementation_complexity",
       {"implementation_complexity", "implementation complexity"});
  std::string kernel_type;
  take(kernel_type, "kernel_type", {"kernel_type", "kernel type"});

  if (!complexity.empty()) {
    std::string c = lower(complexity);
    if (c == "low")
      diagnosis.implementation_complexity = Complexity::kLow;
    else if (c == "medium")
      diagnosis.implementation_complexity = Complexity::kMedium;
    else if (c == "high")
      diagnosis.implementation_complexity = Complexity::kHigh;
    else if (c == "persistent")
      diagnosis.implementation_complexity = Complexity::kPersistent;
    else
      invalid.push_back(fmt::format(
          "implementation_complexity must be one of low, medium, high, persistent (got \"{}\")",
          complexity));
  }
  if (!kernel_type.empty()) {
    diagnosis.kernel_type = lower(kernel_type);
    if (std::find(kKernelTypes.begin(), kKernelTypes.end(), diagnosis.kernel_type) ==
        kKernelTypes.end())
      invalid.push_back(fmt::format("kernel_type must be one of {} (got \"{}\")",
                                    fmt::join(kKernelTypes, ", "), kernel_type));
  }

  // The texts are shown to later prompts and reports: complete, and of a sane length.
  for (const auto& [name, text, limit] :
       {std::tuple<std::string_view, const std::string*, std::size_t>{"reason", &diagnosis.reason,
                                                                      1500},
        {"bottleneck", &diagnosis.bottleneck, 1500},
        {"optimisation_method", &diagnosis.optimisation_method, 1500},
        {"modification_plan", &diagnosis.modification_plan, 4000},
        {"expected_speedup", &diagnosis.expected_speedup, 1500}}) {
    if (text->empty()) continue;  // reported as missing
    if (std::string problem = text_problem(*text, limit); !problem.empty())
      invalid.push_back(fmt::format("{} {}", name, problem));
  }
  if (missing.empty() && invalid.empty()) return diagnosis;
  std::vector<std::string> problems;
  if (!missing.empty()) problems.push_back(fmt::format("missing {}", fmt::join(missing, ", ")));
  problems.insert(problems.end(), invalid.begin(), invalid.end());
  return util::fail("failed to parse the analysis: {}", fmt::join(problems, "; "));
}

prompts::Vars diagnosis_vars(const AnalysisDiagnosis& diagnosis) {
  return {
      {"worth_optimizing", diagnosis.worth_optimizing ? "yes" : "no"},
      {"diagnosis_reason", diagnosis.reason},
      {"bottleneck", diagnosis.bottleneck},
      {"optimisation_method", diagnosis.optimisation_method},
      {"modification_plan", diagnosis.modification_plan},
      {"expected_speedup", diagnosis.expected_speedup},
      {"implementation_complexity", std::string(to_string(diagnosis.implementation_complexity))},
      {"diagnosis_kernel_type", diagnosis.kernel_type},
  };
}

}  // namespace kforge::pipeline

#include "llm/api_error.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>

namespace kforge::llm {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string as_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return {};
  return value.dump();
}

std::string trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  constexpr std::size_t kMax = 400;
  if (text.size() > kMax) return std::string(text.substr(0, kMax)) + "…";
  return std::string(text);
}

}  // namespace

ApiError parse_api_error(std::string_view body) {
  ApiError error;
  nlohmann::json json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    error.message = trimmed(body);
    return error;
  }
  const nlohmann::json* detail = &json;
  if (auto it = json.find("error"); it != json.end()) {
    if (it->is_string()) {
      error.message = it->get<std::string>();
      return error;
    }
    if (it->is_object()) detail = &*it;
  }
  if (auto it = detail->find("message"); it != detail->end()) error.message = as_text(*it);
  if (auto it = detail->find("type"); it != detail->end()) error.type = as_text(*it);
  if (auto it = detail->find("param"); it != detail->end()) error.param = as_text(*it);
  if (auto it = detail->find("code"); it != detail->end()) error.code = as_text(*it);
  if (error.message.empty()) {
    if (auto it = json.find("detail"); it != json.end())
      error.message = it->is_string() ? it->get<std::string>() : trimmed(it->dump());
    else
      error.message = trimmed(body);
  }
  return error;
}

bool is_context_length_error(const ApiError& error) {
  std::string text = lower(error.message + " " + error.code);
  for (std::string_view marker : {"context length", "context_length", "context window",
                                  "maximum context", "prompt is too long", "too many tokens",
                                  "maximum input length", "input is too long", "reduce the length"})
    if (text.find(marker) != std::string::npos) return true;
  return false;
}

std::string rejected_parameter(const ApiError& error) {
  static constexpr std::array<std::string_view, 4> kKnown = {"max_completion_tokens", "max_tokens",
                                                             "temperature", "stream_options"};
  std::string text = lower(error.message);
  bool unsupported = false;
  for (std::string_view marker :
       {"unsupported", "not supported", "unrecognized", "unknown parameter", "unknown field",
        "extra inputs are not permitted", "extra_forbidden", "not permitted", "not allowed",
        "does not support"})
    if (text.find(marker) != std::string::npos) unsupported = true;
  if (lower(error.code).find("unsupported") != std::string::npos) unsupported = true;
  if (!unsupported) return {};
  for (std::string_view name : kKnown)
    if (error.param == name) return std::string(name);
  // The name mentioned first is the rejected one ("'max_tokens' is not supported … use
  // 'max_completion_tokens' instead"); a name counts only when it stands alone.
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string_view first;
  std::size_t first_at = std::string::npos;
  for (std::string_view name : kKnown) {
    for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
      bool left = at == 0 || !is_word(text[at - 1]);
      bool right = at + name.size() >= text.size() || !is_word(text[at + name.size()]);
      if (left && right) {
        if (at < first_at) {
          first_at = at;
          first = name;
        }
        break;
      }
    }
  }
  if (!first.empty()) return std::string(first);
  return {};
}

}  // namespace kforge::llm

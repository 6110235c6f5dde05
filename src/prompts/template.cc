#include "prompts/template.h"

#include <vector>

#include "util/source_location.h"

namespace kforge::prompts {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

/// One open `{{#if}}` / `{{#unless}}`: whether its branch is being emitted, whether its
/// enclosing block was, and where it opened (for errors).
struct Block {
  std::string_view kind;  // "if" or "unless"
  bool condition = false;
  bool in_else = false;
  bool outer_active = true;
  std::size_t offset = 0;
  bool active() const { return outer_active && (in_else ? !condition : condition); }
};

}  // namespace

bool is_truthy(const Vars& vars, std::string_view name) {
  auto it = vars.find(name);
  if (it == vars.end()) return false;
  const std::string& value = it->second;
  return !value.empty() && value != "false" && value != "0";
}

util::Result<std::string> render_template(std::string_view text, const Vars& vars,
                                          std::string_view file) {
  auto error_at = [&](std::size_t offset, std::string_view message) {
    util::SourceLocation location = util::location_of_offset(std::string(file), text, offset);
    return std::unexpected(util::Error{util::format_located_error(location, text, message)});
  };
  std::string out;
  out.reserve(text.size());
  std::vector<Block> blocks;
  auto active = [&] { return blocks.empty() || blocks.back().active(); };
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) {
      if (active()) out.append(text.substr(pos));
      break;
    }
    if (active()) out.append(text.substr(pos, open - pos));
    std::size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) return error_at(open, "unterminated {{ tag");
    std::string_view tag = trim(text.substr(open + 2, close - open - 2));
    pos = close + 2;
    if (tag.starts_with("#if ") || tag.starts_with("#unless ")) {
      bool is_if = tag.starts_with("#if ");
      std::string_view name = trim(tag.substr(is_if ? 4 : 8));
      bool truth = is_truthy(vars, name);
      blocks.push_back({is_if ? "if" : "unless", is_if ? truth : !truth, false, active(), open});
      // A block tag alone on its line leaves no blank line behind.
      if (pos < text.size() && text[pos] == '\n' && (open == 0 || text[open - 1] == '\n')) ++pos;
    } else if (tag == "else") {
      if (blocks.empty()) return error_at(open, "{{else}} outside {{#if}}");
      if (blocks.back().in_else) return error_at(open, "second {{else}} in one block");
      blocks.back().in_else = true;
      if (pos < text.size() && text[pos] == '\n' && (open == 0 || text[open - 1] == '\n')) ++pos;
    } else if (tag == "/if" || tag == "/unless") {
      if (blocks.empty())
        return error_at(open, std::string("unbalanced {{") + std::string(tag) + "}}");
      if (blocks.back().kind != tag.substr(1))
        return error_at(open, "{{" + std::string(tag) + "}} closes a {{#" +
                                  std::string(blocks.back().kind) + "}}");
      blocks.pop_back();
      if (pos < text.size() && text[pos] == '\n' && (open == 0 || text[open - 1] == '\n')) ++pos;
    } else {
      if (tag.empty() || tag.front() == '#' || tag.front() == '/')
        return error_at(open, "unknown tag {{" + std::string(tag) + "}}");
      if (!active()) continue;
      auto it = vars.find(tag);
      if (it == vars.end()) return error_at(open, "unknown variable " + std::string(tag));
      out.append(it->second);
    }
  }
  if (!blocks.empty())
    return error_at(blocks.back().offset,
                    "{{#" + std::string(blocks.back().kind) + "}} is never closed");
  return out;
}

}  // namespace kforge::prompts

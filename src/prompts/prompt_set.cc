#include "prompts/prompt_set.h"

#include <fstream>
#include <sstream>

#include "util/file_text.h"

namespace kforge::prompts {

const std::vector<std::string_view>& stage_template_names() {
  static const std::vector<std::string_view> names = {"seed",           "repair",     "analysis",
                                                      "analysis_retry", "optimise",   "tune_grid",
                                                      "tune_tiling",    "tune_memory"};
  return names;
}

util::Result<PromptSet> PromptSet::load(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return util::fail("failed to load prompts from {}: not a folder", dir.string());
  PromptSet set;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".txt") continue;
    auto text = util::read_file(entry.path());
    if (!text) return util::fail("failed to read prompt {}: cannot open", entry.path().string());
    set.templates_[entry.path().stem().string()] = std::move(*text);
  }
  if (ec) return util::fail("failed to list prompts in {}: {}", dir.string(), ec.message());
  for (std::string_view name : stage_template_names())
    if (!set.has(name))
      return util::fail("failed to load prompts from {}: {}.txt is missing", dir.string(), name);
  return set;
}

PromptSet PromptSet::from_texts(std::map<std::string, std::string, std::less<>> templates) {
  PromptSet set;
  set.templates_ = std::move(templates);
  return set;
}

util::Result<std::string> PromptSet::render(std::string_view name, const Vars& vars) const {
  return render_at_depth(name, vars, 0);
}

util::Result<std::string> PromptSet::render_at_depth(std::string_view name, const Vars& vars,
                                                     int depth) const {
  auto it = templates_.find(name);
  if (it == templates_.end())
    return util::fail("failed to render prompt {}: no {}.txt", name, name);
  if (depth > 4)
    return util::fail("failed to render prompt {}: shared parts nest too deeply", name);
  const std::string& text = it->second;
  Vars scope = vars;
  for (const auto& [part, body] : templates_) {
    if (part == name || scope.contains(part)) continue;
    if (text.find("{{" + part + "}}") == std::string::npos) continue;
    auto rendered = render_at_depth(part, vars, depth + 1);
    if (!rendered) return std::unexpected(rendered.error());
    scope[part] = *rendered;
  }
  return render_template(text, scope, std::string(name) + ".txt");
}

util::Result<std::vector<llm::Message>> PromptSet::messages(std::string_view stage,
                                                            const Vars& vars) const {
  std::vector<llm::Message> out;
  if (has("system")) {
    auto system = render("system", vars);
    if (!system) return std::unexpected(system.error());
    out.push_back({"system", *system});
  }
  auto user = render(stage, vars);
  if (!user) return std::unexpected(user.error());
  out.push_back({"user", *user});
  return out;
}

}  // namespace kforge::prompts

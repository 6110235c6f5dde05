#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "llm/provider.h"
#include "prompts/template.h"
#include "util/error.h"

namespace kforge::prompts {

/// The prompt templates of prompts/: one `<name>.txt` per stage (seed, repair, analysis,
/// analysis_retry, optimise, tune_grid, tune_tiling, tune_memory) and shared parts (system,
/// triton_pitfalls, recurrent_lessons, …). A template uses a shared part by naming it like a
/// variable, `{{triton_pitfalls}}`; the part is rendered with the same variables first.
class PromptSet {
 public:
  /// Reads every *.txt in `dir`. Errors when the folder is missing or a stage template is absent.
  static util::Result<PromptSet> load(const std::filesystem::path& dir);
  /// Templates given as text, name → template (tests).
  static PromptSet from_texts(std::map<std::string, std::string, std::less<>> templates);

  /// Renders template `name` with `vars` and the shared parts it names.
  util::Result<std::string> render(std::string_view name, const Vars& vars) const;
  /// The chat for one stage: `system.txt` as the system message (when present) and
  /// `<stage>.txt` as the user message.
  util::Result<std::vector<llm::Message>> messages(std::string_view stage, const Vars& vars) const;

  bool has(std::string_view name) const { return templates_.contains(name); }

 private:
  util::Result<std::string> render_at_depth(std::string_view name, const Vars& vars,
                                            int depth) const;
  std::map<std::string, std::string, std::less<>> templates_;
};

/// The stage templates a prompts/ folder must hold.
const std::vector<std::string_view>& stage_template_names();

}  // namespace kforge::prompts

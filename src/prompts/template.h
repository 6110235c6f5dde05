#pragma once

#include <map>
#include <string>
#include <string_view>

#include "util/error.h"

namespace kforge::prompts {

/// Values for a template: name → text. A name is "true" for `{{#if name}}` when it is present
/// and its text is neither empty nor "false" nor "0".
using Vars = std::map<std::string, std::string, std::less<>>;

/// Renders a prompt template. The language is deliberately tiny: `{{name}}` is replaced by the
/// value of `name`, and `{{#if name}}…{{else}}…{{/if}}` (nestable, `{{else}}` optional) keeps one
/// branch; `{{#unless name}}…{{/unless}}` is the negation. Nothing else: prompt prose lives in
/// prompts/*.txt, never in C++.
///
/// Errors (with `file:line:col`, `file` naming the template): an unknown variable, an
/// unterminated tag, an unbalanced `{{/if}}`.
util::Result<std::string> render_template(std::string_view text, const Vars& vars,
                                          std::string_view file = "template");

/// True when `name` counts as set for `{{#if name}}`.
bool is_truthy(const Vars& vars, std::string_view name);

}  // namespace kforge::prompts

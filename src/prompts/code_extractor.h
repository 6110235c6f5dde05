#pragma once

#include <string>
#include <string_view>

#include "util/error.h"

namespace kforge::prompts {

/// Extracts the candidate source from a model reply: the fenced block (```python or bare ```)
/// that defines `class ModelNew`; the longest such block when there are several; the whole reply
/// when it has no fences but defines `ModelNew`. The error is written to be sent back to the
/// model in a repair prompt.
util::Result<std::string> extract_model_code(std::string_view reply);

}  // namespace kforge::prompts

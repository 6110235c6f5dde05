#pragma once

// Where kforge finds its shared data: the worker package, the prompt templates and the kernel
// library.

#include <filesystem>
#include <optional>

namespace kforge::util {

/// The folder holding kforge's shared data: `worker/` (the kforge_worker package), `prompts/` and
/// `library/`. Installed (`cmake --install build --prefix P`) it is `P/share/kforge`, beside
/// `P/bin/kforge`; in a checkout it is the repository root. Found from the running executable, so
/// a copied or installed binary finds its own data: the first ancestor of the executable's folder
/// that is such a folder or holds `share/kforge`; failing that, the source tree the binary was
/// built from (KFORGE_SOURCE_DIR), if it is still there. nullopt = none found.
std::optional<std::filesystem::path> find_data_dir();

/// Whether `dir` holds `worker/kforge_worker`.
bool is_data_dir(const std::filesystem::path& dir);

}  // namespace kforge::util

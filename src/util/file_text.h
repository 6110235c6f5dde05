#pragma once

// Reading a whole file: the one helper every component uses.

#include <filesystem>
#include <string>

#include "util/error.h"

namespace kforge::util {

/// The bytes of the file at `path`, as they are. Errors: "failed to read <path>: cannot open it".
Result<std::string> read_file(const std::filesystem::path& path);

}  // namespace kforge::util

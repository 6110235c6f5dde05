#pragma once

// Tests only: a fresh folder of their own under the system's temporary directory.

#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace kforge::util {

/// `<tmp>/kforge_<name>_<pid>`, emptied if it exists, then created.
inline std::filesystem::path fresh_temp_dir(std::string_view name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("kforge_" + std::string(name) + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace kforge::util

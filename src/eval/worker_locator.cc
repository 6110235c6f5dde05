#include "eval/worker_locator.h"

#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "util/data_dir.h"

namespace kforge::eval {

namespace {

namespace fs = std::filesystem;

bool has_worker_package(const fs::path& dir) {
  std::error_code error;
  return fs::is_regular_file(dir / "kforge_worker" / "__main__.py", error) ||
         fs::is_regular_file(dir / "kforge_worker" / "__init__.py", error);
}

bool is_executable(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

bool on_path(std::string_view program) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (!dirs.empty()) {
    std::size_t colon = dirs.find(':');
    fs::path dir(std::string(dirs.substr(0, colon)));
    if (is_executable(dir / program)) return true;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return false;
}

std::string first_nonempty(const std::string& given, const char* env_name) {
  if (!given.empty()) return given;
  const char* env = std::getenv(env_name);
  return env ? std::string(env) : std::string();
}

}  // namespace

util::Result<WorkerLocation> locate_worker(const LocatorInputs& inputs) {
  std::optional<fs::path> repo = inputs.repo ? inputs.repo : util::find_data_dir();
  WorkerLocation location;

  location.python = first_nonempty(inputs.python, "KFORGE_PYTHON");
  if (location.python.empty()) {
    if (repo && is_executable(*repo / ".venv" / "bin" / "python3"))
      location.python = (*repo / ".venv" / "bin" / "python3").string();
    else
      location.python = "python3";
  }

  std::string worker_dir = first_nonempty(inputs.worker_dir, "KFORGE_WORKER_DIR");
  if (!worker_dir.empty())
    location.worker_dir = fs::path(worker_dir);
  else if (repo)
    location.worker_dir = *repo / "worker";

  if (inputs.remote) {
    if (location.worker_dir.empty())
      return util::fail(
          "failed to find the worker: no kforge data folder here to take worker/ from (set "
          "--worker-dir or KFORGE_WORKER_DIR)");
    return location;
  }

  if (location.python.find('/') != std::string::npos) {
    if (!is_executable(location.python))
      return util::fail(
          "failed to find python: {} is not an executable file (set --python or "
          "KFORGE_PYTHON)",
          location.python);
  } else if (!on_path(location.python)) {
    return util::fail("failed to find python: no {} on PATH (set --python or KFORGE_PYTHON)",
                      location.python);
  }
  if (location.worker_dir.empty())
    return util::fail(
        "failed to find the worker: no kforge data folder found from the executable (set "
        "--worker-dir or KFORGE_WORKER_DIR)");
  if (!has_worker_package(location.worker_dir))
    return util::fail(
        "failed to find the worker: {} has no kforge_worker package (set --worker-dir or "
        "KFORGE_WORKER_DIR)",
        location.worker_dir.string());
  std::error_code error;
  fs::path absolute = fs::absolute(location.worker_dir, error);
  if (!error) location.worker_dir = absolute.lexically_normal();
  return location;
}

}  // namespace kforge::eval

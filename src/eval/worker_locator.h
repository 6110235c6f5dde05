#pragma once

// Where kforge finds the Python interpreter and the kforge_worker package.

#include <filesystem>
#include <optional>
#include <string>

#include "util/error.h"

namespace kforge::eval {

/// The interpreter and package folder a worker is started with.
struct WorkerLocation {
  /// Path or bare name of the Python interpreter.
  std::string python;
  /// Folder holding the kforge_worker package (goes on PYTHONPATH).
  std::filesystem::path worker_dir;
};

/// What the user asked for; empty strings mean "not given".
struct LocatorInputs {
  std::string python;      // --python / KFORGE_PYTHON
  std::string worker_dir;  // --worker-dir / KFORGE_WORKER_DIR
  /// The data folder (repository root or P/share/kforge); nullopt = util::find_data_dir().
  std::optional<std::filesystem::path> repo;
  /// Workers start through a launcher (ssh, srun): the paths name files on another machine, so
  /// they are not checked here.
  bool remote = false;
};

/// Python: the given one, else <data>/.venv/bin/python3 when it exists, else python3 from PATH.
/// Worker folder: the given one, else <data>/worker. Errors (locally) when the interpreter or the
/// package cannot be found: "failed to find the worker: /x/worker has no kforge_worker package
/// (set --worker-dir or KFORGE_WORKER_DIR)".
util::Result<WorkerLocation> locate_worker(const LocatorInputs& inputs);

}  // namespace kforge::eval

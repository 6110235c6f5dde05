#pragma once

// Packaging a run's verified best candidate as a library entry (`kforge library add RUN_DIR`).

#include <filesystem>

#include "library/library_provider.h"
#include "util/error.h"

namespace kforge::library {

/// Copies the best candidate of the run in `run_dir` (best.py), its evaluation and a meta.json
/// (measurements from run.json, and the task's signature when `inspect_task` can read the task)
/// into `library_dir`/<run id>. Errors: no verified best, no measured speed-up (CPU runs are not
/// timed), or the entry exists already: "failed to add runs/x: the run has no verified best
/// candidate".
util::Result<std::filesystem::path> add_run(const std::filesystem::path& run_dir,
                                            const std::filesystem::path& library_dir,
                                            const TaskInspector& inspect_task);

}  // namespace kforge::library

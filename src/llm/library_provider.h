#pragma once

// The offline provider backed by library/ (verified kernels), not a model.

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "llm/provider.h"
#include "task/task_info.h"

namespace kforge::llm {

/// Reads a task's module structure: the worker's inspect_task result.
using TaskInspector =
    std::function<util::Result<task::TaskInfo>(const std::filesystem::path& task)>;

struct LibraryProviderOptions {
  /// Folders searched for kernels, in order: the repository's library/ and the user's local one.
  std::vector<std::filesystem::path> library_dirs;
  /// Python with torch, and the folder holding kforge_worker: used to start a CPU worker for
  /// inspect_task when `inspect_task` is not set. Empty = KFORGE_PYTHON or the repository's
  /// .venv, and <repo>/worker.
  std::string python;
  std::filesystem::path worker_dir;
  /// How to read a task's TaskInfo (e.g. through the worker pool); unset = start a worker.
  TaskInspector inspect_task;
};

/// A Provider whose chat() answers with the library kernel matching request.task_path, as a
/// fenced python block; no match → an error "no library kernel for this task: <signature>".
std::unique_ptr<Provider> make_library_provider(const LibraryProviderOptions& options);

/// The inspector used when none is given: runs `python -m kforge_worker --cpu` once with an
/// inspect_task request and returns its parsed result.
TaskInspector worker_task_inspector(const LibraryProviderOptions& options);

}  // namespace kforge::llm

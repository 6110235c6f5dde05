#pragma once

// The offline provider backed by library/ (verified kernels), not a model.

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "llm/provider.h"
#include "task/task_info.h"

namespace kforge::library {

/// Reads a task's module structure: the worker's inspect_task result.
using TaskInspector =
    std::function<util::Result<task::TaskInfo>(const std::filesystem::path& task)>;

struct LibraryProviderOptions {
  /// Folders searched for kernels, in order: the repository's library/ and the user's local one.
  std::vector<std::filesystem::path> library_dirs;
  /// How to read a task's TaskInfo: through the run's worker pool (task::inspect_task), set by
  /// the command that owns the pool. Unset = chat() fails (the provider starts no worker).
  TaskInspector inspect_task;
};

/// A Provider whose chat() answers with the library kernel matching request.task_path, as a
/// fenced python block; no match → an error "no library kernel for this task: <signature>".
std::unique_ptr<llm::Provider> make_library_provider(const LibraryProviderOptions& options);

}  // namespace kforge::library

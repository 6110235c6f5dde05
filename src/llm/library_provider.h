#pragma once

// CONTRACT: the offline provider backed by library/ (verified kernels), not a model.

#include <filesystem>
#include <memory>

#include "llm/provider.h"

namespace kforge::llm {

struct LibraryProviderOptions {
  /// Folders searched for kernels: the repository's library/ and the user's local library.
  std::vector<std::filesystem::path> library_dirs;
  /// Python with torch (the task's module structure is read by the worker's inspect_task op).
  std::string python = "python3";
  std::filesystem::path worker_dir;
};

/// A Provider whose chat() answers with the library kernel matching request.task_path, as a
/// fenced python block; no match → an error "no library kernel for this task: …".
std::unique_ptr<Provider> make_library_provider(const LibraryProviderOptions& options);

}  // namespace kforge::llm

#include "library/library_provider.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "library/library_catalog.h"
#include "util/file_text.h"

namespace kforge::library {

namespace {

/// Answers with the verified kernel whose signature matches the task's; the prompt is ignored.
class LibraryProvider final : public llm::Provider {
 public:
  explicit LibraryProvider(LibraryProviderOptions options) : options_(std::move(options)) {
    // the user's own verified wins (`kforge library add`) are searched after the given folders
    const std::filesystem::path user = user_library_dir();
    if (std::find(options_.library_dirs.begin(), options_.library_dirs.end(), user) ==
        options_.library_dirs.end())
      options_.library_dirs.push_back(user);
  }

  util::Result<llm::ChatReply> chat(const llm::ChatRequest& request) override {
    const auto began = std::chrono::steady_clock::now();
    if (request.task_path.empty())
      return util::fail("failed to pick a library kernel: the request names no task");
    if (!options_.inspect_task)
      return util::fail(util::ErrorKind::kInternal,
                        "failed to pick a library kernel: no worker to inspect the task with");
    auto info = options_.inspect_task(request.task_path);
    if (!info)
      return std::unexpected(
          info.error().context("failed to inspect task {}", request.task_path.string()));
    TaskSignature signature = derive_signature(*info, request.task_path);
    auto entries = load_library(options_.library_dirs);
    if (!entries) return std::unexpected(entries.error());
    const LibraryEntry* entry = find_entry(*entries, signature);
    if (!entry) return util::fail("no library kernel for this task: {}", signature.describe());
    auto source = util::read_file(entry->source);
    if (!source)
      return util::fail("failed to read library kernel {}: cannot open {}", entry->name,
                        entry->source.string());
    llm::ChatReply reply;
    reply.content = fmt::format(
        "Library kernel `{}` ({}), verified on {}: {}\n\n```python\n{}```\n", entry->name,
        entry->dir.string(), fmt::join(entry->tasks, ", "), entry->description, *source);
    reply.finish_reason = "stop";
    reply.latency_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return reply;
  }

  std::string name() const override { return "library"; }
  std::string model() const override { return "verified"; }

 private:
  LibraryProviderOptions options_;
};

}  // namespace

std::unique_ptr<llm::Provider> make_library_provider(const LibraryProviderOptions& options) {
  return std::make_unique<LibraryProvider>(options);
}

}  // namespace kforge::library

#include "llm/library_provider.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/library_catalog.h"

namespace kforge::llm {

namespace {

using nlohmann::json;

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string default_python() {
  if (const char* env = std::getenv("KFORGE_PYTHON"); env && *env) return env;
  const std::filesystem::path venv = std::filesystem::path(KFORGE_SOURCE_DIR) / ".venv/bin/python3";
  return std::filesystem::exists(venv) ? venv.string() : "python3";
}

/// Answers with the verified kernel whose signature matches the task's; the prompt is ignored.
class LibraryProvider final : public Provider {
 public:
  explicit LibraryProvider(LibraryProviderOptions options) : options_(std::move(options)) {
    if (!options_.inspect_task) options_.inspect_task = worker_task_inspector(options_);
    // the user's own verified wins (`kforge library add`) are searched after the given folders
    const std::filesystem::path user = user_library_dir();
    if (std::find(options_.library_dirs.begin(), options_.library_dirs.end(), user) ==
        options_.library_dirs.end())
      options_.library_dirs.push_back(user);
  }

  util::Result<ChatReply> chat(const ChatRequest& request) override {
    const auto began = std::chrono::steady_clock::now();
    if (request.task_path.empty())
      return util::fail("failed to pick a library kernel: the request names no task");
    auto info = options_.inspect_task(request.task_path);
    if (!info)
      return std::unexpected(
          info.error().context("failed to inspect task {}", request.task_path.string()));
    TaskSignature signature = derive_signature(*info, request.task_path);
    auto entries = load_library(options_.library_dirs);
    if (!entries) return std::unexpected(entries.error());
    const LibraryEntry* entry = find_entry(*entries, signature);
    if (!entry) return util::fail("no library kernel for this task: {}", signature.describe());
    std::ifstream in(entry->source);
    if (!in)
      return util::fail("failed to read library kernel {}: cannot open {}", entry->name,
                        entry->source.string());
    std::stringstream source;
    source << in.rdbuf();
    ChatReply reply;
    reply.content = fmt::format(
        "Library kernel `{}` ({}), verified on {}: {}\n\n```python\n{}```\n", entry->name,
        entry->dir.string(), fmt::join(entry->tasks, ", "), entry->description, source.str());
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

TaskInspector worker_task_inspector(const LibraryProviderOptions& options) {
  const std::string python = options.python.empty() ? default_python() : options.python;
  const std::filesystem::path worker_dir = options.worker_dir.empty()
                                               ? std::filesystem::path(KFORGE_SOURCE_DIR) / "worker"
                                               : options.worker_dir;
  return [python, worker_dir](const std::filesystem::path& task) -> util::Result<task::TaskInfo> {
    // one request then shutdown, fed from a file: no pipes to juggle for a single exchange
    const std::filesystem::path request_file =
        std::filesystem::temp_directory_path() / fmt::format("kforge_inspect_{}.jsonl", getpid());
    {
      std::ofstream out(request_file);
      out << json{{"id", 1},
                  {"op", "inspect_task"},
                  {"task_path", std::filesystem::absolute(task).string()},
                  {"shrink", true}}
                 .dump()  // the structure, not the sizes, matters here
          << "\n"
          << json{{"id", 2}, {"op", "shutdown"}}.dump() << "\n";
    }
    const std::string command = fmt::format(
        "PYTHONPATH={} TRITON_INTERPRET=1 {} -m kforge_worker --cpu < {} 2>/dev/null",
        shell_quote(worker_dir.string()), shell_quote(python), shell_quote(request_file.string()));
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return util::fail("failed to start the worker: popen failed");
    std::string output;
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    const int status = pclose(pipe);
    std::filesystem::remove(request_file);
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
      json reply = json::parse(line, nullptr, false);
      if (!reply.is_object() || reply.value("id", 0) != 1) continue;
      if (!reply.value("ok", false))
        return util::fail("{}", reply.value("error", std::string("the worker refused")));
      return task::parse_task_info(reply["result"].dump());
    }
    return util::fail("failed to run the worker ({} -m kforge_worker): no reply (status {})",
                      python, status);
  };
}

std::unique_ptr<Provider> make_library_provider(const LibraryProviderOptions& options) {
  return std::make_unique<LibraryProvider>(options);
}

}  // namespace kforge::llm

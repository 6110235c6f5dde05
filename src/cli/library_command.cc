// `kforge library list | add RUN_DIR`: what the kernel library holds (the repository's library/
// and the user's local one) with its measured speed-ups, and adding a run's verified best
// candidate to the local library.

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/pool_config.h"
#include "library/library_catalog.h"
#include "library/library_packager.h"
#include "library/library_provider.h"
#include "store/json_codec.h"
#include "store/run_record.h"
#include "store/run_store.h"
#include "task/task_info.h"
#include "util/data_dir.h"
#include "util/file_text.h"

namespace kforge::cli {

namespace {

using nlohmann::json;

std::vector<std::filesystem::path> library_dirs() {
  std::vector<std::filesystem::path> dirs;
  if (auto data = util::find_data_dir()) dirs.push_back(*data / "library");
  dirs.push_back(library::user_library_dir());
  return dirs;
}

/// The measurement shown for an entry: its default configuration's best speed-up vs CUDA graph.
const library::LibraryMeasurement* headline(const library::LibraryEntry& entry) {
  const library::LibraryMeasurement* best = nullptr;
  for (const auto& m : entry.measurements) {
    if (!m.is_default) continue;
    if (!best || m.speedup_vs_cuda_graph.value_or(0) > best->speedup_vs_cuda_graph.value_or(0))
      best = &m;
  }
  return best;
}

std::string speedup(const std::optional<double>& value) {
  return value ? fmt::format("{:.2f}x", *value) : "-";
}

int list_library(const Options& options) {
  auto entries = library::load_library(library_dirs());
  if (!entries) {
    fmt::print(stderr, "kforge library: {}\n", entries.error().message);
    return kExitUsage;
  }
  if (options.json) {
    json out = json::array();
    for (const auto& e : *entries) {
      json rows = json::array();
      for (const auto& m : e.measurements)
        rows.push_back(
            {{"task", m.task},
             {"device", m.device},
             {"date", m.date},
             {"engine", m.engine},
             {"default", m.is_default},
             {"library_ms", m.library_ms ? json(*m.library_ms) : json()},
             {"speedup_vs_eager", m.speedup_vs_eager ? json(*m.speedup_vs_eager) : json()},
             {"speedup_vs_cuda_graph",
              m.speedup_vs_cuda_graph ? json(*m.speedup_vs_cuda_graph) : json()}});
      out.push_back({{"name", e.name},
                     {"dir", e.dir.string()},
                     {"tasks", e.tasks},
                     {"signature", e.signature},
                     {"description", e.description},
                     {"measurements", rows}});
    }
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  if (entries->empty()) {
    fmt::print("no library kernels in {} or {}\n", library_dirs()[0].string(),
               library_dirs()[1].string());
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows = {
      {"kernel", "tasks", "vs graph", "vs eager", "ms", "measured on", "folder"}};
  for (const auto& e : *entries) {
    const library::LibraryMeasurement* m = headline(e);
    rows.push_back({e.name, fmt::format("{}", fmt::join(e.tasks, ",")),
                    m ? speedup(m->speedup_vs_cuda_graph) : "-",
                    m ? speedup(m->speedup_vs_eager) : "-",
                    m && m->library_ms ? fmt::format("{:.3f}", *m->library_ms) : "-",
                    m ? fmt::format("{} {}", m->device, m->date) : "not measured",
                    e.dir.parent_path().string()});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i)
      line += fmt::format("{:<{}}{}", row[i], width[i], i + 1 < row.size() ? "  " : "");
    fmt::print("{}\n", line);
  }
  return kExitOk;
}

/// `library add RUN_DIR`: the run's best candidate into the user's library, its task's
/// structure read by a CPU worker from the pool.
util::Result<std::filesystem::path> add_run(const Options& options) {
  // a CPU worker: the structure, not the sizes, matters here
  Options cpu = options;
  cpu.device = "cpu";
  std::unique_ptr<eval::WorkerPool> pool;
  library::TaskInspector inspect = [&](const std::filesystem::path& task) {
    if (!pool) {
      auto started = start_worker_pool(cpu, {.hello = false, .evaluations = 0});
      if (!started) return util::Result<task::TaskInfo>(std::unexpected(started.error()));
      pool = std::move(started->pool);
    }
    return task::inspect_task(*pool, task, true);
  };
  return library::add_run(options.library_dir, library::user_library_dir(), inspect);
}

}  // namespace

int run_library_command(const Options& options) {
  const std::string action = options.library_action.empty() ? "list" : options.library_action;
  if (action == "list") return list_library(options);
  if (action == "add") {
    auto dest = add_run(options);
    if (!dest) {
      fmt::print(stderr, "kforge library: {}\n", dest.error().message);
      return kExitUsage;
    }
    fmt::print("added {}\n", dest->string());
    return kExitOk;
  }
  fmt::print(stderr, "kforge library: unknown action {:?} (list | add RUN_DIR)\n", action);
  return kExitUsage;
}

}  // namespace kforge::cli

#include "library/library_packager.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "library/library_catalog.h"
#include "store/json_codec.h"
#include "store/run_record.h"
#include "store/run_store.h"
#include "util/file_text.h"

namespace kforge::library {

using nlohmann::json;

util::Result<std::filesystem::path> add_run(const std::filesystem::path& run_dir,
                                            const std::filesystem::path& library_dir,
                                            const TaskInspector& inspect_task) {
  if (run_dir.empty()) return util::fail("failed to add to the library: no run directory given");
  auto text = util::read_file(run_dir / "run.json");
  if (!text) return std::unexpected(text.error().context("failed to add {}", run_dir.string()));
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded())
    return util::fail("failed to add {}: run.json is not JSON", run_dir.string());
  auto run = store::run_from_json(doc);
  if (!run) return std::unexpected(run.error().context("failed to add {}", run_dir.string()));
  const store::CandidateRecord* best =
      run->best_id ? store::find_candidate(*run, *run->best_id) : nullptr;
  if (!best || best->status != "ok")
    return util::fail("failed to add {}: the run has no verified best candidate", run_dir.string());
  if (!best->score)
    return util::fail(
        "failed to add {}: its best candidate has no measured speed-up (CPU runs "
        "are not timed)",
        run_dir.string());
  auto source = util::read_file(run_dir / "best.py");
  if (!source) return std::unexpected(source.error().context("failed to add {}", run_dir.string()));

  const std::string name = store::safe_name(run->id);  // the id already names the task
  const std::filesystem::path dest = library_dir / name;
  if (std::filesystem::exists(dest))
    return util::fail("failed to add {}: {} already exists", run_dir.string(), dest.string());
  std::filesystem::create_directories(dest);
  std::ofstream(dest / "candidate.py") << *source;
  std::filesystem::path evaluation = run_dir / best->file;
  evaluation.replace_extension(".json");
  if (std::filesystem::exists(evaluation))
    std::filesystem::copy_file(evaluation, dest / "evaluation.json");

  json meta = {
      {"name", name},
      {"source", "candidate.py"},
      {"description", fmt::format("best candidate (#{} {}) of run {} ({} / {})", best->id,
                                  best->stage, run->id, run->config.provider, run->config.model)},
      {"tasks", {run->task_name}},
      {"measurements",
       {{{"task", run->task_name},
         {"device", run->device.count("name") ? run->device.at("name") : "unknown"},
         {"date", run->updated_at},
         {"engine", "run"},
         {"default", true},
         {"library_ms", best->latency_ms ? json(*best->latency_ms) : json()},
         {"eager_ms", best->eager_ms ? json(*best->eager_ms) : json()},
         {"speedup_vs_eager", *best->score},
         {"source", std::filesystem::absolute(run_dir).string()}}}}};
  // the task's signature, so the entry also serves other tasks of the same structure
  if (std::filesystem::exists(run->config.task)) {
    auto info = inspect_task(run->config.task);
    if (info) {
      TaskSignature signature = derive_signature(*info, run->config.task);
      if (!signature.fields.empty()) meta["signature"] = signature.fields;
    }
  }
  std::ofstream(dest / "meta.json") << meta.dump(2) << "\n";
  return dest;
}

}  // namespace kforge::library

#include "suite/task_run.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/analysis.h"
#include "pipeline/console_view.h"
#include "pipeline/pipeline.h"
#include "report/report_writer.h"
#include "store/run_index.h"
#include "store/run_store.h"
#include "suite/task_evaluation.h"

namespace kforge::suite {

namespace {

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Verdicts of the chosen candidate from its candidates/<n>_<stage>.json.
void read_verdicts(const std::filesystem::path& run_dir, const store::CandidateRecord& c,
                   TaskResult& row) {
  std::filesystem::path file = run_dir / c.file;
  file.replace_extension(".json");
  auto text = read_text(file);
  if (!text) return;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.contains("evaluation") || !j["evaluation"].is_object()) return;
  const nlohmann::json& e = j["evaluation"];
  if (auto it = e.find("correctness"); it != e.end() && it->is_object()) {
    if (it->contains("pass_calibrated") && (*it)["pass_calibrated"].is_boolean())
      row.pass_calibrated = (*it)["pass_calibrated"].get<bool>();
    if (it->contains("pass_kernelbench") && (*it)["pass_kernelbench"].is_boolean())
      row.pass_kernelbench = (*it)["pass_kernelbench"].get<bool>();
  }
  if (auto it = e.find("generalizes"); it != e.end() && it->is_string())
    row.generalizes = it->get<std::string>();
  if (auto it = e.find("reasons"); it != e.end() && it->is_array())
    for (const auto& reason : *it)
      if (reason.is_string()) row.reasons.push_back(reason.get<std::string>());
}

}  // namespace

TaskResult row_from_run(const store::RunRecord& run, const std::filesystem::path& run_dir) {
  TaskResult row;
  const store::CandidateRecord* chosen = nullptr;
  if (run.best_id) chosen = store::find_candidate(run, *run.best_id);
  if (!chosen)
    for (const store::CandidateRecord& c : run.candidates)
      if (c.status == "ok" &&
          (!chosen || c.max_abs_err.value_or(1e300) < chosen->max_abs_err.value_or(1e300)))
        chosen = &c;
  int correct = 0;
  for (const store::CandidateRecord& c : run.candidates) correct += c.status == "ok" ? 1 : 0;
  if (!chosen && !run.candidates.empty()) chosen = &run.candidates.back();
  row.samples = static_cast<int>(run.candidates.size());
  row.correct_samples = correct;
  if (!chosen) {
    row.status = "no_candidate";
    row.error_head = run.stop_reason.empty() ? "the pipeline made no candidate" : run.stop_reason;
  } else {
    row.status = chosen->status;
    row.candidate = (run_dir / chosen->file).string();
    row.max_abs_err = chosen->max_abs_err;
    row.error_head = chosen->error_head;
    if (chosen->status == "ok" && run.best_id && *run.best_id == chosen->id)
      row.best_ms = chosen->latency_ms;
    read_verdicts(run_dir, *chosen, row);
  }
  if (run.baselines) {
    row.eager_ms = run.baselines->eager_ms;
    row.compile_ms = run.baselines->compile_ms;
    row.cuda_graph_ms = run.baselines->cuda_graph_ms;
  }
  store::TokenRow total = store::total_tokens(run);
  row.tokens = total.prompt_tokens + total.completion_tokens;
  row.cost_usd = total.cost_usd;
  row.note = run.state + (run.stop_reason.empty() ? "" : ": " + run.stop_reason);
  return row;
}

util::Result<TaskResult> run_task(const SuiteTask& task, const std::filesystem::path& run_dir,
                                  TaskRunContext& context) {
  auto started = std::chrono::steady_clock::now();
  TaskResult failed;
  failed.id = task.id;
  failed.task = task.path.string();
  failed.status = "error";
  auto task_source = read_text(task.path);
  if (!task_source) {
    failed.error_head = fmt::format("failed to read task {}: cannot open", task.path.string());
    return failed;
  }
  std::error_code ignored;
  std::filesystem::create_directories(run_dir, ignored);
  bool resume = std::filesystem::exists(run_dir / "run.json", ignored);
  auto opened = store::RunStore::open(run_dir);
  if (!opened) {
    failed.error_head = opened.error().message;
    return failed;
  }
  std::unique_ptr<store::RunStore> run_store = std::move(*opened);
  store::RunRecord record;
  if (resume) {
    auto previous = run_store->read_run();
    if (previous)
      record = std::move(*previous);
    else
      resume = false;
  }
  if (!resume) {
    record.config = context.config;
    record.config.task = std::filesystem::absolute(task.path).lexically_normal().string();
    record.config.provider = context.provider.name();
    record.config.model = context.provider.model();
    record.started_at = store::iso_time(std::chrono::system_clock::now());
  }
  record.id = run_store->id();
  record.kforge_version = KFORGE_VERSION;
  record.task_name = task.path.stem().string();

  auto clock = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  store::RunStore* store_ptr = run_store.get();
  // The suite's terminal belongs to the suite's progress view: a task's log goes to its
  // console.log only.
  pipeline::ConsoleView view(
      nullptr, false, [store_ptr](std::string_view line) { store_ptr->append_console(line); },
      clock);
  view.log(fmt::format("kforge {} suite task {} {} in {}", KFORGE_VERSION, task.id,
                       resume ? "resumes" : "starts", run_store->dir().string()));

  pipeline::PipelineInputs inputs;
  inputs.record = record;
  inputs.task_source = *task_source;
  inputs.library_dirs = context.library_dirs;
  analysis::AnalyzeOptions analyze_options;
  analyze_options.task = task.path;
  analyze_options.device = record.config.device == "cpu" ? eval::Device::kCpu : eval::Device::kCuda;
  analyze_options.shrink = record.config.shrink;
  analyze_options.runtime = record.config.device != "cpu";
  eval::WorkerPool& pool = context.pool;
  pipeline::PipelineServices services{
      context.provider,
      pool,
      context.prompts,
      *run_store,
      view,
      [&pool, analyze_options](const std::filesystem::path& candidate) {
        return analysis::analyze_candidate(pool, candidate, analyze_options);
      },
      clock};
  auto result = pipeline::run_pipeline(inputs, services);
  if (!result) {
    if (is_worker_start_error(result.error())) return std::unexpected(result.error());
    failed.error_head = result.error().message;
    failed.run_dir = run_dir.string();
    return failed;
  }
  if (auto ok = report::write_reports(*run_store); !ok)
    view.log(fmt::format("warning: {}", ok.error().message));
  if (auto index = store::RunIndex::open(run_dir.parent_path() / "index.sqlite"); index) {
    if (auto ok = (*index)->record(result->record, run_store->dir()); !ok)
      view.log(fmt::format("warning: {}", ok.error().message));
  }
  TaskResult row = row_from_run(result->record, run_store->dir());
  row.id = task.id;
  row.task = task.path.string();
  row.run_dir = run_dir.string();
  row.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return row;
}

}  // namespace kforge::suite

#include "suite/task_run.h"

#include <fmt/format.h>

#include <chrono>

#include "pipeline/stored_run.h"
#include "store/run_store.h"
#include "suite/task_evaluation.h"
#include "util/file_text.h"

namespace kforge::suite {

namespace {

/// Verdicts of the chosen candidate, from the evaluation kept beside it; none when unreadable.
void read_verdicts(const store::RunStore& store, const store::CandidateRecord& c, TaskResult& row) {
  auto evaluation = store.read_candidate_evaluation(c);
  if (!evaluation) return;
  if (evaluation->correctness) {
    row.pass_calibrated = evaluation->correctness->pass_calibrated;
    row.pass_kernelbench = evaluation->correctness->pass_kernelbench;
  }
  row.generalizes = evaluation->generalizes;
  row.reasons = evaluation->reasons;
}

}  // namespace

TaskResult row_from_run(const store::RunRecord& run, const store::RunStore& store) {
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
    row.candidate = (store.dir() / chosen->file).string();
    row.max_abs_err = chosen->max_abs_err;
    row.error_head = chosen->error_head;
    if (chosen->status == "ok" && run.best_id && *run.best_id == chosen->id)
      row.best_ms = chosen->latency_ms;
    read_verdicts(store, *chosen, row);
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
  auto task_source = util::read_file(task.path);
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
  pipeline::PipelineInputs inputs;
  store::RunRecord& record = inputs.record;
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
  inputs.task_source = *task_source;
  inputs.library_dirs = context.library_dirs;
  // The suite's terminal belongs to the suite's progress view: a task's log goes to its
  // console.log only.
  auto result = pipeline::run_stored_pipeline(
      std::move(inputs), context.provider, context.pool, context.prompts, *run_store,
      {.terminal = nullptr,
       .first_line = fmt::format("kforge {} suite task {} {} in {}", KFORGE_VERSION, task.id,
                                 resume ? "resumes" : "starts", run_store->dir().string())});
  if (!result) {
    if (is_worker_start_error(result.error())) return std::unexpected(result.error());
    failed.error_head = result.error().message;
    failed.run_dir = run_dir.string();
    return failed;
  }
  TaskResult row = row_from_run(result->record, *run_store);
  row.id = task.id;
  row.task = task.path.string();
  row.run_dir = run_dir.string();
  row.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return row;
}

}  // namespace kforge::suite

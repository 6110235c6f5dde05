// `kforge run`: optimise a task with the pipeline, or continue an interrupted run (--resume).

#include <fmt/core.h>
#include <fmt/format.h>

#include <chrono>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/pool_config.h"
#include "cli/provider_options.h"
#include "cli/run_flags.h"
#include "eval/worker_pool.h"
#include "pipeline/stored_run.h"
#include "prompts/prompt_set.h"
#include "store/run_store.h"
#include "task/task_info.h"
#include "util/data_dir.h"
#include "util/file_text.h"

namespace kforge::cli {

namespace {

/// The run's configuration from the flags (a new run).
util::Result<store::RunConfig> config_from_options(const Options& options) {
  if (auto task = check_input_file("task", options.task); !task)
    return std::unexpected(task.error());
  auto settings = read_eval_settings(options);
  if (!settings) return std::unexpected(settings.error());
  auto c = read_run_config(options, *settings);
  if (!c) return std::unexpected(c.error());
  c->task = std::filesystem::absolute(options.task).lexically_normal().string();
  return c;
}

/// The budgets given on the command line of a resume replace the recorded ones (to extend a run
/// that stopped on its budget).
void apply_resume_overrides(const Options& options, store::RunConfig& c) {
  if (options.budget_tokens > 0) c.budget_tokens = options.budget_tokens;
  if (options.max_candidates > 0) c.max_candidates = options.max_candidates;
  if (options.time_limit_s > 0) c.time_limit_s = options.time_limit_s;
}

}  // namespace

int run_run_command(const Options& options) {
  // The run's record: a fresh one, or the interrupted run's (--resume).
  std::unique_ptr<store::RunStore> run_store;
  store::RunRecord record;
  Options effective = options;
  if (!options.resume.empty()) {
    auto opened = store::RunStore::open(options.resume);
    if (!opened) return exit_with_error("run", kExitUsage, opened.error());
    run_store = std::move(*opened);
    auto previous = run_store->read_run();
    if (!previous) return exit_with_error("run", kExitUsage, previous.error());
    record = std::move(*previous);
    apply_resume_overrides(options, record.config);
    // The recorded model and device, unless the command line names others.
    if (options.provider.empty()) effective.provider = record.config.provider;
    if (options.model.empty()) effective.model = record.config.model;
    if (options.base_url.empty()) effective.base_url = record.config.base_url;
    effective.device = record.config.device;
    effective.shrink = record.config.shrink;
  } else {
    auto config = config_from_options(options);
    if (!config) return exit_with_error("run", kExitUsage, config.error());
    record.config = std::move(*config);
  }

  auto task_source = util::read_file(record.config.task);
  if (!task_source)
    return exit_with_error(
        "run", kExitUsage,
        util::Error{fmt::format("failed to read task {}: cannot open", record.config.task)});

  auto provider_config = load_provider_config(effective);
  if (!provider_config) return exit_with_error("run", kExitUsage, provider_config.error());
  // One worker per GPU, started on first use: the pipeline asks hello and says what failed.
  auto started = start_worker_pool(effective, {.max_workers = 0, .hello = false});
  if (!started) return exit_with_error("run", kExitEnvironment, started.error());
  auto& pool = started->pool;
  // The library provider reads the task's structure through the same pool (at the shrunk shapes:
  // the structure, not the sizes, matters there).
  auto provider = make_provider(*provider_config, [&pool](const std::filesystem::path& task) {
    return task::inspect_task(*pool, task, true);
  });
  if (!provider)  // an unreadable recorded run (--from) is bad input, not a missing service
    return exit_with_error(
        "run", provider_config->api == llm::Api::kReplay ? kExitUsage : kExitEnvironment,
        provider.error());
  if (options.resume.empty()) apply_provider_strategy(provider_config->api, record.config);
  if (provider_config->api == llm::Api::kReplay && options.resume.empty()) {
    // Replaying: the recorded run's strategy, so that the same calls are asked in the same order.
    auto recorded = store::read_run_record(provider_config->replay_dir);
    if (!recorded)
      return exit_with_error("run", kExitUsage, recorded.error().context("failed to read --from"));
    const store::RunConfig& r = recorded->config;
    store::RunConfig& c = record.config;
    c.seeds = r.seeds;
    c.repairs = r.repairs;
    c.analysis = r.analysis;
    c.analysis_threshold = r.analysis_threshold;
    c.guard = r.guard;
    c.tuning = r.tuning;
    c.max_candidates = r.max_candidates;
    c.budget_tokens = r.budget_tokens;
  }
  record.config.provider = (*provider)->name();
  record.config.model = (*provider)->model();
  record.config.base_url = provider_config->base_url;

  std::filesystem::path data = util::find_data_dir().value_or(std::filesystem::current_path());
  std::filesystem::path prompts_dir =
      !options.prompts_dir.empty()         ? std::filesystem::path(options.prompts_dir)
      : !record.config.prompts_dir.empty() ? std::filesystem::path(record.config.prompts_dir)
                                           : data / "prompts";
  auto prompt_set = prompts::PromptSet::load(prompts_dir);
  if (!prompt_set) return exit_with_error("run", kExitEnvironment, prompt_set.error());
  record.config.prompts_dir = std::filesystem::absolute(prompts_dir).string();

  std::filesystem::path task_path(record.config.task);
  if (!run_store) {
    auto created =
        store::RunStore::create(options.runs_dir, task_path.stem().string(), record.config.provider,
                                record.config.model, std::chrono::system_clock::now());
    if (!created) return exit_with_error("run", kExitEnvironment, created.error());
    run_store = std::move(*created);
    record.started_at = store::iso_time(std::chrono::system_clock::now());
  }

  pipeline::PipelineInputs inputs;
  inputs.record = record;
  inputs.task_source = *task_source;
  inputs.library_dirs = {data / "library"};
  auto result = pipeline::run_stored_pipeline(
      inputs, **provider, *pool, *prompt_set, *run_store,
      {.terminal = stderr,
       .first_line =
           fmt::format("kforge {} run {} in {}", KFORGE_VERSION,
                       options.resume.empty() ? "starts" : "resumes", run_store->dir().string())});
  if (!result) return exit_with_error("run", exit_code_for(result.error()), result.error());

  const store::RunRecord& final_record = result->record;
  fmt::print("run: {}\n", run_store->dir().string());
  fmt::print("state: {}{}\n", final_record.state,
             final_record.stop_reason.empty() ? "" : " (" + final_record.stop_reason + ")");
  if (!final_record.best_id && final_record.ranking == "unranked") {
    std::vector<std::string> ids;
    for (const store::CandidateRecord& c : final_record.candidates)
      if (c.status == "ok") ids.push_back(fmt::format("#{}", c.id));
    fmt::print(
        "best: unranked (no timings): {} correct candidate{} kept ({}); rank them: kforge "
        "rank {} --device cuda\n",
        ids.size(), ids.size() == 1 ? "" : "s", fmt::join(ids, ", "), run_store->dir().string());
    return final_record.state == "failed" ? kExitEnvironment : kExitOk;
  }
  if (!final_record.best_id) {
    fmt::print("best: no verified candidate\n");
    return final_record.state == "failed" ? kExitEnvironment : kExitFailed;
  }
  const store::CandidateRecord* best = store::find_candidate(final_record, *final_record.best_id);
  fmt::print("best: #{} {} -> {}\n", best->id, best->stage,
             (run_store->dir() / "best.py").string());
  return final_record.state == "failed" ? kExitEnvironment : kExitOk;
}

}  // namespace kforge::cli

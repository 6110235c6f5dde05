// `kforge run`: optimise a task with the pipeline, or continue an interrupted run (--resume).

#include <fmt/core.h>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "analysis/analysis.h"
#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/pool_config.h"
#include "cli/provider_options.h"
#include "eval/worker_pool.h"
#include "pipeline/console_view.h"
#include "pipeline/pipeline.h"
#include "prompts/prompt_set.h"
#include "prompts/target_gpu.h"
#include "report/report_writer.h"
#include "store/run_index.h"
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
  if (!prompts::find_target_gpu(options.target_gpu))
    return util::fail("failed to read --target-gpu: expected one of {}, got {}",
                      prompts::known_target_gpus(), options.target_gpu);
  if (options.analysis != "auto" && options.analysis != "always" && options.analysis != "never")
    return util::fail("failed to read --analysis: expected auto, always or never, got {}",
                      options.analysis);
  if (options.seeds < 1)
    return util::fail("failed to read --seeds: expected at least 1, got {}", options.seeds);
  if (options.repairs < 0)
    return util::fail("failed to read --repairs: expected 0 or more, got {}", options.repairs);
  store::RunConfig c;
  c.task = std::filesystem::absolute(options.task).lexically_normal().string();
  store::set_eval_settings(c, *settings);
  c.target_gpu = options.target_gpu;
  c.seeds = options.seeds;
  c.repairs = options.repairs;
  c.budget_tokens = options.budget_tokens;
  c.max_candidates = options.max_candidates;
  c.time_limit_s = options.time_limit_s;
  c.analysis_threshold = options.analysis_threshold;
  c.analysis = options.analysis;
  c.guard = !options.no_guard;
  return c;
}

/// The budgets given on the command line of a resume replace the recorded ones (to extend a run
/// that stopped on its budget).
void apply_resume_overrides(const Options& options, store::RunConfig& c) {
  if (options.budget_tokens > 0) c.budget_tokens = options.budget_tokens;
  if (options.max_candidates > 0) c.max_candidates = options.max_candidates;
  if (options.time_limit_s > 0) c.time_limit_s = options.time_limit_s;
}

int fail_with(int code, const util::Error& error) {
  fmt::print(stderr, "kforge run: {}\n", error.message);
  return code;
}

}  // namespace

int run_run_command(const Options& options) {
  // The run's record: a fresh one, or the interrupted run's (--resume).
  std::unique_ptr<store::RunStore> run_store;
  store::RunRecord record;
  Options effective = options;
  if (!options.resume.empty()) {
    auto opened = store::RunStore::open(options.resume);
    if (!opened) return fail_with(kExitUsage, opened.error());
    run_store = std::move(*opened);
    auto previous = run_store->read_run();
    if (!previous) return fail_with(kExitUsage, previous.error());
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
    if (!config) return fail_with(kExitUsage, config.error());
    record.config = std::move(*config);
  }

  auto task_source = util::read_file(record.config.task);
  if (!task_source)
    return fail_with(kExitUsage, util::Error{fmt::format("failed to read task {}: cannot open",
                                                         record.config.task)});

  auto provider_config = load_provider_config(effective);
  if (!provider_config) return fail_with(kExitUsage, provider_config.error());
  // One worker per GPU, started on first use: the pipeline asks hello and says what failed.
  auto started = start_worker_pool(effective, {.max_workers = 0, .hello = false});
  if (!started) return fail_with(kExitEnvironment, started.error());
  auto& pool = started->pool;
  // The library provider reads the task's structure through the same pool (at the shrunk shapes:
  // the structure, not the sizes, matters there).
  auto provider = make_provider(*provider_config, [&pool](const std::filesystem::path& task) {
    return task::inspect_task(*pool, task, true);
  });
  if (!provider)  // an unreadable recorded run (--from) is bad input, not a missing service
    return fail_with(provider_config->api == llm::Api::kReplay ? kExitUsage : kExitEnvironment,
                     provider.error());
  if (provider_config->api == llm::Api::kLibrary && options.resume.empty()) {
    // A kernel library, not a model: one answer per task, nothing to repair, analyse or tune.
    record.config.seeds = 1;
    record.config.repairs = 0;
    record.config.analysis = "never";
    record.config.tuning = false;
  }
  if (provider_config->api == llm::Api::kReplay && options.resume.empty()) {
    // Replaying: the recorded run's strategy, so that the same calls are asked in the same order.
    auto recorded = store::read_run_record(provider_config->replay_dir);
    if (!recorded) return fail_with(kExitUsage, recorded.error().context("failed to read --from"));
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
  if (!prompt_set) return fail_with(kExitEnvironment, prompt_set.error());
  record.config.prompts_dir = std::filesystem::absolute(prompts_dir).string();

  std::filesystem::path task_path(record.config.task);
  if (!run_store) {
    auto created =
        store::RunStore::create(options.runs_dir, task_path.stem().string(), record.config.provider,
                                record.config.model, std::chrono::system_clock::now());
    if (!created) return fail_with(kExitEnvironment, created.error());
    run_store = std::move(*created);
    record.started_at = store::iso_time(std::chrono::system_clock::now());
  }
  record.id = run_store->id();
  record.kforge_version = KFORGE_VERSION;
  record.task_name = task_path.stem().string();

  auto clock = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  store::RunStore* store_ptr = run_store.get();
  pipeline::ConsoleView view(
      stderr, pipeline::is_terminal(stderr),
      [store_ptr](std::string_view line) { store_ptr->append_console(line); }, clock);
  view.log(fmt::format("kforge {} run {} in {}", KFORGE_VERSION,
                       options.resume.empty() ? "starts" : "resumes", run_store->dir().string()));

  pipeline::PipelineInputs inputs;
  inputs.record = record;
  inputs.task_source = *task_source;
  inputs.library_dirs = {data / "library"};

  eval::WorkerPool& pool_ref = *pool;
  const eval::EvalSettings settings = store::eval_settings(record.config);
  analysis::AnalyzeOptions analyze_options;
  analyze_options.task = task_path;
  analyze_options.device = settings.device;
  analyze_options.shrink = settings.shrink;
  analyze_options.runtime = settings.device != eval::Device::kCpu;
  pipeline::PipelineServices services{
      **provider,
      pool_ref,
      *prompt_set,
      *run_store,
      view,
      [&pool_ref, analyze_options](const std::filesystem::path& candidate) {
        return analysis::analyze_candidate(pool_ref, candidate, analyze_options);
      },
      clock};
  auto result = pipeline::run_pipeline(inputs, services);
  if (!result) return fail_with(exit_code_for(result.error()), result.error());

  if (auto ok = report::write_reports(*run_store); !ok)
    fmt::print(stderr, "kforge run: warning: {}\n", ok.error().message);
  auto index = store::RunIndex::open(run_store->dir().parent_path() / "index.sqlite");
  if (index) {
    if (auto ok = (*index)->record(result->record, run_store->dir()); !ok)
      fmt::print(stderr, "kforge run: warning: {}\n", ok.error().message);
  } else {
    fmt::print(stderr, "kforge run: warning: {}\n", index.error().message);
  }

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

// `kforge suite run | eval | merge | report`: a whole benchmark over every GPU given, resumable,
// shardable (Slurm arrays), with KernelBench's fast_p in the suite report (src/suite).

#include <fmt/core.h>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/pool_config.h"
#include "cli/provider_options.h"
#include "cli/run_flags.h"
#include "eval/worker_locator.h"
#include "eval/worker_pool.h"
#include "llm/provider_factory.h"
#include "pipeline/console_view.h"
#include "prompts/prompt_set.h"
#include "store/run_store.h"
#include "suite/budgeted_provider.h"
#include "suite/fast_p.h"
#include "suite/running_slot.h"
#include "suite/suite_journal.h"
#include "suite/suite_merge.h"
#include "suite/suite_progress.h"
#include "suite/suite_report.h"
#include "suite/suite_runner.h"
#include "suite/task_evaluation.h"
#include "suite/task_list.h"
#include "suite/task_run.h"
#include "task/task_info.h"
#include "util/data_dir.h"

namespace kforge::cli {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// The suite's configuration: the one recorded in the suite directory (a resume, or another
/// shard's), else a fresh one from the flags.
util::Result<suite::SuiteConfig> suite_config(const Options& options,
                                              const eval::EvalSettings& settings,
                                              std::string_view mode, suite::SuiteJournal& journal,
                                              const std::filesystem::path& dir) {
  std::optional<suite::SuiteConfig> recorded = journal.config();
  if (!recorded)
    if (auto others = suite::read_suite_journals(dir); others) recorded = others->config;
  if (recorded) {
    if (recorded->mode != mode)
      return util::fail("failed to resume suite {}: it is a suite {}, not a suite {}", dir.string(),
                        recorded->mode, mode);
    if (recorded->shards != options.shards)
      return util::fail("failed to resume suite {}: it was split into {} shard(s), not {}",
                        dir.string(), recorded->shards, options.shards);
    suite::SuiteConfig c = *recorded;
    // Budgets given again replace the recorded ones (to extend a suite that stopped on one).
    if (options.suite_budget_tokens > 0) c.budget_tokens = options.suite_budget_tokens;
    if (options.suite_budget_usd > 0) c.budget_usd = options.suite_budget_usd;
    if (options.suite_time_limit_s > 0) c.time_limit_s = options.suite_time_limit_s;
    if (options.budget_usd > 0) c.task_budget_usd = options.budget_usd;
    if (!journal.config())
      if (auto ok = journal.record_config(c); !ok) return std::unexpected(ok.error());
    return c;
  }
  auto tasks = suite::find_tasks(options.tasks);
  if (!tasks) return std::unexpected(tasks.error());
  suite::SuiteConfig c;
  c.mode = mode;
  for (const suite::SuiteTask& t : *tasks) {
    c.task_ids.push_back(t.id);
    c.task_paths.push_back(std::filesystem::absolute(t.path).lexically_normal().string());
  }
  if (mode == "eval") {
    if (options.candidates_dir.empty())
      return util::fail("failed to read --candidates: suite eval needs a folder of candidates");
    c.candidates_dir =
        std::filesystem::absolute(options.candidates_dir).lexically_normal().string();
  }
  c.settings = settings;
  c.gpus = options.gpus;
  c.shards = options.shards;
  c.task_budget_tokens = options.budget_tokens;
  c.task_budget_usd = options.budget_usd;
  c.task_time_limit_s = options.time_limit_s;
  c.budget_tokens = options.suite_budget_tokens;
  c.budget_usd = options.suite_budget_usd;
  c.time_limit_s = options.suite_time_limit_s;
  c.created_at = store::iso_time(std::chrono::system_clock::now());
  c.kforge_version = KFORGE_VERSION;
  if (auto ok = journal.record_config(c); !ok) return std::unexpected(ok.error());
  return c;
}

int run_suite(const Options& options, std::string_view mode) {
  // The evaluation flags are `kforge eval`'s, read and validated the same way, before anything
  // is created; a resumed suite then evaluates with the settings it recorded.
  auto settings = read_eval_settings(options);
  if (!settings) return exit_with_error("suite", kExitUsage, settings.error());
  if (auto gpus = check_gpus(settings->device, options.gpus); !gpus)
    return exit_with_error("suite", kExitUsage, gpus.error());
  // suite run: the pipeline flags are `kforge run`'s, read the same way.
  std::optional<store::RunConfig> task_config;
  if (mode == "run") {
    auto read = read_run_config(options, *settings);
    if (!read) return exit_with_error("suite", kExitUsage, read.error());
    task_config = std::move(*read);
  }
  if (options.shards < 1)
    return exit_with_error(
        "suite", kExitUsage,
        {fmt::format("failed to read --shards: expected at least 1, got {}", options.shards)});
  if (options.shard < 0 || options.shard >= options.shards)
    return exit_with_error("suite", kExitUsage,
                           {fmt::format("failed to read --shard: expected 0 to {}, got {}",
                                        options.shards - 1, options.shard)});
  if (options.shards > 1 && options.suite_dir.empty())
    return exit_with_error("suite", kExitUsage,
                           {"failed to read --suite-dir: shards need the suite's directory "
                            "(the same for every shard)"});
  std::filesystem::path dir = options.suite_dir;
  if (dir.empty()) {
    auto now = std::chrono::system_clock::now();
    std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
    dir = std::filesystem::path("suites") / fmt::format("{}_{}", stamp, mode);
  }
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    return exit_with_error(
        "suite", kExitEnvironment,
        {fmt::format("failed to create suite {}: {}", dir.string(), error.message())});
  auto journal =
      suite::SuiteJournal::open(dir / suite::journal_name(options.shards, options.shard));
  if (!journal) return exit_with_error("suite", kExitEnvironment, journal.error());
  auto config = suite_config(options, *settings, mode, **journal, dir);
  if (!config) return exit_with_error("suite", kExitUsage, config.error());

  std::vector<suite::SuiteTask> all;
  for (std::size_t i = 0; i < config->task_ids.size(); ++i)
    all.push_back(suite::make_task(config->task_ids[i], config->task_paths[i]));
  std::vector<suite::SuiteTask> tasks = suite::shard_tasks(all, options.shards, options.shard);

  // One slot per GPU given, each with a pool of one worker on that GPU.
  std::vector<int> slot_gpus = options.gpus.empty() ? std::vector<int>{-1} : options.gpus;
  if (auto gpus = check_gpus(config->settings.device, options.gpus); !gpus)
    return exit_with_error("suite", kExitUsage, gpus.error());
  Options pool_flags = options;  // the recorded device, not the flag's (a resumed suite)
  pool_flags.device = std::string(eval::device_name(config->settings.device));
  auto pool_options = make_pool_options(pool_flags, 0);
  if (!pool_options) return exit_with_error("suite", kExitEnvironment, pool_options.error());
  pool_options->log_dir = dir / "logs";
  std::filesystem::create_directories(pool_options->log_dir, error);
  std::vector<std::unique_ptr<eval::WorkerPool>> pools;
  for (std::size_t i = 0; i < slot_gpus.size(); ++i) {
    eval::PoolOptions slot = *pool_options;
    int gpu = slot_gpus[i];
    slot.gpus = gpu >= 0 ? std::vector<int>{gpu} : std::vector<int>{};
    // Every slot's pool numbers its worker 0: one log folder per slot keeps their logs apart.
    if (slot_gpus.size() > 1) {
      slot.log_dir /= fmt::format("slot-{}", i);
      std::filesystem::create_directories(slot.log_dir, error);
    }
    pools.push_back(eval::make_worker_pool(slot));
  }

  auto results = (*journal)->results();
  // Start every slot's worker now, together (importing torch takes seconds): the first task of
  // each slot then finds a warm worker, and a worker that cannot start stops the suite here.
  bool pending_work = false;
  for (const suite::SuiteTask& t : tasks) pending_work = pending_work || !results.contains(t.id);
  if (pending_work) {
    std::vector<std::optional<util::Error>> start_errors(pools.size());
    std::vector<std::thread> starting;
    for (std::size_t i = 0; i < pools.size(); ++i)
      starting.emplace_back([&, i] {
        if (auto info = pools[i]->hello(); !info) start_errors[i] = info.error();
      });
    for (auto& thread : starting) thread.join();
    for (const auto& e : start_errors)
      if (e) return exit_with_error("suite", kExitEnvironment, *e);
  }
  int already = 0, already_failed = 0;
  for (const suite::SuiteTask& t : tasks)
    if (auto it = results.find(t.id); it != results.end()) {
      ++already;
      if (!it->second.correct()) ++already_failed;
    }
  std::mutex console_mutex;
  std::filesystem::path console = dir / "console.log";
  suite::SuiteProgress progress(stderr, pipeline::is_terminal(stderr),
                                static_cast<int>(tasks.size()), already, already_failed,
                                static_cast<int>(slot_gpus.size()), now_s,
                                [&console_mutex, console](std::string_view line) {
                                  std::lock_guard lock(console_mutex);
                                  std::ofstream(console, std::ios::app) << line << "\n";
                                });
  progress.log(fmt::format(
      "kforge {} suite {} in {}: {} tasks{}, {} slot(s)", KFORGE_VERSION, mode, dir.string(),
      tasks.size(),
      options.shards > 1 ? fmt::format(" (shard {} of {})", options.shard, options.shards) : "",
      slot_gpus.size()));

  // Money, tokens and time over the whole suite; what finished tasks spent counts already.
  std::int64_t tokens_before = 0;
  double usd_before = 0;
  for (const auto& [id, r] : results) {
    tokens_before += r.tokens;
    usd_before += r.cost_usd;
  }
  double start = now_s();
  suite::Spend suite_spend({config->budget_tokens, config->budget_usd,
                            config->time_limit_s > 0 ? start + config->time_limit_s : 0},
                           now_s, tokens_before, usd_before);

  suite::SuiteDrive drive{.dir = dir,
                          .journal = **journal,
                          .tasks = tasks,
                          .shard = options.shard,
                          .slots = slot_gpus.size(),
                          .slot_gpus = slot_gpus,
                          .work = {},
                          .stop_reason = [&suite_spend] { return suite_spend.exhausted("suite"); },
                          .progress = progress,
                          .write_reports = options.shards == 1};

  // Mode-specific pieces, kept alive for the drive.
  std::optional<suite::CandidateMatch> match;
  std::optional<eval::EvalRequest> request;
  std::unique_ptr<llm::Provider> provider;
  std::optional<prompts::PromptSet> prompt_set;
  auto data_dir = util::find_data_dir();
  if (!data_dir)
    return exit_with_error(
        "suite", kExitEnvironment,
        {"failed to find kforge's data folder (worker/, prompts/, library/) beside "
         "the executable or its share/kforge"});
  const std::filesystem::path repo = *data_dir;
  if (mode == "eval") {
    auto matched = suite::match_candidates(all, config->candidates_dir);
    if (!matched) return exit_with_error("suite", kExitUsage, matched.error());
    match = std::move(*matched);
    if (!match->unmatched.empty())
      progress.log(fmt::format("warning: {} candidate file(s) match no task: {}",
                               match->unmatched.size(), fmt::join(match->unmatched, ", ")));
    request = eval::scoring_request(config->settings, {}, {});
    drive.work = [&](const suite::SuiteTask& task, std::size_t slot) {
      auto it = match->by_task.find(task.id);
      static const std::vector<suite::CandidateFile> none;
      return suite::evaluate_task(*pools[slot], task,
                                  it == match->by_task.end() ? none : it->second, *request,
                                  dir / "evals");
    };
  } else {
    auto provider_config = load_provider_config(options);
    if (!provider_config) return exit_with_error("suite", kExitUsage, provider_config.error());
    // The library provider reads a task's structure through the running task's slot's worker.
    auto made = make_provider(*provider_config, [&pools](const std::filesystem::path& task) {
      eval::WorkerPool* running = suite::RunningSlot::pool();
      return task::inspect_task(running ? *running : *pools.front(), task, true);
    });
    if (!made) return exit_with_error("suite", kExitEnvironment, made.error());
    provider = std::move(*made);
    std::filesystem::path prompts_dir =
        options.prompts_dir.empty() ? repo / "prompts" : std::filesystem::path(options.prompts_dir);
    auto loaded = prompts::PromptSet::load(prompts_dir);
    if (!loaded) return exit_with_error("suite", kExitEnvironment, loaded.error());
    prompt_set = std::move(*loaded);
    // The suite's recorded settings and per-task limits (a resume keeps them).
    store::set_eval_settings(*task_config, config->settings);
    task_config->budget_tokens = config->task_budget_tokens;
    task_config->time_limit_s = config->task_time_limit_s;
    task_config->prompts_dir = std::filesystem::absolute(prompts_dir).string();
    apply_provider_strategy(provider_config->api, *task_config);
    drive.work = [&](const suite::SuiteTask& task, std::size_t slot) {
      suite::RunningSlot running(*pools[slot]);
      suite::Spend task_spend({0, config->task_budget_usd, 0}, now_s);
      suite::BudgetedProvider budgeted(
          *provider, suite_spend, task_spend,
          [&progress](std::int64_t tokens, double usd) { progress.add_spend(tokens, usd); });
      suite::TaskRunContext context{
          budgeted, *pools[slot], *prompt_set, {repo / "library"}, *task_config};
      auto row = suite::run_task(task, dir / "runs" / store::safe_name(task.id), context);
      if (row) {
        if (auto reason = budgeted.refused())
          row->note += (row->note.empty() ? "" : "; ") + ("model calls refused: " + *reason);
        if (!row->run_dir.empty())
          row->run_dir = std::filesystem::path(row->run_dir).lexically_relative(dir).string();
      }
      return row;
    };
  }

  auto outcome = suite::drive_suite(drive);
  if (!outcome) return exit_with_error("suite", kExitEnvironment, outcome.error());
  const suite::SuiteRecord& record = outcome->record;
  int correct = 0, scored = 0;
  for (const suite::SuiteTask& t : tasks)
    for (const suite::TaskResult& r : record.tasks)
      if (r.id == t.id && r.status != "not_run") {
        ++scored;
        correct += r.correct() ? 1 : 0;
      }
  int exit_code = outcome->pending == 0 ? kExitOk : kExitFailed;
  if (options.json) {
    fmt::print("{}\n", suite::render_suite_answer(record, {.dir = dir,
                                                           .reports_written = options.shards == 1,
                                                           .shard = options.shard,
                                                           .shards = options.shards,
                                                           .exit_code = exit_code}));
    return exit_code;
  }
  fmt::print("suite: {}\n", dir.string());
  if (options.shards > 1) {
    fmt::print("shard: {} of {}: {} of {} tasks done, {} correct\n", options.shard, options.shards,
               scored, tasks.size(), correct);
    fmt::print("merge: kforge suite merge {}\n", dir.string());
  } else {
    fmt::print("state: {}{}\n", record.state,
               record.stop_reason.empty() ? "" : " (" + record.stop_reason + ")");
    fmt::print("tasks: {} done of {}, {} correct\n", scored, tasks.size(), correct);
    suite::FastP f0 = suite::fast_p(record.tasks, "eager", 0);
    fmt::print("fast_0: {:.3f} ({}/{})\n", f0.fraction.value_or(0), f0.count, f0.total);
    if (suite::has_timings(record.tasks)) {
      for (double p : {1.0, 2.0}) {
        suite::FastP f = suite::fast_p(record.tasks, "eager", p);
        fmt::print("fast_{} vs eager: {:.3f} ({}/{})\n", p, f.fraction.value_or(0), f.count,
                   f.total);
      }
    } else {
      fmt::print("fast_p (p > 0): unranked / no timings\n");
    }
    fmt::print("report: {}\n", (dir / "report.html").string());
  }
  return exit_code;
}

int merge_command(const Options& options, bool report_only) {
  if (options.suite_paths.empty())
    return exit_with_error("suite", kExitUsage,
                           {"failed to read the suite directories: none given"});
  std::filesystem::path out = options.suite_dir.empty()
                                  ? std::filesystem::path(options.suite_paths.front())
                                  : std::filesystem::path(options.suite_dir);
  std::vector<std::filesystem::path> sources(options.suite_paths.begin(),
                                             options.suite_paths.end());
  if (report_only && sources.size() != 1)
    return exit_with_error("suite", kExitUsage,
                           {"failed to read the suite directory: suite report takes one"});
  auto merged = suite::merge_suites(out, sources);
  if (!merged) return exit_with_error("suite", kExitUsage, merged.error());
  for (const std::string& id : merged->duplicates)
    fmt::print(stderr, "kforge suite: warning: task {} finished in two journals; kept once\n", id);
  for (const std::string& file : merged->mismatched)
    fmt::print(stderr, "kforge suite: warning: {} lists another task set\n", file);
  int exit_code = merged->not_run.empty() ? kExitOk : kExitFailed;
  if (options.json) {
    fmt::print("{}\n",
               suite::render_suite_answer(merged->record, {.dir = out, .exit_code = exit_code}));
    return exit_code;
  }
  int correct = 0;
  for (const auto& r : merged->record.tasks) correct += r.correct() ? 1 : 0;
  fmt::print("suite: {}\n", out.string());
  fmt::print("journals: {}\n", merged->journals);
  fmt::print("tasks: {} ({} correct, {} not run)\n", merged->record.tasks.size(), correct,
             merged->not_run.size());
  fmt::print("report: {}\n", (out / "report.html").string());
  return exit_code;
}

}  // namespace

int run_suite_command(const Options& options) {
  const std::string& action = options.suite_action;
  if (action == "eval" || action == "run") return run_suite(options, action);
  if (action == "merge") return merge_command(options, false);
  if (action == "report") return merge_command(options, true);
  return exit_with_error(
      "suite", kExitUsage,
      {fmt::format("failed to read the suite action: expected run, eval, merge or "
                   "report, got {:?}",
                   action)});
}

}  // namespace kforge::cli

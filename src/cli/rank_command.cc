// `kforge rank DIR`: re-time the correct candidates of a run (e.g. a CPU run, which takes no
// timings) on a GPU through the worker pool, pick the real best and write it to the run.

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/pool_config.h"
#include "pipeline/candidate_ranking.h"
#include "report/report_writer.h"
#include "store/run_index.h"
#include "store/run_store.h"

namespace kforge::cli {

int run_rank_command(const Options& options) {
  if (options.path.empty())
    return exit_with_error("rank", kExitUsage,
                           {"failed to read the run directory: none given (kforge rank "
                            "RUN_DIR --device cuda)"});
  auto flags = read_eval_settings(options);
  if (!flags) return exit_with_error("rank", kExitUsage, flags.error());
  auto opened = store::RunStore::open(options.path);
  if (!opened) return exit_with_error("rank", kExitUsage, opened.error());
  store::RunStore& run_store = **opened;
  auto run = run_store.read_run();
  if (!run) return exit_with_error("rank", kExitUsage, run.error());

  if (std::none_of(run->candidates.begin(), run->candidates.end(),
                   [](const store::CandidateRecord& c) { return c.status == "ok"; }))
    return exit_with_error("rank", kExitUsage,
                           {fmt::format("failed to rank run {}: it has no correct candidate",
                                        run_store.dir().string())});
  // A run made on a CPU box is usually ranked on another machine, where the recorded absolute
  // path of its task does not exist: --task names where the task is now.
  std::string task = options.task.empty() ? run->config.task : options.task;
  std::error_code exists_error;
  if (!std::filesystem::exists(task, exists_error))
    return exit_with_error(
        "rank", kExitUsage,
        {fmt::format("failed to rank run {}: its task {} does not exist here (name "
                     "where it is now with --task)",
                     run_store.dir().string(), task)});

  auto started = start_worker_pool(options, {.max_workers = 0, .hello = true});
  if (!started) return exit_with_error("rank", kExitEnvironment, started.error());
  if (auto cuda = require_cuda_device(flags->device, started->info, "rank on a GPU machine"); !cuda)
    return exit_with_error("rank", kExitEnvironment, cuda.error());

  // The run's own correctness settings; timing settings and shapes from the flags (a CPU run was
  // usually shrunk: ranking takes the task's real shapes unless --shrink is given).
  eval::EvalSettings recorded = store::eval_settings(run->config);
  eval::EvalSettings settings = *flags;
  settings.precision = recorded.precision;
  settings.numerics = recorded.numerics;
  settings.input_sets = recorded.input_sets;
  settings.allow_pytorch_only = recorded.allow_pytorch_only;
  eval::EvalRequest base = eval::evaluate_request(settings, task, {});
  auto log = [&run_store](std::string_view line) {
    fmt::print(stderr, "{}\n", line);
    run_store.append_console(fmt::format("rank: {}", line));
  };
  auto rank = pipeline::rank_candidates(*run, run_store.dir(), *started->pool, base, log);
  if (!rank) return exit_with_error("rank", exit_code_for(rank.error()), rank.error());
  rank->ranked_at = store::iso_time(std::chrono::system_clock::now());

  store::RunRecord ranked = pipeline::apply_ranking(*run, *rank);
  if (ranked.best_id) {
    const store::CandidateRecord* best = store::find_candidate(ranked, *ranked.best_id);
    auto source = run_store.read_file(best->file);
    if (!source) return exit_with_error("rank", kExitEnvironment, source.error());
    if (auto ok = run_store.write_best(*source); !ok)
      return exit_with_error("rank", kExitEnvironment, ok.error());
  }
  if (auto ok = run_store.write_run(ranked); !ok)
    return exit_with_error("rank", kExitEnvironment, ok.error());
  if (auto ok = report::write_reports(run_store); !ok)
    fmt::print(stderr, "kforge rank: warning: {}\n", ok.error().message);
  if (auto index = store::RunIndex::open(run_store.dir().parent_path() / "index.sqlite"))
    (void)(*index)->record(ranked, run_store.dir());

  fmt::print("run: {}\n", run_store.dir().string());
  fmt::print("ranked on: {} ({})\n", rank->device_name.empty() ? "?" : rank->device_name,
             rank->device);
  int place = 0;
  for (const store::RankedCandidate& e : rank->entries) {
    bool timed = e.status == "ok" && e.score;
    fmt::print("  {:>4}  #{:<3} {:<14} score {:>8}  {:>10} ms  max_abs_err {}\n",
               timed ? std::to_string(++place) : "-", e.id, e.status,
               e.score ? fmt::format("{:.4f}", *e.score) : "-",
               e.latency_ms ? fmt::format("{:.3f}", *e.latency_ms) : "-",
               e.max_abs_err ? fmt::format("{:.3g}", *e.max_abs_err) : "-");
  }
  if (!rank->best_id) {
    fmt::print("best: none timed on {}{}\n", rank->device,
               rank->device == "cpu" ? " (the CPU takes no timings: rank with --device cuda)" : "");
    return kExitFailed;
  }
  const store::CandidateRecord* best = store::find_candidate(ranked, *rank->best_id);
  fmt::print("best: #{} {} -> {}\n", best->id, best->stage, (run_store.dir() / "best.py").string());
  return kExitOk;
}

}  // namespace kforge::cli

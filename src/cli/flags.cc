#include "cli/flags.h"

#include <string>
#include <variant>

#include "cli/commands.h"

namespace kforge::cli {

namespace {

using Field = std::variant<std::string Options::*, bool Options::*, int Options::*,
                           long long Options::*, double Options::*, std::vector<int> Options::*,
                           std::vector<std::string> Options::*>;

// The subcommands that take a flag, by what the flag is for. `suite` takes the settings, model
// and pipeline flags of `run` and `eval`, but names its tasks and candidates with flags of its own.
using Commands = std::vector<std::string_view>;
const Commands kWorkerCommands = {"eval", "baseline", "run", "analyze", "rank", "suite"};
const Commands kTimingCommands = {"eval", "baseline", "run", "rank", "suite"};
const Commands kCheckCommands = {"eval", "run", "suite"};
const Commands kModelCommands = {"run", "doctor", "suite"};
const Commands kPipelineCommands = {"run", "suite"};

/// One row of the flag table. `commands` empty = global (every subcommand).
struct Flag {
  std::string_view names;  // CLI11 form: "-v,--verbose" or "--task"; a bare name is positional
  Field field;
  std::string_view env;  // "" = none
  std::string_view help;
  Commands commands;
};

// clang-format off
const std::vector<Flag>& flag_table() {
  static const std::vector<Flag> table = {
    {"--config", &Options::config, "KFORGE_CONFIG", "config file (TOML or JSON)", {}},
    {"--python", &Options::python, "KFORGE_PYTHON", "Python interpreter with torch and triton", {}},
    {"--worker-dir", &Options::worker_dir, "KFORGE_WORKER_DIR", "folder holding the kforge_worker package", {}},
    {"-v,--verbose", &Options::verbose, "", "log more", {}},
    {"--json", &Options::json, "", "print one JSON object instead of text", {"eval", "baseline", "analyze", "library", "doctor", "suite"}},

    {"--task", &Options::task, "", "KernelBench-format task file (rank: where the run's task is now)", {"eval", "baseline", "run", "analyze", "rank"}},
    {"--candidate", &Options::candidate, "", "candidate file defining ModelNew", {"eval"}},
    {"--device", &Options::device, "KFORGE_DEVICE", "cuda or cpu (cpu: correctness only, Triton interpreter)", kWorkerCommands},
    {"--shrink", &Options::shrink, "", "shrink the task's shape constants (for CPU checks)", kWorkerCommands},
    {"--precision", &Options::precision, "", "calibrated (fp64-aware) or kernelbench (allclose)", kCheckCommands},
    {"--numerics", &Options::numerics, "KFORGE_NUMERICS", "numerics policy: tolerance (any precision that passes the correctness verdict, KernelBench's rule) or strict (the reference's dtypes; lower precision is rejected)", kCheckCommands},
    {"--target-gpu", &Options::target_gpu, "KFORGE_TARGET_GPU", "the GPU the kernels are written for, named in a CPU run's prompts (H100, H200, A100, L40S, RTX4090)", kPipelineCommands},
    {"--input-sets", &Options::input_sets, "", "input sets checked for correctness", kCheckCommands},
    {"--trials", &Options::trials, "", "timed trials", kTimingCommands},
    {"--warmup", &Options::warmup, "", "warm-up runs before timing", kTimingCommands},
    {"--no-l2-flush", &Options::no_l2_flush, "", "do not flush L2 before each trial", kTimingCommands},
    {"--timeout", &Options::timeout_s, "KFORGE_TIMEOUT", "wall-clock limit per evaluation, seconds", kWorkerCommands},
    {"--allow-pytorch-only", &Options::allow_pytorch_only, "", "accept candidates that launch no kernel of their own", kCheckCommands},
    {"--runtime", &Options::runtime, "", "also run one forward: launches per forward, kernels and their time share", {"analyze"}},
    {"--gpus", &Options::gpus, "KFORGE_GPUS", "GPU indices, one worker each", kTimingCommands},
    {"--launcher", &Options::launcher, "KFORGE_LAUNCHER", "command prefix to start workers (ssh host, srun ...)", kWorkerCommands},

    {"--provider", &Options::provider, "KFORGE_PROVIDER", "model provider or preset (deepseek, openai, anthropic, vllm, ollama, library, exec, replay, ...)", kModelCommands},
    {"--command", &Options::command, "KFORGE_COMMAND", "exec provider: shell command that reads the request JSON on stdin and writes the reply on stdout", kModelCommands},
    {"--from", &Options::replay_from, "", "replay provider: run directory whose transcripts answer the requests", kModelCommands},
    {"--request-timeout", &Options::request_timeout, "KFORGE_REQUEST_TIMEOUT", "model request time-out, seconds: SECONDS and/or STAGE=SECONDS, comma-separated (seed=3600,900)", kModelCommands},
    {"--model", &Options::model, "KFORGE_MODEL", "model id", kModelCommands},
    {"--base-url", &Options::base_url, "KFORGE_BASE_URL", "endpoint base URL", kModelCommands},
    {"--no-stream", &Options::no_stream, "", "do not stream replies", kModelCommands},
    {"--max-concurrent-requests", &Options::max_concurrent_requests, "", "model requests in flight", kPipelineCommands},

    {"--seeds", &Options::seeds, "", "independent seed candidates", kPipelineCommands},
    {"--repairs", &Options::repairs, "", "repair attempts per failed candidate", kPipelineCommands},
    {"--budget-tokens", &Options::budget_tokens, "", "stop after this many tokens (0 = no limit)", kPipelineCommands},
    {"--max-candidates", &Options::max_candidates, "", "stop after this many candidates (0 = no limit)", kPipelineCommands},
    {"--time-limit", &Options::time_limit_s, "", "stop after this many seconds (0 = no limit)", kPipelineCommands},
    {"--analysis-threshold", &Options::analysis_threshold, "", "run the algorithm analysis when the best score is below this", kPipelineCommands},
    {"--analysis", &Options::analysis, "", "algorithm analysis: auto (best score below the threshold, or unknown on CPU), always, never", kPipelineCommands},
    {"--no-guard", &Options::no_guard, "", "tune persistent and complex kernels too (turn the tuning guard off)", kPipelineCommands},
    {"--prompts-dir", &Options::prompts_dir, "KFORGE_PROMPTS_DIR", "folder of prompt templates (default: the repository's prompts/)", kPipelineCommands},
    {"--resume", &Options::resume, "", "continue the run in this directory", {"run"}},
    {"--runs-dir", &Options::runs_dir, "KFORGE_RUNS_DIR", "where run directories go", {"run", "report", "library"}},

    {"path", &Options::path, "", "candidate file (analyze) or run directory (report, rank)", {"analyze", "report", "rank"}},
    {"action", &Options::library_action, "", "list | add", {"library"}},
    {"dir", &Options::library_dir, "", "run directory to add (library add)", {"library"}},

    {"action", &Options::suite_action, "", "run | eval | merge | report", {"suite"}},
    {"dirs", &Options::suite_paths, "", "suite directories (merge: the shards; report: the suite)", {"suite"}},
    {"--tasks", &Options::tasks, "", "task folders, files or globs (comma-separated or repeated)", {"suite"}},
    {"--candidates", &Options::candidates_dir, "", "suite eval: folder of candidates, one file per task (or KernelBench's level{L}_problem{N}_sample{S}.py)", {"suite"}},
    {"--suite-dir", &Options::suite_dir, "KFORGE_SUITE_DIR", "the suite's directory; an existing one is resumed (default suites/<time>_<mode>)", {"suite"}},
    {"--shards", &Options::shards, "", "split the suite into this many shards (Slurm array)", {"suite"}},
    {"--shard", &Options::shard, "", "the shard this process runs, 0-based (SLURM_ARRAY_TASK_ID)", {"suite"}},
    {"--budget-usd", &Options::budget_usd, "", "suite run: money per task, USD (0 = no limit)", {"suite"}},
    {"--suite-budget-tokens", &Options::suite_budget_tokens, "", "suite run: tokens over the whole suite (0 = no limit)", {"suite"}},
    {"--suite-budget-usd", &Options::suite_budget_usd, "", "suite run: money over the whole suite, USD (0 = no limit)", {"suite"}},
    {"--suite-time-limit", &Options::suite_time_limit_s, "", "seconds for the whole suite: no task starts after (0 = no limit)", {"suite"}},
  };
  return table;
}
// clang-format on

bool applies_to(const Flag& flag, std::string_view command) {
  if (flag.commands.empty()) return true;
  for (std::string_view c : flag.commands)
    if (c == command) return true;
  return false;
}

void add_flag(CLI::App& app, const Flag& flag, Options& options) {
  std::string names(flag.names);
  std::string help(flag.help);
  CLI::Option* option = std::visit(
      [&](auto member) -> CLI::Option* {
        using T = std::remove_reference_t<decltype(options.*member)>;
        if constexpr (std::is_same_v<T, bool>) {
          return app.add_flag(names, options.*member, help);
        } else if constexpr (std::is_same_v<T, std::vector<int>> ||
                             std::is_same_v<T, std::vector<std::string>>) {
          return app.add_option(names, options.*member, help)->delimiter(',');
        } else {
          return app.add_option(names, options.*member, help);
        }
      },
      flag.field);
  if (!flag.env.empty()) option->envname(std::string(flag.env));
}

}  // namespace

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = {
      {"eval", "check and time one candidate against its task", run_eval_command},
      {"baseline", "time the task's reference: eager, torch.compile, CUDA graph",
       run_baseline_command},
      {"run", "optimise a task: seeds, repair, analysis, tuning", run_run_command},
      {"analyze", "report what a candidate does, statically and at run time", run_analyze_command},
      {"report", "write summary.md and report.html for a run", run_report_command},
      {"rank", "re-time a run's correct candidates on a GPU; write the best", run_rank_command},
      {"library", "list or add verified kernels", run_library_command},
      {"doctor", "check the configured endpoint, worker and device", run_doctor_command},
      {"suite", "optimise (run) or score (eval) a whole benchmark; merge shards; fast_p report",
       run_suite_command},
  };
  return table;
}

void register_flags(CLI::App& app, Options& options) {
  for (const Flag& flag : flag_table())
    if (flag.commands.empty()) add_flag(app, flag, options);
  for (const Subcommand& command : subcommands()) {
    CLI::App* sub = app.get_subcommand(std::string(command.name));
    for (const Flag& flag : flag_table())
      if (!flag.commands.empty() && applies_to(flag, command.name)) add_flag(*sub, flag, options);
  }
}

}  // namespace kforge::cli

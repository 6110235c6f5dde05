#pragma once

#include <string>
#include <vector>

#include "eval/eval_settings.h"

namespace kforge::cli {

/// Every flag's value, filled by the flag table (flags.cc) from the command line, the
/// environment and the config file, in that order of precedence. Commands read it; they never
/// parse argv themselves.
struct Options {
  // Global.
  std::string config;      // --config, KFORGE_CONFIG
  std::string python;      // --python, KFORGE_PYTHON
  std::string worker_dir;  // --worker-dir, KFORGE_WORKER_DIR
  bool verbose = false;
  bool json = false;

  // Task, candidate and evaluation.
  std::string task;
  std::string candidate;
  // The evaluation settings as given; read_eval_settings (cli/eval_flags.h) parses and validates
  // them once. Defaults: eval::kDefaultEvalSettings.
  std::string device = std::string(eval::device_name(eval::kDefaultEvalSettings.device));
  bool shrink = eval::kDefaultEvalSettings.shrink;
  std::string precision = std::string(eval::precision_name(eval::kDefaultEvalSettings.precision));
  std::string numerics = std::string(eval::to_string(eval::kDefaultEvalSettings.numerics));
  std::string target_gpu = "H100";  // run: the GPU a CPU run's prompts name
  int input_sets = eval::kDefaultEvalSettings.input_sets;
  int trials = eval::kDefaultEvalSettings.trials;
  int warmup = eval::kDefaultEvalSettings.warmup;
  bool no_l2_flush = !eval::kDefaultEvalSettings.flush_l2;
  double timeout_s = eval::kDefaultEvalSettings.timeout_s;
  bool allow_pytorch_only = eval::kDefaultEvalSettings.allow_pytorch_only;
  bool runtime = false;  // analyze: also measure one forward (launches, kernels)
  std::vector<int> gpus;
  std::string launcher;  // a command prefix such as "ssh host" or "srun --gres=gpu:1"

  // Model.
  std::string provider;
  std::string model;
  std::string base_url;
  bool no_stream = false;
  int max_concurrent_requests = 4;
  std::string command;          // --command: the exec provider's shell command
  std::string replay_from;      // --from: the run directory the replay provider answers from
  std::string request_timeout;  // --request-timeout: "SECONDS" and/or "STAGE=SECONDS,..."

  // Pipeline.
  int seeds = 2;
  int repairs = 2;
  long long budget_tokens = 0;  // 0 = unlimited
  int max_candidates = 0;       // 0 = unlimited
  double time_limit_s = 0;      // 0 = unlimited
  double analysis_threshold = 1.0;
  std::string analysis = "auto";  // auto | always | never
  bool no_guard = false;
  std::string prompts_dir;  // empty = <repo>/prompts
  std::string resume;
  std::string runs_dir = "runs";

  // Suite (kforge suite run | eval | merge | report).
  std::string suite_action;
  std::vector<std::string> tasks;  // --tasks: folders, files or globs
  std::string candidates_dir;      // --candidates
  std::string suite_dir;           // --suite-dir
  int shards = 1;
  int shard = 0;
  double budget_usd = 0;  // per task (suite run); 0 = unlimited
  long long suite_budget_tokens = 0;
  double suite_budget_usd = 0;
  double suite_time_limit_s = 0;
  std::vector<std::string> suite_paths;  // merge / report: suite directories

  // Positional arguments of analyze / report / library.
  std::string path;
  std::string library_action;  // "list" | "add"
  std::string library_dir;
};

}  // namespace kforge::cli

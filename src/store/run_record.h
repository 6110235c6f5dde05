#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eval/eval_settings.h"

namespace kforge::store {

/// The configuration a run was started with, as recorded in run.json so that `--resume` and
/// reports see the same thing. Never holds a secret: keys stay in the environment.
struct RunConfig {
  std::string task;  // task file path
  std::string provider;
  std::string model;
  std::string base_url;
  // The evaluation settings as recorded (eval_settings() reads them back).
  std::string device = std::string(eval::device_name(eval::kDefaultEvalSettings.device));
  bool shrink = eval::kDefaultEvalSettings.shrink;
  std::string precision = std::string(eval::precision_name(eval::kDefaultEvalSettings.precision));
  std::string numerics = std::string(eval::to_string(eval::kDefaultEvalSettings.numerics));
  /// The GPU a CPU run writes for, named in the prompts (prompts::find_target_gpu).
  std::string target_gpu = "H100";
  int input_sets = eval::kDefaultEvalSettings.input_sets;
  int trials = eval::kDefaultEvalSettings.trials;
  int warmup = eval::kDefaultEvalSettings.warmup;
  bool flush_l2 = eval::kDefaultEvalSettings.flush_l2;
  double timeout_s = eval::kDefaultEvalSettings.timeout_s;
  bool allow_pytorch_only = eval::kDefaultEvalSettings.allow_pytorch_only;
  int seeds = 2;
  int repairs = 2;
  std::int64_t budget_tokens = 0;  // 0 = no limit
  int max_candidates = 0;          // 0 = no limit
  double time_limit_s = 0;         // 0 = no limit
  double analysis_threshold = 1.0;
  /// auto: analyse when the best score is below the threshold or unknown (CPU mode);
  /// always; never.
  std::string analysis = "auto";
  bool guard = true;
  /// False skips the tuning stages (the offline library provider has nothing to tune).
  bool tuning = true;
  std::string prompts_dir;
};

/// One row of the timeline table: a candidate, how it was made and how it fared.
struct CandidateRecord {
  int id = 0;
  std::string stage;  // seed | repair | optimise | tune_grid | tune_tiling | tune_memory
  std::optional<int> parent;
  std::string key;   // the lineage key (journal), e.g. "seed2.r1"
  std::string file;  // relative to the run directory: candidates/3_repair.py
  std::string status;
  std::optional<double> score;
  std::optional<double> latency_ms;
  std::optional<double> eager_ms;
  std::optional<double> max_abs_err;
  std::optional<int> launches_per_forward;
  std::string error_head;  // first line of the trimmed error
  std::string kernel_type;
  bool persistent = false;
  std::string note;  // e.g. "regressed: best stays #5"
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::string numerics;  // "fp16 operands, fp32 accumulate"; "" when not known
};

/// Tokens spent by one stage, over all its model calls.
struct TokenRow {
  std::string stage;
  int calls = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t reasoning_tokens = 0;
  std::int64_t cached_tokens = 0;
  double cost_usd = 0;
};

/// The reference alone, timed once at the start of a GPU run (median ms of each way of running
/// it), so that candidates are compared with the best PyTorch can do, not only with eager.
struct RunBaselines {
  std::optional<double> eager_ms;
  std::optional<double> compile_ms;
  std::optional<double> cuda_graph_ms;
  /// Baselines that could not be timed, with the reason (e.g. torch.compile failed).
  std::map<std::string, std::string> errors;

  /// The fastest timed baseline: its name ("eager", "compile", "cuda_graph") and median ms;
  /// nullopt when none was timed.
  std::optional<std::pair<std::string, double>> best() const;
};

/// One candidate as `kforge rank` re-timed it.
struct RankedCandidate {
  int id = 0;
  std::string status;
  std::optional<double> score;
  std::optional<double> latency_ms;
  std::optional<double> max_abs_err;
  std::string error_head;
  std::optional<double> eager_ms;  // the eager baseline beside it (what the score divides)
};

/// What `kforge rank` measured: the correct candidates of a run re-timed on a GPU, fastest first.
struct RankResult {
  /// The evaluation device ("cuda") and the GPU's name as the worker reported it.
  std::string device;
  std::string device_name;
  std::string ranked_at;  // ISO 8601 UTC
  std::vector<RankedCandidate> entries;
  /// The fastest correct candidate; nullopt when none was timed.
  std::optional<int> best_id;
};

/// run.json: everything a report or a resume needs about one run.
struct RunRecord {
  std::string id;  // the run directory's name
  std::string kforge_version;
  RunConfig config;
  std::string task_name;
  std::string started_at;  // ISO 8601 UTC
  std::string updated_at;
  double elapsed_s = 0;
  std::string state = "running";  // running | finished | stopped | failed
  std::string stop_reason;
  std::map<std::string, std::string> device;    // name, sm_count, memory_gb, interpret
  std::map<std::string, std::string> versions;  // worker, python, torch, triton, cuda
  std::vector<std::string> phases;              // seeds, analysis, tuning, … in order run
  std::vector<std::string> log;                 // guard decisions and other notable events
  std::vector<CandidateRecord> candidates;
  std::vector<TokenRow> tokens;
  /// Set only when the best was timed (a GPU run, or `kforge rank` afterwards).
  std::optional<int> best_id;
  /// "ranked" (best_id is the fastest timed candidate), "unranked" (correct candidates without
  /// timings, as on the CPU: none is called best) or "" (no correct candidate).
  std::string ranking;
  /// The last `kforge rank` of this run; nullopt when it was never ranked afterwards.
  std::optional<RankResult> rank;
  /// GPU runs only; nullopt in CPU mode or when the baseline request failed.
  std::optional<RunBaselines> baselines;
};

/// The record of candidate `id`, or nullptr.
const CandidateRecord* find_candidate(const RunRecord& run, int id);

/// The evaluation settings a run recorded (an unknown device or precision reads as the default).
eval::EvalSettings eval_settings(const RunConfig& config);
/// Records `settings` in `config`.
void set_eval_settings(RunConfig& config, const eval::EvalSettings& settings);

/// Totals over every stage's row.
TokenRow total_tokens(const RunRecord& run);

}  // namespace kforge::store

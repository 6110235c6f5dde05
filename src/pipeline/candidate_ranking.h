#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

#include "eval/evaluation.h"
#include "eval/worker_pool.h"
#include "store/run_record.h"
#include "util/error.h"

namespace kforge::pipeline {

/// Re-times the correct candidates (status ok) of the run recorded in `run_dir` through `pool`'s
/// evaluate request (`base` gives the task, device and timing settings; its `candidate` is
/// replaced) and ranks them: timed correct candidates by score, highest first (ties: lower
/// max_abs_err, then lower id), then the others. `log` receives one line per candidate. Errors:
/// no correct candidate in the run, a candidate file missing, or the worker failing (not a
/// candidate failing its check: that is an entry with its status). The result's best_id is
/// nullopt when no candidate was timed (the CPU takes no timings).
util::Result<store::RankResult> rank_candidates(const store::RunRecord& run,
                                                const std::filesystem::path& run_dir,
                                                eval::WorkerPool& pool,
                                                const eval::EvalRequest& base,
                                                const std::function<void(std::string_view)>& log);

/// `run` with `rank` applied: the rank recorded, each re-timed candidate's score and latency
/// updated (with a note), best_id and ranking "ranked" when a candidate was timed.
store::RunRecord apply_ranking(store::RunRecord run, const store::RankResult& rank);

}  // namespace kforge::pipeline

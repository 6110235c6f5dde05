#pragma once

// One pipeline run wired to its run directory: what `kforge run` and each task of `kforge suite
// run` share.

#include <cstdio>
#include <string>

#include "eval/worker_pool.h"
#include "llm/provider.h"
#include "pipeline/pipeline.h"
#include "prompts/prompt_set.h"
#include "store/run_store.h"
#include "util/error.h"

namespace kforge::pipeline {

/// Where a stored run's log goes besides its console.log, and its first line.
struct StoredRunView {
  /// The terminal the log is also shown on (with a status line when it is a tty); nullptr: the
  /// run's console.log only (a suite task: the suite's progress owns the terminal).
  std::FILE* terminal = nullptr;
  /// "kforge 0.1.0 run starts in runs/..." (the caller says what starts).
  std::string first_line;
};

/// Runs the pipeline (run_pipeline) on `inputs` in `store`, the record's id, kforge version and
/// task name filled in from `store` and the configuration's task: a console view logging to the
/// run's console.log (and `view.terminal`), the candidates analysed through `pool` at the run's
/// device and shapes (runtime facts off the CPU), then summary.md and report.html
/// (report::write_reports) and the run recorded in the index beside its directory
/// (`store`.dir()/../index.sqlite). A report or index that cannot be written is a warning in the
/// run's log, not an error. Errors are run_pipeline's: nothing is written after one.
util::Result<PipelineResult> run_stored_pipeline(PipelineInputs inputs, llm::Provider& provider,
                                                 eval::WorkerPool& pool,
                                                 const prompts::PromptSet& prompts,
                                                 store::RunStore& store, const StoredRunView& view);

}  // namespace kforge::pipeline

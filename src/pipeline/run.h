#pragma once

// One run of the pipeline, shared by the stage files of src/pipeline (internal: the pipeline's
// interface is pipeline.h). The stage order is Run::execute in pipeline.cc; each stage is a file
// of its own: seed_stage.cc, repair_stage.cc, analysis_stage.cc (the analysis rescue) and
// tuning_stage.cc; run.cc holds what they share (asking the model, evaluating, keeping the best,
// saving the record).

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <semaphore>
#include <string>
#include <string_view>
#include <vector>

#include "llm/token_ledger.h"
#include "pipeline/budget.h"
#include "pipeline/candidate.h"
#include "pipeline/pipeline.h"
#include "pipeline/reply_parser.h"
#include "prompts/library_example.h"
#include "prompts/template.h"

namespace kforge::pipeline {

using CandidatePtr = std::shared_ptr<Candidate>;

/// The first non-blank line of `text`, at most 160 characters.
std::string first_line(std::string_view text);

/// Whether `c` was timed: only timed candidates are ranked; on the CPU none is.
bool timed(const Candidate& c);

/// One run of the pipeline. Seed chains and analysis chains run on their own threads; shared
/// state sits behind `mutex_`.
class Run {
 public:
  Run(const PipelineInputs& inputs, PipelineServices& services);

  /// The whole run, stage after stage: the order is written once, here (pipeline.cc).
  util::Result<PipelineResult> execute();

 private:
  // The stages, one file each.
  std::vector<CandidatePtr> seeds_phase();                      // seed_stage.cc
  CandidatePtr seed_chain(int index);                           // seed_stage.cc
  CandidatePtr repair_chain(CandidatePtr candidate);            // repair_stage.cc
  void analysis_phase(const std::vector<CandidatePtr>& seeds);  // analysis_stage.cc
  CandidatePtr analysis_chain(const CandidatePtr& target);      // analysis_stage.cc
  void tuning_phase();                                          // tuning_stage.cc
  PipelineResult finish();

  CandidatePtr produce(const std::string& key, const std::string& stage, std::optional<int> parent,
                       int lineage, const prompts::Vars& vars,
                       const std::optional<AnalysisDiagnosis>& diagnosis);
  std::optional<llm::ChatReply> ask(const std::string& key, const std::string& stage,
                                    const std::string& template_name, const std::string& transcript,
                                    const prompts::Vars& vars);
  void account(const std::string& stage, const llm::ChatReply& reply);
  void measure_baselines();
  void assess(Candidate& candidate);
  void consider(const CandidatePtr& candidate);
  int allocate_id(const std::string& key, const std::string& stage);

  prompts::Vars base_vars() const;
  prompts::Vars vars_for(const Candidate& candidate) const;
  store::CandidateRecord to_record(const Candidate& candidate, const std::string& note) const;
  CandidatePtr best() const {
    std::lock_guard lock(mutex_);
    return best_;
  }
  bool stopping() const { return stopping_; }
  void stop(const std::string& reason, bool failed = false);
  void note(const std::string& line);
  void phase(const std::string& name);
  void save_locked();

  const PipelineInputs& inputs_;
  PipelineServices& s_;
  store::RunConfig config_;
  std::function<double()> clock_;
  Budget budget_;
  std::counting_semaphore<64> eval_slots_;
  eval::EvalRequest eval_template_;
  eval::WorkerInfo worker_;
  /// From the worker's inspect_task; false when the inspection failed.
  bool recurrent_ = false;
  /// The library kernel the prompts show, picked by the worker's TaskInfo; nullopt when none is
  /// related or the inspection failed.
  std::optional<prompts::LibraryExample> library_example_;

  mutable std::mutex mutex_;
  store::RunRecord record_;
  std::vector<CandidatePtr> candidates_;
  CandidatePtr best_;
  /// Model calls per stage, replayed ones included (a resumed run counts its whole history).
  llm::TokenLedger ledger_;
  int next_id_ = 1;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> failed_{false};
  std::string stop_reason_;
};

}  // namespace kforge::pipeline

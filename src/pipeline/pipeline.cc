#include "pipeline/pipeline.h"

#include <fmt/format.h>

#include "pipeline/run.h"
#include "task/task_info.h"

namespace kforge::pipeline {

// The stage order, in one place: the worker's hello and the task's inspection, the baselines (on
// a GPU), the seeds with their repair chains (seed_stage.cc, repair_stage.cc), the analysis rescue
// (analysis_stage.cc), the tuning stages (tuning_stage.cc), then the best candidate (run.cc).
util::Result<PipelineResult> Run::execute() {
  auto hello = s_.pool.hello();
  if (!hello) return std::unexpected(hello.error().context("failed to run {}", config_.task));
  worker_ = *hello;
  // The structure, not the sizes, matters here: inspect at the shrunk shapes (a CPU forward).
  if (auto info = task::inspect_task(s_.pool, config_.task, true)) {
    recurrent_ = info->recurrent;
    library_example_ = prompts::find_library_example(inputs_.library_dirs, *info);
    if (library_example_)
      s_.view.log(fmt::format("library example for the prompts: {} ({})", library_example_->name,
                              library_example_->why));
  } else {
    s_.view.log(fmt::format("warning: {}; the prompts will not say whether the task is recurrent",
                            info.error().message));
  }
  {
    std::lock_guard lock(mutex_);
    record_.state = "running";
    record_.stop_reason.clear();
    record_.phases.clear();
    record_.log.clear();
    record_.candidates.clear();
    record_.tokens.clear();
    record_.best_id.reset();
    record_.device = {{"name", worker_.device_name.value_or("cpu")},
                      {"sm_count", std::to_string(worker_.sm_count)},
                      {"memory_gb", fmt::format("{:.1f}", worker_.memory_gb)},
                      {"interpret", worker_.interpret ? "true" : "false"}};
    record_.versions = {{"worker", worker_.worker_version},
                        {"python", worker_.python},
                        {"torch", worker_.torch},
                        {"triton", worker_.triton},
                        {"cuda", worker_.cuda.value_or("")}};
    save_locked();
  }
  if (std::size_t entries = s_.store.journal().loaded_entries(); entries > 0)
    note(fmt::format("resuming: {} finished steps in the journal are replayed, not redone",
                     entries));
  s_.view.log(fmt::format("task {} on {} ({} SMs) with {} {}; seeds {}, repairs {}",
                          record_.task_name, worker_.device_name.value_or("cpu"), worker_.sm_count,
                          s_.provider.name(), s_.provider.model(), config_.seeds, config_.repairs));
  if (eval_template_.device != eval::Device::kCpu)
    measure_baselines();  // the worker refuses them on the CPU
  std::vector<CandidatePtr> seeds = seeds_phase();
  if (!failed_) analysis_phase(seeds);
  if (!failed_) tuning_phase();
  PipelineResult result = finish();
  s_.view.finish();
  return result;
}

util::Result<PipelineResult> run_pipeline(const PipelineInputs& inputs,
                                          PipelineServices& services) {
  Run run(inputs, services);
  return run.execute();
}

}  // namespace kforge::pipeline

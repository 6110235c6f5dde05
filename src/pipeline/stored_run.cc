#include "pipeline/stored_run.h"

#include <fmt/format.h>

#include <chrono>

#include "analysis/analysis.h"
#include "report/report_writer.h"
#include "store/run_index.h"

namespace kforge::pipeline {

util::Result<PipelineResult> run_stored_pipeline(PipelineInputs inputs, llm::Provider& provider,
                                                 eval::WorkerPool& pool,
                                                 const prompts::PromptSet& prompts,
                                                 store::RunStore& store,
                                                 const StoredRunView& view) {
  store::RunRecord& record = inputs.record;
  record.id = store.id();
  record.kforge_version = KFORGE_VERSION;
  record.task_name = std::filesystem::path(record.config.task).stem().string();
  auto clock = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  ConsoleView console(
      view.terminal, view.terminal != nullptr && is_terminal(view.terminal),
      [&store](std::string_view line) { store.append_console(line); }, clock);
  console.log(view.first_line);

  const eval::EvalSettings settings = store::eval_settings(record.config);
  analysis::AnalyzeOptions analyze_options;
  analyze_options.task = record.config.task;
  analyze_options.device = settings.device;
  analyze_options.shrink = settings.shrink;
  analyze_options.runtime = settings.device != eval::Device::kCpu;
  PipelineServices services{provider,
                            pool,
                            prompts,
                            store,
                            console,
                            [&pool, analyze_options](const std::filesystem::path& candidate) {
                              return analysis::analyze_candidate(pool, candidate, analyze_options);
                            },
                            clock};
  auto result = run_pipeline(inputs, services);
  if (!result) return result;

  if (auto ok = report::write_reports(store); !ok)
    console.log(fmt::format("warning: {}", ok.error().message));
  auto index = store::RunIndex::open(store.dir().parent_path() / "index.sqlite");
  if (!index)
    console.log(fmt::format("warning: {}", index.error().message));
  else if (auto ok = (*index)->record(result->record, store.dir()); !ok)
    console.log(fmt::format("warning: {}", ok.error().message));
  return result;
}

}  // namespace kforge::pipeline

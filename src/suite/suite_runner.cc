#include "suite/suite_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <mutex>

#include "suite/scheduler.h"
#include "suite/suite_report.h"

namespace kforge::suite {

util::Result<SuiteOutcome> drive_suite(SuiteDrive& drive) {
  auto started = std::chrono::steady_clock::now();
  std::vector<const SuiteTask*> pending;
  for (const SuiteTask& task : drive.tasks)
    if (!drive.journal.has(task.id)) pending.push_back(&task);
  if (drive.tasks.size() != pending.size())
    drive.progress.log(fmt::format("resuming: {} of {} tasks already done, {} to go",
                                   drive.tasks.size() - pending.size(), drive.tasks.size(),
                                   pending.size()));

  std::mutex mutex;  // guards the fields below and the report files
  std::optional<util::Error> fatal;
  std::optional<std::string> stopped;
  int done_here = 0;
  const SuiteConfig config = drive.journal.config().value_or(SuiteConfig{});

  auto elapsed = [&] {
    return drive.elapsed_before_s +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  double last_write = -1e9;
  // `force`: the final reports; in between at most one rewrite every 2 s (a long suite of
  // quick rows, such as missing candidates, would otherwise spend its time rewriting).
  auto write_reports = [&](std::string state, std::string reason, bool force) {
    if (!drive.write_reports) return;
    double now = elapsed();
    if (!force && now - last_write < 2) return;
    last_write = now;
    SuiteRecord record = assemble_record(config, drive.journal.results(), true);
    record.state = std::move(state);
    record.stop_reason = std::move(reason);
    record.elapsed_s = elapsed();
    if (auto ok = write_suite_reports(drive.dir, record); !ok)
      drive.progress.log(fmt::format("warning: {}", ok.error().message));
  };

  run_on_slots(pending.size(), drive.slots, [&](std::size_t item, std::size_t slot) {
    if (drive.stop_reason) {
      if (auto reason = drive.stop_reason()) {
        std::lock_guard lock(mutex);
        if (!stopped) {
          stopped = reason;
          drive.progress.log(fmt::format("no more tasks start: {}", *reason));
        }
        return false;
      }
    }
    const SuiteTask& task = *pending[item];
    drive.progress.task_started(task.id);
    auto result = drive.work(task, slot);
    if (!result) {
      std::lock_guard lock(mutex);
      if (!fatal) fatal = result.error();
      drive.progress.log(fmt::format("{}: {}", task.id, result.error().message));
      return false;
    }
    result->id = task.id;
    result->task = task.path.string();
    result->shard = drive.shard;
    if (slot < drive.slot_gpus.size()) result->gpu = drive.slot_gpus[slot];
    if (auto ok = drive.journal.record_task(*result); !ok) {
      std::lock_guard lock(mutex);
      if (!fatal) fatal = ok.error();
      return false;
    }
    drive.progress.task_finished(task.id, result->status, result->correct(), result->wall_s,
                                 result->tokens, result->cost_usd);
    std::lock_guard lock(mutex);
    ++done_here;
    write_reports("running", "", false);
    return true;
  });
  drive.progress.finish();

  SuiteOutcome outcome;
  outcome.done_here = done_here;
  for (const SuiteTask& task : drive.tasks)
    if (!drive.journal.has(task.id)) ++outcome.pending;
  std::string state = outcome.pending == 0 ? "finished" : "stopped";
  std::string reason = stopped.value_or(fatal ? fatal->message : "");
  write_reports(state, reason, true);
  outcome.record = assemble_record(config, drive.journal.results(), true);
  outcome.record.state = state;
  outcome.record.stop_reason = reason;
  outcome.record.elapsed_s = elapsed();
  if (fatal) return std::unexpected(*fatal);
  return outcome;
}

}  // namespace kforge::suite

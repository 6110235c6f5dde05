#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "suite/suite_record.h"
#include "util/error.h"

namespace kforge::suite {

/// The suite's record from its configuration and finished tasks, rows in suite order. With
/// `fill_not_run`, a task no journal finished gets a `not_run` row (a merged or final report
/// shows every task once; a missing row is a lost task, never silently dropped).
SuiteRecord assemble_record(const SuiteConfig& config,
                            const std::map<std::string, TaskResult>& results, bool fill_not_run);

/// suite.json: configuration, state, metrics (fast_p for p = 0, 1, 1.5, 2, 4 against eager,
/// torch.compile and CUDA graph; geometric-mean speed-ups; counts by status), every task's row
/// with its speed-ups, and the failures grouped by status.
std::string render_suite_json(const SuiteRecord& record);
/// What `kforge suite ... --json` says beside the record: where the suite is and how it ended.
struct SuiteAnswer {
  std::filesystem::path dir;
  /// False for a shard, which writes no reports (their paths are then null).
  bool reports_written = true;
  int shard = 0;
  int shards = 1;
  int exit_code = 0;
};
/// `kforge suite ... --json`: one line, one object: suite.json's (render_suite_json) with
/// "suite_dir", "shard", "shards", the paths of "suite_json", "summary" and "report" (null when
/// not written), and "exit_code".
std::string render_suite_answer(const SuiteRecord& record, const SuiteAnswer& answer);
/// summary.md: the same as tables. A suite without timings (CPU) says so and shows fast_p for
/// p > 0 and speed-ups as "unranked / no timings", never a number.
std::string render_suite_markdown(const SuiteRecord& record);
/// report.html: the tables plus SVG charts (the fast_p curve over p per baseline, tasks by
/// status, and per task the speed-up over the best baseline, or max_abs_err without timings).
/// One self-contained file: no scripts, no external resources.
std::string render_suite_html(const SuiteRecord& record);

/// Writes suite.json, summary.md and report.html into `dir` (each whole, by rename).
util::Result<void> write_suite_reports(const std::filesystem::path& dir, const SuiteRecord& record);

}  // namespace kforge::suite

#include "suite/suite_merge.h"

#include <fmt/format.h>

#include "suite/suite_journal.h"
#include "suite/suite_report.h"

namespace kforge::suite {

namespace {

util::Result<void> copy_missing(const std::filesystem::path& from,
                                const std::filesystem::path& to) {
  std::error_code error;
  if (std::filesystem::is_directory(from, error)) {
    std::filesystem::create_directories(to, error);
    for (const auto& entry : std::filesystem::directory_iterator(from, error))
      if (auto ok = copy_missing(entry.path(), to / entry.path().filename()); !ok) return ok;
    return {};
  }
  if (std::filesystem::exists(to, error)) return {};
  std::filesystem::copy_file(from, to, error);
  if (error)
    return util::fail("failed to copy {} to {}: {}", from.string(), to.string(), error.message());
  return {};
}

}  // namespace

util::Result<MergeResult> merge_suites(const std::filesystem::path& out,
                                       const std::vector<std::filesystem::path>& sources) {
  std::error_code error;
  std::filesystem::create_directories(out, error);
  auto out_abs = std::filesystem::weakly_canonical(out, error);
  for (const auto& source : sources) {
    auto journals = read_suite_journals(source);
    if (!journals) return std::unexpected(journals.error());
    if (std::filesystem::weakly_canonical(source, error) == out_abs) continue;
    for (const auto& file : journals->files)
      if (auto ok = copy_missing(file, out / file.filename()); !ok)
        return std::unexpected(ok.error());
    for (const char* sub : {"runs", "evals"})
      if (std::filesystem::exists(source / sub, error))
        if (auto ok = copy_missing(source / sub, out / sub); !ok)
          return std::unexpected(ok.error());
  }
  auto journals = read_suite_journals(out);
  if (!journals) return std::unexpected(journals.error());
  if (!journals->config)
    return util::fail("failed to merge suite {}: no journal holds the suite's configuration",
                      out.string());
  MergeResult result;
  result.journals = static_cast<int>(journals->files.size());
  result.duplicates = journals->duplicates;
  result.mismatched = journals->mismatched;
  // Rows point at the merged directory's copies of the task folders.
  for (auto& [id, row] : journals->results) {
    if (row.run_dir.empty()) continue;
    std::filesystem::path run(row.run_dir);
    std::filesystem::path local = out / "runs" / run.filename();
    if (std::filesystem::exists(local, error)) row.run_dir = local.string();
  }
  result.record = assemble_record(*journals->config, journals->results, true);
  for (const TaskResult& row : result.record.tasks)
    if (row.status == "not_run") result.not_run.push_back(row.id);
  // One journal: an unsharded suite's report rebuilt (`kforge suite report`).
  if (result.journals == 1)
    result.record.state = result.not_run.empty() ? "finished" : "incomplete";
  else
    result.record.state = result.not_run.empty() ? "merged" : "merged, incomplete";
  if (!result.not_run.empty())
    result.record.stop_reason =
        fmt::format("{} task(s) finished by no shard", result.not_run.size());
  if (auto ok = write_suite_reports(out, result.record); !ok) return std::unexpected(ok.error());
  return result;
}

}  // namespace kforge::suite

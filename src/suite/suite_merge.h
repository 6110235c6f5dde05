#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "suite/suite_record.h"
#include "util/error.h"

namespace kforge::suite {

/// What merging shards found.
struct MergeResult {
  /// Every task of the suite once, in suite order; a task no shard finished is `not_run`.
  SuiteRecord record;
  int journals = 0;
  /// Tasks finished by two shards (kept once), and journals listing another task set.
  std::vector<std::string> duplicates;
  std::vector<std::string> mismatched;
  std::vector<std::string> not_run;
};

/// `kforge suite merge`: gathers the shards of one suite into `out`. Each source directory
/// that is not `out` has its journals and task folders (runs/, evals/) copied into `out`
/// (nothing already there is overwritten; journals keep their shard names), so shards that ran
/// on machines without a shared file system merge the same way as shards that wrote one
/// directory. Then every journal of `out` is read together and suite.json, summary.md and
/// report.html are written. Errors when a source has no journal or no configuration.
util::Result<MergeResult> merge_suites(const std::filesystem::path& out,
                                       const std::vector<std::filesystem::path>& sources);

}  // namespace kforge::suite

#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/error.h"

namespace kforge::suite {

/// One task of a suite: a KernelBench-format file and the id the suite knows it by.
struct SuiteTask {
  /// The file's stem ("19_ReLU"); "<folder>_<stem>" when two folders hold the same stem.
  std::string id;
  std::filesystem::path path;
  /// KernelBench's numbering: the level from a folder named level<L>, the problem from the
  /// file's leading number ("19_ReLU.py" → 19); nullopt when absent.
  std::optional<int> level;
  std::optional<int> problem;
};

/// The task `id` at `path`, with its KernelBench level and problem number when it has them.
SuiteTask make_task(std::string id, const std::filesystem::path& path);

/// The tasks that `specs` name, in a stable order (sorted by level, problem number, then name):
/// each spec is a folder (its *.py files), a file, or a glob pattern ("kb/level1/1*_*.py").
/// Errors when a spec matches nothing.
util::Result<std::vector<SuiteTask>> find_tasks(const std::vector<std::string>& specs);

/// The tasks of shard `shard` (0-based) of `shards`: every shards-th task of the suite order,
/// so shards are disjoint, together cover the suite, and hold mixed kinds of task.
std::vector<SuiteTask> shard_tasks(const std::vector<SuiteTask>& tasks, int shards, int shard);

/// One candidate file for a task; `sample` is KernelBench's sample number (0 for a file named
/// after the task).
struct CandidateFile {
  std::filesystem::path path;
  int sample = 0;
};

/// Candidates found in a folder, by task id.
struct CandidateMatch {
  std::map<std::string, std::vector<CandidateFile>> by_task;
  /// *.py files that match no task of the suite.
  std::vector<std::string> unmatched;
};

/// Matches the *.py files of `dir` to `tasks`: a file named after the task ("19_ReLU.py"), or
/// KernelBench's generated layout "level{L}_problem{N}_sample{S}[_kernel].py" (underscores
/// between word and number optional: "level_1_problem_19_sample_0_kernel.py"), matched by
/// level and problem. Samples are sorted by number.
util::Result<CandidateMatch> match_candidates(const std::vector<SuiteTask>& tasks,
                                              const std::filesystem::path& dir);

}  // namespace kforge::suite

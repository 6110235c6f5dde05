#include "suite/task_list.h"

#include <glob.h>

#include <algorithm>
#include <regex>
#include <set>

namespace kforge::suite {

namespace {

std::optional<int> level_of(const std::filesystem::path& path) {
  static const std::regex level(R"(level_?(\d+))");
  std::smatch m;
  std::string folder = path.parent_path().filename().string();
  if (std::regex_match(folder, m, level)) return std::stoi(m[1]);
  return std::nullopt;
}

std::optional<int> problem_of(const std::filesystem::path& path) {
  static const std::regex number(R"((\d+)_.*)");
  std::smatch m;
  std::string stem = path.stem().string();
  if (std::regex_match(stem, m, number)) return std::stoi(m[1]);
  return std::nullopt;
}

util::Result<std::vector<std::filesystem::path>> expand(const std::string& spec) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  if (std::filesystem::is_directory(spec, error)) {
    for (const auto& entry : std::filesystem::directory_iterator(spec, error))
      if (entry.is_regular_file() && entry.path().extension() == ".py")
        files.push_back(entry.path());
  } else if (std::filesystem::is_regular_file(spec, error)) {
    files.push_back(spec);
  } else {
    glob_t matches{};
    if (::glob(spec.c_str(), 0, nullptr, &matches) == 0)
      for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
        std::filesystem::path p(matches.gl_pathv[i]);
        if (std::filesystem::is_regular_file(p, error) && p.extension() == ".py")
          files.push_back(p);
      }
    ::globfree(&matches);
  }
  if (files.empty()) return util::fail("failed to find tasks {}: no task file matches", spec);
  return files;
}

}  // namespace

SuiteTask make_task(std::string id, const std::filesystem::path& path) {
  return {std::move(id), path, level_of(path), problem_of(path)};
}

util::Result<std::vector<SuiteTask>> find_tasks(const std::vector<std::string>& specs) {
  if (specs.empty()) return util::fail("failed to find tasks: no --tasks given");
  std::vector<SuiteTask> tasks;
  std::set<std::filesystem::path> seen;
  for (const std::string& spec : specs) {
    auto files = expand(spec);
    if (!files) return std::unexpected(files.error());
    for (const auto& file : *files) {
      std::filesystem::path path = file.lexically_normal();
      if (!seen.insert(std::filesystem::absolute(path).lexically_normal()).second) continue;
      if (path.stem().string().starts_with("__")) continue;  // __init__.py and friends
      tasks.push_back({path.stem().string(), path, level_of(path), problem_of(path)});
    }
  }
  std::map<std::string, int> count;
  for (const auto& t : tasks) ++count[t.id];
  for (auto& t : tasks)
    if (count[t.id] > 1) t.id = t.path.parent_path().filename().string() + "_" + t.id;
  std::sort(tasks.begin(), tasks.end(), [](const SuiteTask& a, const SuiteTask& b) {
    auto key = [](const SuiteTask& t) {
      return std::make_tuple(t.level.value_or(0), t.problem.value_or(1 << 30), t.id);
    };
    return key(a) < key(b);
  });
  return tasks;
}

std::vector<SuiteTask> shard_tasks(const std::vector<SuiteTask>& tasks, int shards, int shard) {
  if (shards <= 1) return tasks;
  std::vector<SuiteTask> out;
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (static_cast<int>(i % static_cast<std::size_t>(shards)) == shard) out.push_back(tasks[i]);
  return out;
}

util::Result<CandidateMatch> match_candidates(const std::vector<SuiteTask>& tasks,
                                              const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error))
    return util::fail("failed to read candidates {}: not a directory", dir.string());
  std::map<std::string, const SuiteTask*> by_stem;
  std::map<std::pair<int, int>, const SuiteTask*> by_number;
  std::set<int> levels;
  for (const SuiteTask& t : tasks) {
    by_stem[t.path.stem().string()] = &t;
    by_stem[t.id] = &t;
    if (t.problem) {
      by_number[{t.level.value_or(0), *t.problem}] = &t;
      levels.insert(t.level.value_or(0));
    }
  }
  static const std::regex kernelbench(
      R"(level_?(\d+)_problem_?(\d+)(?:_sample_?(\d+))?(?:_kernel)?)");
  CandidateMatch match;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error))
    if (entry.is_regular_file() && entry.path().extension() == ".py") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::string stem = file.stem().string();
    if (auto it = by_stem.find(stem); it != by_stem.end()) {
      match.by_task[it->second->id].push_back({file, 0});
      continue;
    }
    std::smatch m;
    if (std::regex_match(stem, m, kernelbench)) {
      int level = std::stoi(m[1]);
      int problem = std::stoi(m[2]);
      int sample = m[3].matched ? std::stoi(m[3]) : 0;
      auto it = by_number.find({level, problem});
      // Tasks from a folder not named level<L>: a single-level suite matches by problem alone.
      if (it == by_number.end() && levels.size() == 1 && levels.contains(0))
        it = by_number.find({0, problem});
      if (it != by_number.end()) {
        match.by_task[it->second->id].push_back({file, sample});
        continue;
      }
    }
    match.unmatched.push_back(file.filename().string());
  }
  for (auto& [id, files_of_task] : match.by_task)
    std::stable_sort(
        files_of_task.begin(), files_of_task.end(),
        [](const CandidateFile& a, const CandidateFile& b) { return a.sample < b.sample; });
  return match;
}

}  // namespace kforge::suite

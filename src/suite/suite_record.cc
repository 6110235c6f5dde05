#include "suite/suite_record.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace kforge::suite {

namespace {

using nlohmann::json;

json number(const std::optional<double>& value) {
  if (!value) return nullptr;
  if (std::isnan(*value)) return "nan";
  if (std::isinf(*value)) return *value > 0 ? "inf" : "-inf";
  return *value;
}

std::optional<double> read_number(const json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end()) return std::nullopt;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    const std::string& text = it->get_ref<const std::string&>();
    if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (text == "inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

template <typename T>
T read(const json& object, const char* name, T fallback) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

std::optional<bool> read_flag(const json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

json flag(const std::optional<bool>& value) {
  if (!value) return nullptr;
  return *value;
}

util::Result<json> parse_object(std::string_view text, std::string_view what) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return util::fail("failed to parse {}: not a JSON object", what);
  return j;
}

}  // namespace

std::optional<double> TaskResult::speedup(std::string_view baseline) const {
  if (!correct() || !best_ms || !(*best_ms > 0)) return std::nullopt;
  const std::optional<double>* base = nullptr;
  if (baseline == "eager") base = &eager_ms;
  if (baseline == "compile") base = &compile_ms;
  if (baseline == "cuda_graph") base = &cuda_graph_ms;
  if (!base || !*base || !(**base > 0)) return std::nullopt;
  return **base / *best_ms;
}

std::string encode_config(const SuiteConfig& c) {
  json j = {{"mode", c.mode},
            {"task_ids", c.task_ids},
            {"task_paths", c.task_paths},
            {"candidates_dir", c.candidates_dir},
            {"device", c.device},
            {"shrink", c.shrink},
            {"precision", c.precision},
            {"gpus", c.gpus},
            {"shards", c.shards},
            {"provider", c.provider},
            {"model", c.model},
            {"task_budget_tokens", c.task_budget_tokens},
            {"task_budget_usd", c.task_budget_usd},
            {"task_time_limit_s", c.task_time_limit_s},
            {"budget_tokens", c.budget_tokens},
            {"budget_usd", c.budget_usd},
            {"time_limit_s", c.time_limit_s},
            {"created_at", c.created_at},
            {"kforge_version", c.kforge_version}};
  return j.dump();
}

util::Result<SuiteConfig> decode_config(std::string_view text) {
  auto parsed = parse_object(text, "suite config");
  if (!parsed) return std::unexpected(parsed.error());
  const json& j = *parsed;
  SuiteConfig c;
  c.mode = read<std::string>(j, "mode", "");
  c.task_ids = read<std::vector<std::string>>(j, "task_ids", {});
  c.task_paths = read<std::vector<std::string>>(j, "task_paths", {});
  if (c.mode != "eval" && c.mode != "run")
    return util::fail("failed to parse suite config: mode is {:?}, expected eval or run", c.mode);
  if (c.task_ids.size() != c.task_paths.size())
    return util::fail("failed to parse suite config: {} task ids but {} task paths",
                      c.task_ids.size(), c.task_paths.size());
  c.candidates_dir = read<std::string>(j, "candidates_dir", "");
  c.device = read<std::string>(j, "device", "cuda");
  c.shrink = read<bool>(j, "shrink", false);
  c.precision = read<std::string>(j, "precision", "calibrated");
  c.gpus = read<std::vector<int>>(j, "gpus", {});
  c.shards = read<int>(j, "shards", 1);
  c.provider = read<std::string>(j, "provider", "");
  c.model = read<std::string>(j, "model", "");
  c.task_budget_tokens = read<std::int64_t>(j, "task_budget_tokens", 0);
  c.task_budget_usd = read<double>(j, "task_budget_usd", 0);
  c.task_time_limit_s = read<double>(j, "task_time_limit_s", 0);
  c.budget_tokens = read<std::int64_t>(j, "budget_tokens", 0);
  c.budget_usd = read<double>(j, "budget_usd", 0);
  c.time_limit_s = read<double>(j, "time_limit_s", 0);
  c.created_at = read<std::string>(j, "created_at", "");
  c.kforge_version = read<std::string>(j, "kforge_version", "");
  return c;
}

std::string encode_task_result(const TaskResult& r) {
  json j = {{"id", r.id},
            {"task", r.task},
            {"status", r.status},
            {"candidate", r.candidate},
            {"samples", r.samples},
            {"correct_samples", r.correct_samples},
            {"pass_calibrated", flag(r.pass_calibrated)},
            {"pass_kernelbench", flag(r.pass_kernelbench)},
            {"generalizes", r.generalizes},
            {"max_abs_err", number(r.max_abs_err)},
            {"best_ms", number(r.best_ms)},
            {"eager_ms", number(r.eager_ms)},
            {"compile_ms", number(r.compile_ms)},
            {"cuda_graph_ms", number(r.cuda_graph_ms)},
            {"speedup_eager", number(r.speedup("eager"))},
            {"speedup_compile", number(r.speedup("compile"))},
            {"speedup_cuda_graph", number(r.speedup("cuda_graph"))},
            {"reasons", r.reasons},
            {"error_head", r.error_head},
            {"tokens", r.tokens},
            {"cost_usd", r.cost_usd},
            {"wall_s", r.wall_s},
            {"run_dir", r.run_dir},
            {"note", r.note},
            {"gpu", r.gpu},
            {"shard", r.shard}};
  return j.dump();
}

util::Result<TaskResult> decode_task_result(std::string_view text) {
  auto parsed = parse_object(text, "task result");
  if (!parsed) return std::unexpected(parsed.error());
  const json& j = *parsed;
  TaskResult r;
  r.id = read<std::string>(j, "id", "");
  r.status = read<std::string>(j, "status", "");
  if (r.id.empty() || r.status.empty())
    return util::fail("failed to parse task result: no id or no status");
  r.task = read<std::string>(j, "task", "");
  r.candidate = read<std::string>(j, "candidate", "");
  r.samples = read<int>(j, "samples", 0);
  r.correct_samples = read<int>(j, "correct_samples", 0);
  r.pass_calibrated = read_flag(j, "pass_calibrated");
  r.pass_kernelbench = read_flag(j, "pass_kernelbench");
  r.generalizes = read<std::string>(j, "generalizes", "");
  r.max_abs_err = read_number(j, "max_abs_err");
  r.best_ms = read_number(j, "best_ms");
  r.eager_ms = read_number(j, "eager_ms");
  r.compile_ms = read_number(j, "compile_ms");
  r.cuda_graph_ms = read_number(j, "cuda_graph_ms");
  r.reasons = read<std::vector<std::string>>(j, "reasons", {});
  r.error_head = read<std::string>(j, "error_head", "");
  r.tokens = read<std::int64_t>(j, "tokens", 0);
  r.cost_usd = read<double>(j, "cost_usd", 0);
  r.wall_s = read<double>(j, "wall_s", 0);
  r.run_dir = read<std::string>(j, "run_dir", "");
  r.note = read<std::string>(j, "note", "");
  r.gpu = read<int>(j, "gpu", -1);
  r.shard = read<int>(j, "shard", 0);
  return r;
}

}  // namespace kforge::suite

#include "suite/suite_record.h"

#include <nlohmann/json.hpp>

#include "util/json_fields.h"

namespace kforge::suite {

namespace {

using nlohmann::json;

util::Result<json> parse_object(std::string_view text, std::string_view what) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return util::fail("failed to parse {}: not a JSON object", what);
  return j;
}

/// The evaluation settings of a suite config; a field absent (a journal of an older kforge)
/// keeps its default.
util::Result<eval::EvalSettings> decode_settings(const json& j) {
  eval::EvalSettings s;
  const eval::EvalSettings& d = eval::kDefaultEvalSettings;
  auto device =
      eval::parse_device(util::string_field(j, "device", std::string(eval::device_name(d.device))));
  if (!device) return std::unexpected(device.error().context("device"));
  s.device = *device;
  auto precision = eval::parse_precision(
      util::string_field(j, "precision", std::string(eval::precision_name(d.precision))));
  if (!precision) return std::unexpected(precision.error().context("precision"));
  s.precision = *precision;
  auto numerics = eval::parse_numerics(
      util::string_field(j, "numerics", std::string(eval::to_string(d.numerics))));
  if (!numerics) return std::unexpected(numerics.error().context("numerics"));
  s.numerics = *numerics;
  s.shrink = util::value_field<bool>(j, "shrink", d.shrink);
  s.input_sets = util::value_field<int>(j, "input_sets", d.input_sets);
  s.trials = util::value_field<int>(j, "trials", d.trials);
  s.warmup = util::value_field<int>(j, "warmup", d.warmup);
  s.flush_l2 = util::value_field<bool>(j, "flush_l2", d.flush_l2);
  s.timeout_s = util::value_field<double>(j, "timeout_s", d.timeout_s);
  s.allow_pytorch_only = util::value_field<bool>(j, "allow_pytorch_only", d.allow_pytorch_only);
  return s;
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
            {"device", std::string(eval::device_name(c.settings.device))},
            {"shrink", c.settings.shrink},
            {"precision", std::string(eval::precision_name(c.settings.precision))},
            {"numerics", std::string(eval::to_string(c.settings.numerics))},
            {"input_sets", c.settings.input_sets},
            {"trials", c.settings.trials},
            {"warmup", c.settings.warmup},
            {"flush_l2", c.settings.flush_l2},
            {"timeout_s", c.settings.timeout_s},
            {"allow_pytorch_only", c.settings.allow_pytorch_only},
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
  c.mode = util::string_field(j, "mode");
  c.task_ids = util::value_field<std::vector<std::string>>(j, "task_ids", {});
  c.task_paths = util::value_field<std::vector<std::string>>(j, "task_paths", {});
  if (c.mode != "eval" && c.mode != "run")
    return util::fail("failed to parse suite config: mode is {:?}, expected eval or run", c.mode);
  if (c.task_ids.size() != c.task_paths.size())
    return util::fail("failed to parse suite config: {} task ids but {} task paths",
                      c.task_ids.size(), c.task_paths.size());
  c.candidates_dir = util::string_field(j, "candidates_dir");
  if (auto settings = decode_settings(j); settings)
    c.settings = *settings;
  else
    return std::unexpected(settings.error().context("failed to parse suite config"));
  c.gpus = util::value_field<std::vector<int>>(j, "gpus", {});
  c.shards = util::value_field<int>(j, "shards", 1);
  c.provider = util::string_field(j, "provider");
  c.model = util::string_field(j, "model");
  c.task_budget_tokens = util::value_field<std::int64_t>(j, "task_budget_tokens", 0);
  c.task_budget_usd = util::value_field<double>(j, "task_budget_usd", 0);
  c.task_time_limit_s = util::value_field<double>(j, "task_time_limit_s", 0);
  c.budget_tokens = util::value_field<std::int64_t>(j, "budget_tokens", 0);
  c.budget_usd = util::value_field<double>(j, "budget_usd", 0);
  c.time_limit_s = util::value_field<double>(j, "time_limit_s", 0);
  c.created_at = util::string_field(j, "created_at");
  c.kforge_version = util::string_field(j, "kforge_version");
  return c;
}

std::string encode_task_result(const TaskResult& r) {
  json j = {{"id", r.id},
            {"task", r.task},
            {"status", r.status},
            {"candidate", r.candidate},
            {"samples", r.samples},
            {"correct_samples", r.correct_samples},
            {"pass_calibrated", util::optional_json(r.pass_calibrated)},
            {"pass_kernelbench", util::optional_json(r.pass_kernelbench)},
            {"generalizes", r.generalizes},
            {"max_abs_err", util::number_json(r.max_abs_err)},
            {"best_ms", util::number_json(r.best_ms)},
            {"eager_ms", util::number_json(r.eager_ms)},
            {"compile_ms", util::number_json(r.compile_ms)},
            {"cuda_graph_ms", util::number_json(r.cuda_graph_ms)},
            {"speedup_eager", util::number_json(r.speedup("eager"))},
            {"speedup_compile", util::number_json(r.speedup("compile"))},
            {"speedup_cuda_graph", util::number_json(r.speedup("cuda_graph"))},
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
  r.id = util::string_field(j, "id");
  r.status = util::string_field(j, "status");
  if (r.id.empty() || r.status.empty())
    return util::fail("failed to parse task result: no id or no status");
  r.task = util::string_field(j, "task");
  r.candidate = util::string_field(j, "candidate");
  r.samples = util::value_field<int>(j, "samples", 0);
  r.correct_samples = util::value_field<int>(j, "correct_samples", 0);
  r.pass_calibrated = util::optional_bool_field(j, "pass_calibrated");
  r.pass_kernelbench = util::optional_bool_field(j, "pass_kernelbench");
  r.generalizes = util::string_field(j, "generalizes");
  r.max_abs_err = util::read_number_field(j, "max_abs_err");
  r.best_ms = util::read_number_field(j, "best_ms");
  r.eager_ms = util::read_number_field(j, "eager_ms");
  r.compile_ms = util::read_number_field(j, "compile_ms");
  r.cuda_graph_ms = util::read_number_field(j, "cuda_graph_ms");
  r.reasons = util::value_field<std::vector<std::string>>(j, "reasons", {});
  r.error_head = util::string_field(j, "error_head");
  r.tokens = util::value_field<std::int64_t>(j, "tokens", 0);
  r.cost_usd = util::value_field<double>(j, "cost_usd", 0);
  r.wall_s = util::value_field<double>(j, "wall_s", 0);
  r.run_dir = util::string_field(j, "run_dir");
  r.note = util::string_field(j, "note");
  r.gpu = util::value_field<int>(j, "gpu", -1);
  r.shard = util::value_field<int>(j, "shard", 0);
  return r;
}

}  // namespace kforge::suite

#include "eval/protocol_codec.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "util/source_location.h"

namespace kforge::eval {

namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxExcerptLine = 120;
constexpr std::size_t kExcerptRadius = 60;

/// JSON text; invalid UTF-8 (a worker's stderr can hold anything) is replaced, not thrown on.
std::string dump_text(const json& value, int indent = -1) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string absolute_text(const std::filesystem::path& path) {
  if (path.empty()) return {};
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? path.string() : absolute.lexically_normal().string();
}

/// A non-finite double travels as "nan", "inf" or "-inf" (docs/protocol.md, Numbers).
json number_json(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

json optional_number_json(const std::optional<double>& value) {
  return value ? number_json(*value) : json(nullptr);
}

/// `message` located at byte `offset` of `text`, as util::format_located_error does it; a long
/// line is shown as a window around the offset so the caret stays readable.
std::string located(std::string_view source, std::string_view text, std::size_t offset,
                    std::string_view message) {
  offset = std::min(offset, text.size());
  util::SourceLocation location = util::location_of_offset(std::string(source), text, offset);
  std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  line_start = (line_start == std::string_view::npos || offset == 0) ? 0 : line_start + 1;
  if (offset > 0 && text[offset - 1] == '\n') line_start = offset;
  std::size_t line_end = text.find('\n', offset);
  if (line_end == std::string_view::npos) line_end = text.size();
  if (line_end - line_start <= kMaxExcerptLine)
    return util::format_located_error(location, text, message);
  std::string out = util::format_located_error(location, "", message);
  std::size_t start = offset > line_start + kExcerptRadius ? offset - kExcerptRadius : line_start;
  std::size_t end = std::min(line_end, offset + kExcerptRadius);
  std::string prefix = start > line_start ? "..." : "";
  std::string suffix = end < line_end ? "..." : "";
  out += fmt::format("\n    {}{}{}", prefix, text.substr(start, end - start), suffix);
  out += fmt::format("\n    {}^", std::string(prefix.size() + (offset - start), ' '));
  return out;
}

std::string describe_value(const json& value) {
  std::string text = dump_text(value);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

std::string join(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

/// Reads typed fields out of a parsed result, keeping the first schema error with its location.
class Decoder {
 public:
  explicit Decoder(std::string_view text) : text_(text) {}

  bool failed() const { return message_.has_value(); }

  util::Error error() const {
    return util::Error{located("worker result", text_, offset_of(path_), *message_)}.context(
        "failed to parse worker reply");
  }

  void fail(const std::string& path, std::string message) {
    if (message_) return;
    path_ = path;
    message_ = fmt::format("{}: {}", path, message);
  }

  /// The field, or nullptr when it is absent or null.
  const json* field(const json& object, std::string_view key) const {
    if (!object.is_object()) return nullptr;
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return nullptr;
    return &*it;
  }

  std::optional<double> number(const json& object, std::string_view key, std::string_view parent) {
    const json* value = field(object, key);
    if (!value) return std::nullopt;
    if (value->is_number()) return value->get<double>();
    if (value->is_string()) {
      const std::string& text = value->get_ref<const std::string&>();
      if (text == "nan" || text == "NaN") return std::numeric_limits<double>::quiet_NaN();
      if (text == "inf" || text == "Infinity") return std::numeric_limits<double>::infinity();
      if (text == "-inf" || text == "-Infinity") return -std::numeric_limits<double>::infinity();
    }
    fail(join(parent, key), fmt::format("expected a number or \"nan\"/\"inf\"/\"-inf\", got {}",
                                        describe_value(*value)));
    return std::nullopt;
  }

  double number_or(const json& object, std::string_view key, std::string_view parent,
                   double fallback) {
    return number(object, key, parent).value_or(fallback);
  }

  std::optional<long long> integer(const json& object, std::string_view key,
                                   std::string_view parent) {
    const json* value = field(object, key);
    if (!value) return std::nullopt;
    if (value->is_number_integer()) return value->get<long long>();
    if (value->is_number_float()) {
      double number = value->get<double>();
      if (std::isfinite(number) && number == std::floor(number))
        return static_cast<long long>(number);
    }
    fail(join(parent, key), fmt::format("expected an integer, got {}", describe_value(*value)));
    return std::nullopt;
  }

  std::optional<std::string> string(const json& object, std::string_view key,
                                    std::string_view parent) {
    const json* value = field(object, key);
    if (!value) return std::nullopt;
    if (value->is_string()) return value->get<std::string>();
    fail(join(parent, key), fmt::format("expected a string, got {}", describe_value(*value)));
    return std::nullopt;
  }

  std::optional<bool> boolean(const json& object, std::string_view key, std::string_view parent) {
    const json* value = field(object, key);
    if (!value) return std::nullopt;
    if (value->is_boolean()) return value->get<bool>();
    fail(join(parent, key), fmt::format("expected true or false, got {}", describe_value(*value)));
    return std::nullopt;
  }

  const json* object(const json& parent_object, std::string_view key, std::string_view parent) {
    const json* value = field(parent_object, key);
    if (!value) return nullptr;
    if (value->is_object()) return value;
    fail(join(parent, key), fmt::format("expected an object, got {}", describe_value(*value)));
    return nullptr;
  }

  const json* array(const json& parent_object, std::string_view key, std::string_view parent) {
    const json* value = field(parent_object, key);
    if (!value) return nullptr;
    if (value->is_array()) return value;
    fail(join(parent, key), fmt::format("expected a list, got {}", describe_value(*value)));
    return nullptr;
  }

  std::optional<LatencyStats> stats(const json& object, std::string_view key,
                                    std::string_view parent) {
    const json* value = this->object(object, key, parent);
    if (!value) return std::nullopt;
    std::string path = join(parent, key);
    LatencyStats stats;
    stats.median_ms = number_or(*value, "median_ms", path, 0);
    stats.mean_ms = number_or(*value, "mean_ms", path, 0);
    stats.std_ms = number_or(*value, "std_ms", path, 0);
    stats.min_ms = number_or(*value, "min_ms", path, 0);
    stats.trials = static_cast<int>(integer(*value, "trials", path).value_or(0));
    return stats;
  }

  /// A list of strings.
  std::vector<std::string> strings(const json& object, std::string_view key,
                                   std::string_view parent) {
    std::vector<std::string> out;
    const json* list = array(object, key, parent);
    if (!list) return out;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const json& item = (*list)[i];
      if (item.is_string())
        out.push_back(item.get<std::string>());
      else
        fail(fmt::format("{}[{}]", join(parent, key), i),
             fmt::format("expected a string, got {}", describe_value(item)));
    }
    return out;
  }

  /// An object of scalars as text (numbers formatted, booleans "true"/"false", nulls left out).
  std::map<std::string, std::string> text_map(const json& object, std::string_view key,
                                              std::string_view parent) {
    std::map<std::string, std::string> out;
    const json* value = this->object(object, key, parent);
    if (!value) return out;
    for (const auto& [name, item] : value->items()) {
      if (item.is_null()) continue;
      if (item.is_string())
        out[name] = item.get<std::string>();
      else if (item.is_boolean())
        out[name] = item.get<bool>() ? "true" : "false";
      else if (item.is_number_integer())
        out[name] = std::to_string(item.get<long long>());
      else if (item.is_number())
        out[name] = fmt::format("{}", item.get<double>());
      else
        out[name] = dump_text(item);
    }
    return out;
  }

  /// An object of numbers (shape constants); booleans count as 0/1, other values are skipped.
  std::map<std::string, double> number_map(const json& object, std::string_view key,
                                           std::string_view parent) {
    std::map<std::string, double> out;
    const json* value = this->object(object, key, parent);
    if (!value) return out;
    for (const auto& [name, item] : value->items()) {
      if (item.is_number())
        out[name] = item.get<double>();
      else if (item.is_boolean())
        out[name] = item.get<bool>() ? 1 : 0;
    }
    return out;
  }

 private:
  /// Where the last key of `path` ("correctness.max_abs_err") appears in the text: each
  /// component is searched after the previous one, which finds the field in compact or pretty
  /// JSON alike.
  std::size_t offset_of(const std::string& path) const {
    std::size_t offset = 0;
    std::size_t start = 0;
    std::string_view rest = path;
    while (!rest.empty()) {
      std::size_t dot = rest.find('.');
      std::string_view component = rest.substr(0, dot);
      if (std::size_t bracket = component.find('['); bracket != std::string_view::npos)
        component = component.substr(0, bracket);
      std::size_t found = text_.find(fmt::format("\"{}\"", component), start);
      if (found == std::string_view::npos) break;
      offset = start = found;
      if (dot == std::string_view::npos) break;
      rest.remove_prefix(dot + 1);
    }
    return offset;
  }

  std::string_view text_;
  std::optional<std::string> message_;
  std::string path_;
};

util::Result<json> parse_object(std::string_view text, std::string_view source) {
  json value;
  try {
    value = json::parse(text);
  } catch (const json::parse_error& error) {
    std::string what = error.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error …"
    if (std::size_t column = what.find("column "); column != std::string::npos) {
      std::size_t colon = what.find(": ", column);
      if (colon != std::string::npos) what = what.substr(colon + 2);
    }
    std::size_t offset = error.byte > 0 ? error.byte - 1 : 0;
    return std::unexpected(
        util::Error{located(source, text, offset, what)}.context("failed to parse {}", source));
  }
  if (!value.is_object())
    return std::unexpected(
        util::Error{located(source, text, 0,
                            fmt::format("expected a JSON object, got {}", describe_value(value)))}
            .context("failed to parse {}", source));
  return value;
}

json stats_json(const std::optional<LatencyStats>& stats) {
  if (!stats) return nullptr;
  return json{{"median_ms", number_json(stats->median_ms)},
              {"mean_ms", number_json(stats->mean_ms)},
              {"std_ms", number_json(stats->std_ms)},
              {"min_ms", number_json(stats->min_ms)},
              {"trials", stats->trials}};
}

json evaluation_json(const Evaluation& evaluation) {
  json out;
  out["status"] = std::string(to_string(evaluation.status));
  out["error"] = evaluation.error;
  out["error_location"] =
      evaluation.error_location ? json(*evaluation.error_location) : json(nullptr);
  out["reasons"] = evaluation.reasons;
  if (evaluation.correctness) {
    const Correctness& c = *evaluation.correctness;
    out["correctness"] = {
        {"precision", c.precision},
        {"input_sets", c.input_sets},
        {"pass_calibrated", c.pass_calibrated},
        {"pass_kernelbench", c.pass_kernelbench},
        {"max_abs_err", number_json(c.max_abs_err)},
        {"mean_abs_err", number_json(c.mean_abs_err)},
        {"max_abs_err_fp64", number_json(c.max_abs_err_fp64)},
        {"mean_abs_err_fp64", number_json(c.mean_abs_err_fp64)},
        {"reference_err_fp64", number_json(c.reference_err_fp64)},
        {"tolerance", number_json(c.tolerance)},
        {"first_failure", c.first_failure ? json(*c.first_failure) : json(nullptr)},
    };
  } else {
    out["correctness"] = nullptr;
  }
  if (evaluation.numerics) {
    const NumericsReport& n = *evaluation.numerics;
    out["numerics"] = {{"policy", n.policy},
                       {"reference", n.reference},
                       {"summary", n.summary.empty() ? json(nullptr) : json(n.summary)},
                       {"lowered", n.lowered},
                       {"evidence", n.evidence}};
  }
  out["generalizes"] = evaluation.generalizes;
  if (evaluation.candidate || evaluation.eager || evaluation.compiled || evaluation.cuda_graph) {
    out["timing"] = {{"candidate", stats_json(evaluation.candidate)},
                     {"eager", stats_json(evaluation.eager)},
                     {"compile", stats_json(evaluation.compiled)},
                     {"cuda_graph", stats_json(evaluation.cuda_graph)}};
  } else {
    out["timing"] = nullptr;
  }
  out["score"] = optional_number_json(evaluation.score);
  out["speedup_vs_best_baseline"] = optional_number_json(evaluation.speedup_vs_best_baseline);
  out["launches_per_forward"] =
      evaluation.launches_per_forward ? json(*evaluation.launches_per_forward) : json(nullptr);
  out["kernels"] = json::array();
  for (const KernelSeen& kernel : evaluation.kernels)
    out["kernels"].push_back({{"name", kernel.name},
                              {"calls_per_forward", number_json(kernel.calls_per_forward)},
                              {"time_share", number_json(kernel.time_share)},
                              {"own", kernel.own}});
  out["device"] = evaluation.device;
  out["versions"] = evaluation.versions;
  out["shapes"] = json::object();
  for (const auto& [name, value] : evaluation.shapes) out["shapes"][name] = number_json(value);
  if (!evaluation.baseline_errors.empty() && out["timing"].is_object())
    out["timing"]["baseline_errors"] = evaluation.baseline_errors;
  out["wall_s"] = number_json(evaluation.wall_s);
  out["timed_s"] = number_json(evaluation.timed_s);
  out["notes"] = evaluation.notes;
  out["output_tail"] = evaluation.output_tail;
  out["output_bytes"] = evaluation.output_bytes;
  return out;
}

json worker_info_json(const WorkerInfo& info) {
  if (!info.raw_json.empty()) {
    json parsed = json::parse(info.raw_json, nullptr, false);
    if (parsed.is_object()) return parsed;
  }
  json device = nullptr;
  if (info.device_name)
    device = {{"name", *info.device_name},
              {"sm_count", info.sm_count},
              {"memory_gb", number_json(info.memory_gb)},
              {"capability", info.capability ? json(*info.capability) : json(nullptr)}};
  return {{"worker_version", info.worker_version},
          {"python", info.python},
          {"torch", info.torch},
          {"triton", info.triton},
          {"numpy", info.numpy},
          {"cuda", info.cuda ? json(*info.cuda) : json(nullptr)},
          {"device", device},
          {"interpret", info.interpret},
          {"pid", info.pid}};
}

json context_json(const OutputContext& context) {
  json out = {{"version", context.kforge_version},
              {"task", absolute_text(context.task)},
              {"device", std::string(device_name(context.device))},
              {"worker", context.worker ? worker_info_json(*context.worker) : json(nullptr)},
              {"exit_code", context.exit_code}};
  if (!context.candidate.empty()) {
    out["candidate"] = absolute_text(context.candidate);
    out["correct"] = context.correct;
  }
  return out;
}

json baseline_json(const BaselineResult& baseline) {
  return {{"eager", stats_json(baseline.eager)},
          {"compile", stats_json(baseline.compiled)},
          {"cuda_graph", stats_json(baseline.cuda_graph)},
          {"device", baseline.device},
          {"versions", baseline.versions},
          {"shapes", baseline.shapes},
          {"errors", baseline.errors},
          {"wall_s", number_json(baseline.wall_s)},
          {"timed_s", number_json(baseline.timed_s)}};
}

json parsed_or(const std::string& raw, const json& fallback) {
  if (raw.empty()) return fallback;
  json parsed = json::parse(raw, nullptr, false);
  return parsed.is_object() ? parsed : fallback;
}

}  // namespace

std::string encode_hello_request(std::int64_t id) {
  return json{{"id", id}, {"op", "hello"}}.dump();
}

std::string encode_shutdown_request(std::int64_t id) {
  return json{{"id", id}, {"op", "shutdown"}}.dump();
}

std::string encode_evaluate_request(std::int64_t id, const EvalRequest& request) {
  json out = {
      {"id", id},
      {"op", "evaluate"},
      {"task_path", absolute_text(request.task)},
      {"candidate_path", absolute_text(request.candidate)},
      {"device", std::string(device_name(request.device))},
      {"shrink", request.shrink},
      {"overrides", request.overrides},
      {"precision", std::string(precision_name(request.precision))},
      {"numerics", std::string(to_string(request.numerics))},
      {"input_sets", request.input_sets},
      {"trials", request.trials},
      {"warmup", request.warmup},
      {"flush_l2", request.flush_l2},
      {"timeout_s", number_json(request.timeout_s)},
      {"allow_pytorch_only", request.allow_pytorch_only},
      {"check_generalization", request.check_generalization},
      {"baselines", request.baselines},
      {"profile", request.profile},
  };
  if (request.overrides.empty()) out["overrides"] = json::object();
  if (request.input_seed) out["input_seed"] = *request.input_seed;
  return dump_text(out);
}

std::string encode_baseline_request(std::int64_t id, const BaselineRequest& request) {
  json out = {
      {"id", id},
      {"op", "baseline"},
      {"task_path", absolute_text(request.task)},
      {"device", std::string(device_name(request.device))},
      {"shrink", request.shrink},
      {"overrides", request.overrides},
      {"trials", request.trials},
      {"warmup", request.warmup},
      {"flush_l2", request.flush_l2},
      {"baselines", request.baselines},
      {"timeout_s", number_json(request.timeout_s)},
  };
  if (request.overrides.empty()) out["overrides"] = json::object();
  return dump_text(out);
}

std::string encode_inspect_task_request(std::int64_t id, const InspectTaskRequest& request) {
  return dump_text(json{{"id", id},
                        {"op", "inspect_task"},
                        {"task_path", absolute_text(request.task)},
                        {"shrink", request.shrink},
                        {"timeout_s", number_json(request.timeout_s)}});
}

std::string encode_analyze_request(std::int64_t id, const AnalyzeRequest& request) {
  json out = {
      {"id", id},
      {"op", "analyze"},
      {"candidate_path", request.candidate.string()},
      {"runtime", request.runtime},
      {"device", std::string(device_name(request.device))},
      {"shrink", request.shrink},
  };
  if (request.task) out["task_path"] = request.task->string();
  return dump_text(out);
}

util::Result<Reply> decode_reply(std::string_view line) {
  auto parsed = parse_object(line, "worker reply");
  if (!parsed) return std::unexpected(parsed.error());
  const json& object = *parsed;
  Decoder decoder(line);
  Reply reply;
  if (const json* id = decoder.field(object, "id")) {
    if (id->is_number_integer())
      reply.id = id->get<std::int64_t>();
    else
      decoder.fail("id", fmt::format("expected an integer, got {}", describe_value(*id)));
  }
  std::optional<bool> ok = decoder.boolean(object, "ok", "");
  if (!ok && !decoder.failed()) decoder.fail("ok", "missing");
  reply.ok = ok.value_or(false);
  reply.poisoned = decoder.boolean(object, "poisoned", "").value_or(false);
  if (reply.ok) {
    const json* result = decoder.object(object, "result", "");
    if (result) {
      reply.result_json = dump_text(*result);
      // A worker may also flag poisoning inside the result.
      reply.poisoned =
          reply.poisoned || decoder.boolean(*result, "poisoned", "result").value_or(false);
    } else if (!decoder.failed()) {
      decoder.fail("result", "missing (ok is true)");
    }
  } else {
    reply.error = decoder.string(object, "error", "").value_or("");
    if (reply.error.empty() && !decoder.failed())
      reply.error = "the worker refused the request without saying why";
  }
  if (decoder.failed()) return std::unexpected(decoder.error());
  return reply;
}

util::Result<Evaluation> decode_evaluation(std::string_view result_json) {
  auto parsed = parse_object(result_json, "worker result");
  if (!parsed) return std::unexpected(parsed.error());
  const json& object = *parsed;
  Decoder d(result_json);
  Evaluation e;
  std::optional<std::string> status = d.string(object, "status", "");
  if (!status) {
    if (!d.failed()) d.fail("status", "missing");
  } else if (auto known = status_from_string(*status)) {
    e.status = *known;
  } else {
    d.fail("status", fmt::format("unknown status \"{}\"", *status));
  }
  e.error = d.string(object, "error", "").value_or("");
  e.error_location = d.string(object, "error_location", "");
  e.reasons = d.strings(object, "reasons", "");
  if (const json* c = d.object(object, "correctness", "")) {
    Correctness correctness;
    const std::string p = "correctness";
    correctness.precision = d.string(*c, "precision", p).value_or("");
    correctness.input_sets = static_cast<int>(d.integer(*c, "input_sets", p).value_or(0));
    correctness.pass_calibrated = d.boolean(*c, "pass_calibrated", p).value_or(false);
    correctness.pass_kernelbench = d.boolean(*c, "pass_kernelbench", p).value_or(false);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    correctness.max_abs_err = d.number_or(*c, "max_abs_err", p, nan);
    correctness.mean_abs_err = d.number_or(*c, "mean_abs_err", p, nan);
    correctness.max_abs_err_fp64 = d.number_or(*c, "max_abs_err_fp64", p, nan);
    correctness.mean_abs_err_fp64 = d.number_or(*c, "mean_abs_err_fp64", p, nan);
    correctness.reference_err_fp64 = d.number_or(*c, "reference_err_fp64", p, nan);
    correctness.tolerance = d.number_or(*c, "tolerance", p, nan);
    correctness.first_failure = d.string(*c, "first_failure", p);
    e.correctness = correctness;
  }
  if (const json* n = d.object(object, "numerics", "")) {
    NumericsReport numerics;
    numerics.policy = d.string(*n, "policy", "numerics").value_or("");
    numerics.reference = d.string(*n, "reference", "numerics").value_or("");
    numerics.summary = d.string(*n, "summary", "numerics").value_or("");
    numerics.lowered = d.boolean(*n, "lowered", "numerics").value_or(false);
    numerics.evidence = d.strings(*n, "evidence", "numerics");
    e.numerics = numerics;
  }
  e.generalizes = d.string(object, "generalizes", "").value_or("unknown");
  if (const json* timing = d.object(object, "timing", "")) {
    e.candidate = d.stats(*timing, "candidate", "timing");
    e.eager = d.stats(*timing, "eager", "timing");
    e.compiled = d.stats(*timing, "compile", "timing");
    e.cuda_graph = d.stats(*timing, "cuda_graph", "timing");
    e.baseline_errors = d.text_map(*timing, "baseline_errors", "timing");
  }
  e.score = d.number(object, "score", "");
  e.speedup_vs_best_baseline = d.number(object, "speedup_vs_best_baseline", "");
  if (auto launches = d.integer(object, "launches_per_forward", ""))
    e.launches_per_forward = static_cast<int>(*launches);
  if (const json* kernels = d.array(object, "kernels", "")) {
    for (std::size_t i = 0; i < kernels->size(); ++i) {
      const json& k = (*kernels)[i];
      std::string p = fmt::format("kernels[{}]", i);
      if (!k.is_object()) {
        d.fail(p, fmt::format("expected an object, got {}", describe_value(k)));
        break;
      }
      KernelSeen kernel;
      kernel.name = d.string(k, "name", p).value_or("");
      kernel.calls_per_forward = d.number_or(k, "calls_per_forward", p, 0);
      kernel.time_share = d.number_or(k, "time_share", p, 0);
      kernel.own = d.boolean(k, "own", p).value_or(false);
      e.kernels.push_back(std::move(kernel));
    }
  }
  e.device = d.text_map(object, "device", "");
  e.versions = d.text_map(object, "versions", "");
  e.shapes = d.number_map(object, "shapes", "");
  e.wall_s = d.number_or(object, "wall_s", "", 0);
  e.timed_s = d.number_or(object, "timed_s", "", 0);
  e.notes = d.strings(object, "notes", "");
  e.output_tail = d.string(object, "output_tail", "").value_or("");
  e.output_bytes = d.integer(object, "output_bytes", "").value_or(0);
  if (d.failed()) return std::unexpected(d.error());
  e.raw_json = dump_text(object);
  return e;
}

util::Result<WorkerInfo> decode_worker_info(std::string_view result_json) {
  auto parsed = parse_object(result_json, "worker result");
  if (!parsed) return std::unexpected(parsed.error());
  const json& object = *parsed;
  Decoder d(result_json);
  WorkerInfo info;
  info.worker_version = d.string(object, "worker_version", "").value_or("");
  info.python = d.string(object, "python", "").value_or("");
  info.torch = d.string(object, "torch", "").value_or("");
  info.triton = d.string(object, "triton", "").value_or("");
  info.numpy = d.string(object, "numpy", "").value_or("");
  info.cuda = d.string(object, "cuda", "");
  if (const json* device = d.object(object, "device", "")) {
    info.device_name = d.string(*device, "name", "device").value_or("");
    info.sm_count = static_cast<int>(d.integer(*device, "sm_count", "device").value_or(0));
    info.memory_gb = d.number_or(*device, "memory_gb", "device", 0);
    if (const json* capability = d.field(*device, "capability")) {
      if (capability->is_string())
        info.capability = capability->get<std::string>();
      else if (capability->is_array() && capability->size() == 2 && (*capability)[0].is_number() &&
               (*capability)[1].is_number())
        info.capability =
            fmt::format("{}.{}", dump_text((*capability)[0]), dump_text((*capability)[1]));
      else
        info.capability = dump_text(*capability);
    }
  }
  info.interpret = d.boolean(object, "interpret", "").value_or(false);
  info.pid = static_cast<long>(d.integer(object, "pid", "").value_or(0));
  if (d.failed()) return std::unexpected(d.error());
  info.raw_json = dump_text(object);
  return info;
}

util::Result<BaselineResult> decode_baseline(std::string_view result_json) {
  auto parsed = parse_object(result_json, "worker result");
  if (!parsed) return std::unexpected(parsed.error());
  const json& object = *parsed;
  Decoder d(result_json);
  BaselineResult baseline;
  // Timings at the top level, or under "timing" as in an Evaluation: both are accepted.
  const json* timing = d.object(object, "timing", "");
  const json& source = timing ? *timing : object;
  std::string_view parent = timing ? "timing" : "";
  baseline.eager = d.stats(source, "eager", parent);
  baseline.compiled = d.stats(source, "compile", parent);
  baseline.cuda_graph = d.stats(source, "cuda_graph", parent);
  baseline.device = d.text_map(object, "device", "");
  baseline.versions = d.text_map(object, "versions", "");
  baseline.shapes = d.number_map(object, "shapes", "");
  baseline.errors = d.text_map(object, "errors", "");
  baseline.wall_s = d.number_or(object, "wall_s", "", 0);
  baseline.timed_s = d.number_or(object, "timed_s", "", 0);
  if (d.failed()) return std::unexpected(d.error());
  baseline.raw_json = dump_text(object);
  return baseline;
}

std::string encode_evaluation_output(const Evaluation& evaluation, const OutputContext& context) {
  json out = parsed_or(evaluation.raw_json, evaluation_json(evaluation));
  if (context.device == Device::kCpu) {
    out["score"] = nullptr;
    out["speedup_vs_best_baseline"] = nullptr;
  }
  out["kforge"] = context_json(context);
  return dump_text(out, 2);
}

std::string encode_baseline_output(const BaselineResult& baseline, const OutputContext& context) {
  json out = parsed_or(baseline.raw_json, baseline_json(baseline));
  out["kforge"] = context_json(context);
  return dump_text(out, 2);
}

std::string encode_error_output(std::string_view message, const OutputContext& context) {
  json out = {{"error", std::string(message)}, {"kforge", context_json(context)}};
  return dump_text(out, 2);
}

}  // namespace kforge::eval

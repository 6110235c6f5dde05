#include "task/task_info.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "util/json_fields.h"
#include "util/source_location.h"

namespace kforge::task {

namespace {

using nlohmann::json;

/// `value` as JSON text, with bytes that are not UTF-8 replaced rather than thrown on.
std::string text_of(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// Collects the first problem of a parse; later ones are dropped.
struct Reader {
  std::string problem;

  const json* field(const json& object, const char* name, json::value_t kind,
                    const char* kind_name) {
    auto it = object.find(name);
    if (it == object.end() || it->is_null()) return nullptr;
    bool ok =
        it->type() == kind || (kind == json::value_t::number_integer && it->is_number_integer());
    if (!ok) {
      if (problem.empty()) problem = fmt::format("{} must be {}", name, kind_name);
      return nullptr;
    }
    return &*it;
  }

  std::map<std::string, std::string> text_map(const json& object, const char* name) {
    std::map<std::string, std::string> out;
    if (const json* map = field(object, name, json::value_t::object, "an object"))
      for (const auto& [key, value] : map->items()) out[key] = text_of(value);
    return out;
  }

  std::vector<TensorSpec> tensors(const json& object, const char* name) {
    std::vector<TensorSpec> out;
    const json* list = field(object, name, json::value_t::array, "a list");
    if (!list) return out;
    for (const json& item : *list) {
      if (!item.is_object()) {
        if (problem.empty()) problem = fmt::format("{} must hold objects", name);
        return out;
      }
      TensorSpec spec;
      if (auto shape = item.find("shape"); shape != item.end() && shape->is_array()) {
        std::vector<std::int64_t> dims;
        for (const json& dim : *shape) {
          if (!dim.is_number_integer()) {
            if (problem.empty()) problem = fmt::format("{} shapes must hold integers", name);
            return out;
          }
          dims.push_back(dim.get<std::int64_t>());
        }
        spec.shape = std::move(dims);
      }
      if (auto dtype = item.find("dtype"); dtype != item.end() && dtype->is_string())
        spec.dtype = dtype->get<std::string>();
      if (auto value = item.find("value"); value != item.end() && !value->is_null())
        spec.value = text_of(*value);
      out.push_back(std::move(spec));
    }
    return out;
  }
};

}  // namespace

const ModuleInfo* TaskInfo::find_module(std::string_view type) const {
  for (const ModuleInfo& module : modules)
    if (module.type == type) return &module;
  return nullptr;
}

util::Result<TaskInfo> parse_task_info(std::string_view json_text) {
  json object;
  try {
    object = json::parse(json_text);
  } catch (const json::parse_error& error) {
    std::size_t at = std::min(error.byte > 0 ? error.byte - 1 : 0, json_text.size());
    util::SourceLocation location = util::location_of_offset("task_info", json_text, at);
    return util::fail("failed to read the task info: {}",
                      util::format_located_error(location, json_text, "invalid JSON"));
  }
  if (!object.is_object()) return util::fail("failed to read the task info: not a JSON object");

  Reader read;
  TaskInfo info;
  info.task_path = util::string_field(object, "task_path");
  info.constants = read.text_map(object, "constants");
  info.shrunk = read.text_map(object, "shrunk");
  info.shapes = read.text_map(object, "shapes");
  if (const json* modules = read.field(object, "modules", json::value_t::array, "a list")) {
    for (const json& item : *modules) {
      if (!item.is_object()) {
        read.problem = "modules must hold objects";
        break;
      }
      ModuleInfo module{util::string_field(item, "path"), util::string_field(item, "type"), {}};
      module.args = read.text_map(item, "args");
      info.modules.push_back(std::move(module));
    }
  }
  info.inputs = read.tensors(object, "inputs");
  info.init_inputs = read.tensors(object, "init_inputs");
  info.outputs = read.tensors(object, "outputs");
  if (const json* sources = read.field(object, "output_sources", json::value_t::array, "a list")) {
    for (const json& item : *sources) {
      if (item.is_object())
        info.output_sources.push_back(
            OutputSource{util::string_field(item, "module"), util::string_field(item, "value")});
      else
        info.output_sources.push_back(std::nullopt);
    }
  }
  info.forward_signature = util::string_field(object, "forward_signature");
  if (const json* recurrent = read.field(object, "recurrent", json::value_t::boolean, "a boolean"))
    info.recurrent = recurrent->get<bool>();
  if (!read.problem.empty()) return util::fail("failed to read the task info: {}", read.problem);
  return info;
}

util::Result<TaskInfo> inspect_task(eval::WorkerPool& pool, const std::filesystem::path& path,
                                    bool shrink) {
  auto reply = pool.inspect_task({.task = path, .shrink = shrink});
  if (!reply) return std::unexpected(reply.error());
  return parse_task_info(*reply);
}

}  // namespace kforge::task

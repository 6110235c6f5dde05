#include "library/library_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/file_text.h"

namespace kforge::library {

namespace {

using nlohmann::json;

std::string field_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return value.dump();
}

std::optional<double> optional_number(const json& object, const char* key) {
  if (!object.contains(key) || !object[key].is_number()) return std::nullopt;
  return object[key].get<double>();
}

std::string string_or(const json& object, const char* key, std::string fallback = "") {
  return object.contains(key) && object[key].is_string() ? object[key].get<std::string>()
                                                         : fallback;
}

util::Result<LibraryEntry> read_entry(const std::filesystem::path& folder) {
  const std::filesystem::path meta_path = folder / "meta.json";
  auto text = util::read_file(meta_path);
  if (!text) return std::unexpected(text.error());
  json meta = json::parse(*text, nullptr, false);
  if (meta.is_discarded() || !meta.is_object())
    return util::fail("failed to read {}: not a JSON object", meta_path.string());
  LibraryEntry entry;
  entry.name = string_or(meta, "name", folder.filename().string());
  entry.dir = folder;
  entry.source = folder / string_or(meta, "source", "candidate.py");
  entry.description = string_or(meta, "description");
  if (meta.contains("tasks") && meta["tasks"].is_array())
    for (const json& task : meta["tasks"])
      if (task.is_string()) entry.tasks.push_back(task.get<std::string>());
  if (meta.contains("signature")) {
    if (!meta["signature"].is_object())
      return util::fail("failed to read {}: signature must be an object", meta_path.string());
    for (const auto& [key, value] : meta["signature"].items())
      entry.signature[key] = field_text(value);
  }
  if (meta.contains("measurements") && meta["measurements"].is_array()) {
    for (const json& row : meta["measurements"]) {
      if (!row.is_object()) continue;
      LibraryMeasurement m;
      m.task = string_or(row, "task");
      m.device = string_or(row, "device");
      m.date = string_or(row, "date");
      m.engine = string_or(row, "engine");
      m.is_default =
          !row.contains("default") || !row["default"].is_boolean() || row["default"].get<bool>();
      m.library_ms = optional_number(row, "library_ms");
      m.speedup_vs_eager = optional_number(row, "speedup_vs_eager");
      m.speedup_vs_compile = optional_number(row, "speedup_vs_compile");
      m.speedup_vs_cuda_graph = optional_number(row, "speedup_vs_cuda_graph");
      entry.measurements.push_back(m);
    }
  }
  return entry;
}

}  // namespace

std::filesystem::path user_library_dir() {
  if (const char* dir = std::getenv("KFORGE_LIBRARY_DIR"); dir && *dir) return dir;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data)
    return std::filesystem::path(data) / "kforge" / "library";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home ? home : ".") / ".local" / "share" / "kforge" / "library";
}

util::Result<std::vector<LibraryEntry>> load_library(
    const std::vector<std::filesystem::path>& dirs) {
  std::vector<LibraryEntry> entries;
  for (const std::filesystem::path& dir : dirs) {
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error)) continue;
    std::vector<std::filesystem::path> folders;
    for (const auto& item : std::filesystem::directory_iterator(dir, error))
      if (item.is_directory() && std::filesystem::exists(item.path() / "meta.json"))
        folders.push_back(item.path());
    std::sort(folders.begin(), folders.end());  // stable order: the first match is reproducible
    for (const std::filesystem::path& folder : folders) {
      auto entry = read_entry(folder);
      if (!entry) return std::unexpected(entry.error());
      entries.push_back(std::move(*entry));
    }
  }
  return entries;
}

std::string TaskSignature::describe() const {
  if (fields.empty()) return task_name;
  // a fixed order reads better than the map's
  static const char* const kOrder[] = {"type", "bidirectional", "batch_first", "has_fc", "returns"};
  std::string text;
  for (const char* key : kOrder) {
    auto it = fields.find(key);
    if (it == fields.end()) continue;
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", key, it->second);
  }
  return text;
}

TaskSignature derive_signature(const task::TaskInfo& info, const std::filesystem::path& task_path) {
  TaskSignature signature;
  signature.task_name = task_path.stem().string();
  const task::ModuleInfo* rnn = nullptr;
  bool has_fc = false;
  for (const task::ModuleInfo& module : info.modules) {
    if (!rnn && (module.type == "GRU" || module.type == "LSTM" || module.type == "RNN"))
      rnn = &module;
    if (module.type == "Linear") has_fc = true;
  }
  if (!rnn) return signature;
  std::string type = rnn->type;
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  auto arg = [&](const char* name) {
    auto it = rnn->args.find(name);
    return it == rnn->args.end() ? std::string("false") : it->second;
  };
  signature.fields["type"] = type;
  signature.fields["bidirectional"] = arg("bidirectional");
  signature.fields["batch_first"] = arg("batch_first");
  signature.fields["has_fc"] = has_fc ? "true" : "false";

  std::string returns = "other";
  if (info.outputs.size() == 1) {
    if (info.output_sources.size() == 1 && info.output_sources[0])
      returns = info.output_sources[0]->value.empty() ? "other" : info.output_sources[0]->value;
    else if (has_fc && info.outputs[0].shape && info.outputs[0].shape->size() == 2)
      returns = "fc_last";
  } else if (info.outputs.size() > 1) {
    returns = "several";
  }
  signature.fields["returns"] = returns;
  return signature;
}

const LibraryEntry* find_entry(const std::vector<LibraryEntry>& entries,
                               const TaskSignature& signature) {
  for (const LibraryEntry& entry : entries) {
    if (entry.signature.empty()) {
      if (std::find(entry.tasks.begin(), entry.tasks.end(), signature.task_name) !=
          entry.tasks.end())
        return &entry;
      continue;
    }
    bool all = true;
    for (const auto& [key, value] : entry.signature) {
      auto it = signature.fields.find(key);
      if (it == signature.fields.end() || it->second != value) {
        all = false;
        break;
      }
    }
    if (all) return &entry;
  }
  return nullptr;
}

}  // namespace kforge::library

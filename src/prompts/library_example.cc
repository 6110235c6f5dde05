#include "prompts/library_example.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kforge::prompts {

namespace {

using nlohmann::json;

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// What the task returns, as the library's signatures name it: the last statement of forward.
std::string task_returns(std::string_view source) {
  if (source.find("return h_n") != std::string_view::npos ||
      source.find("return self.h0") != std::string_view::npos)
    return "h_n";
  if (source.find("return c_n") != std::string_view::npos ||
      source.find("state[1]") != std::string_view::npos)
    return "c_n";
  if (source.find("self.fc(") != std::string_view::npos) return "fc_last";
  return "output";
}

}  // namespace

std::string recurrent_cell(std::string_view source) {
  if (source.find("nn.GRU") != std::string_view::npos) return "gru";
  if (source.find("nn.LSTM") != std::string_view::npos) return "lstm";
  if (source.find("nn.RNN") != std::string_view::npos) return "rnn";
  return "";
}

std::optional<LibraryExample> find_library_example(
    const std::vector<std::filesystem::path>& library_dirs, const std::filesystem::path& task,
    std::string_view task_source, std::size_t max_chars) {
  std::string task_file = task.filename().string();
  std::string task_name = task.stem().string();
  std::string cell = recurrent_cell(task_source);
  std::string returns = task_returns(task_source);
  std::optional<LibraryExample> exact, same_pattern, same_cell;
  for (const auto& dir : library_dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> entries;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.is_directory()) entries.push_back(entry.path());
    std::sort(entries.begin(), entries.end());
    for (const auto& folder : entries) {
      auto meta_text = read_text(folder / "meta.json");
      if (!meta_text) continue;
      json meta = json::parse(*meta_text, nullptr, false);
      if (!meta.is_object()) continue;
      std::string candidate = meta.value("candidate", meta.value("source", "candidate.py"));
      auto source = read_text(folder / candidate);
      if (!source || source->size() > max_chars) continue;
      LibraryExample example{folder.filename().string(), *source, ""};
      bool for_task = std::filesystem::path(meta.value("task", "")).filename() == task_file;
      if (auto tasks = meta.find("tasks"); tasks != meta.end() && tasks->is_array())
        for (const json& t : *tasks)
          if (t.is_string() && t.get<std::string>() == task_name) for_task = true;
      if (for_task && !exact) {
        example.why = "verified for this task";
        exact = example;
        continue;
      }
      if (cell.empty()) continue;
      auto signature = meta.find("signature");
      if (signature == meta.end() || !signature->is_object()) continue;
      if (signature->value("type", "") != cell) continue;
      if (signature->value("returns", "") == returns && !same_pattern) {
        example.why = "same " + cell + " pattern, returning " + returns;
        same_pattern = example;
      } else if (!same_cell) {
        example.why = "same " + cell + " cell";
        same_cell = example;
      }
    }
  }
  if (exact) return exact;
  if (same_pattern) return same_pattern;
  return same_cell;
}

}  // namespace kforge::prompts

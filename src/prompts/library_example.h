#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::prompts {

/// A verified library kernel shown to the model as a worked example.
struct LibraryExample {
  std::string name;  // the library folder's name, e.g. "gru_hn"
  std::string source;
  std::string why;  // "verified for this task" / "same gru pattern"
};

/// Picks the library kernel most related to the task: first one verified for this very task
/// (meta.json `task` naming the file, or `tasks` listing its name), then one whose
/// `signature.type` matches the recurrent cell the task source builds (nn.GRU → gru, nn.LSTM →
/// lstm), preferring the same `returns`. Folders without meta.json, unreadable ones and sources
/// longer than `max_chars` are passed over. nullopt when nothing fits.
std::optional<LibraryExample> find_library_example(
    const std::vector<std::filesystem::path>& library_dirs, const std::filesystem::path& task,
    std::string_view task_source, std::size_t max_chars = 40000);

/// The recurrent cell a task builds ("gru", "lstm", "rnn"), from its module constructors;
/// empty when none.
std::string recurrent_cell(std::string_view task_source);

}  // namespace kforge::prompts

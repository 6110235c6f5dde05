#include "prompts/library_example.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "library/library_catalog.h"
#include "util/file_text.h"

namespace kforge::prompts {

namespace {

/// The fields of `entry`'s signature whose value the task does not share.
std::vector<std::string> differing_fields(const library::LibraryEntry& entry,
                                          const library::TaskSignature& task) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : entry.signature) {
    auto it = task.fields.find(key);
    if (it == task.fields.end() || it->second != value) keys.push_back(key);
  }
  return keys;
}

/// "same gru cell; it has returns=h_n, the task returns=output".
std::string related_why(const library::LibraryEntry& entry, const library::TaskSignature& task) {
  std::string entry_side, task_side;
  for (const std::string& key : differing_fields(entry, task)) {
    auto it = task.fields.find(key);
    std::string_view separator = entry_side.empty() ? "" : " ";
    entry_side += fmt::format("{}{}={}", separator, key, entry.signature.at(key));
    task_side +=
        fmt::format("{}{}={}", separator, key, it == task.fields.end() ? "none" : it->second);
  }
  return fmt::format("same {} cell; it has {}, the task {}", entry.signature.at("type"), entry_side,
                     task_side);
}

}  // namespace

std::optional<LibraryExample> find_library_example(
    const std::vector<std::filesystem::path>& library_dirs, const task::TaskInfo& task,
    std::size_t max_chars) {
  auto library = library::load_library(library_dirs);
  if (!library) return std::nullopt;
  // Only the entries whose source can be shown; `sources[i]` belongs to `entries[i]`.
  std::vector<library::LibraryEntry> entries;
  std::vector<std::string> sources;
  for (library::LibraryEntry& entry : *library) {
    auto source = util::read_file(entry.source);
    if (!source || source->size() > max_chars) continue;
    entries.push_back(std::move(entry));
    sources.push_back(std::move(*source));
  }
  auto example = [&](const library::LibraryEntry& entry, std::string why) {
    std::size_t index = static_cast<std::size_t>(&entry - entries.data());
    return LibraryExample{entry.name, sources[index], std::move(why)};
  };

  library::TaskSignature signature = library::derive_signature(task, task.task_path);
  if (const library::LibraryEntry* same = library::find_entry(entries, signature))
    return example(*same,
                   same->signature.empty()
                       ? "verified for this task"
                       : fmt::format("same signature: {}",
                                     library::TaskSignature{"", same->signature}.describe()));

  auto type = signature.fields.find("type");
  if (type == signature.fields.end()) return std::nullopt;
  const library::LibraryEntry* related = nullptr;
  std::size_t fewest = 0;
  for (const library::LibraryEntry& entry : entries) {
    auto entry_type = entry.signature.find("type");
    if (entry_type == entry.signature.end() || entry_type->second != type->second) continue;
    std::size_t count = differing_fields(entry, signature).size();
    if (!related || count < fewest) {
      related = &entry;
      fewest = count;
    }
  }
  if (!related) return std::nullopt;
  return example(*related, related_why(*related, signature));
}

}  // namespace kforge::prompts

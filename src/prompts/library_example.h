#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "task/task_info.h"

namespace kforge::prompts {

/// A verified library kernel shown to the model as a worked example.
struct LibraryExample {
  std::string name;  // the entry's name, e.g. "gru_hn"
  std::string source;
  /// Why it was chosen: "verified for this task", "same signature: type=gru ... returns=h_n" (the
  /// entry's signature, which the task shares),
  /// "same gru cell; it has returns=h_n, the task returns=output".
  std::string why;
};

/// Picks the library kernel most related to the task the worker inspected (`task`, from
/// task::inspect_task), by the signature library::derive_signature gives it (module type,
/// bidirectional, batch_first, has_fc, what forward returns), never by the task's text:
///  1. the entry the library provider would answer with (library::find_entry: every signature field
///     equal, or no signature and the task's name in `tasks`);
///  2. else an entry with the same recurrent cell (`type`), the one differing from the task in the
///     fewest signature fields (the first of equals, in library order);
///  3. else nullopt: nothing related (a task without an RNN that no entry lists by name, a cell
///     the library lacks), or a library that cannot be read (a malformed meta.json).
/// Entries whose source cannot be read or is longer than `max_chars` are passed over.
std::optional<LibraryExample> find_library_example(
    const std::vector<std::filesystem::path>& library_dirs, const task::TaskInfo& task,
    std::size_t max_chars = 40000);

}  // namespace kforge::prompts

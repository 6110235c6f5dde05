#pragma once

// The kernel library on disk (library/<name>/meta.json + source) and how a task is matched to an
// entry: by the signature derived from the worker's TaskInfo, not by the task's file name.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "task/task_info.h"
#include "util/error.h"

namespace kforge::library {

/// One timing of an entry, copied from its meta.json (which a bench or `kforge library add`
/// filled from measured output).
struct LibraryMeasurement {
  std::string task;
  std::string device;
  std::string date;
  std::string engine;
  /// False for a row measured with a non-default configuration of the same kernel.
  bool is_default = true;
  std::optional<double> library_ms;
  std::optional<double> speedup_vs_eager;
  std::optional<double> speedup_vs_compile;
  std::optional<double> speedup_vs_cuda_graph;
};

/// One verified kernel: `<library dir>/<name>/meta.json` and the candidate file it names.
struct LibraryEntry {
  std::string name;
  std::filesystem::path dir;
  std::filesystem::path source;
  std::string description;
  /// Task names it was verified on ("39_GRU").
  std::vector<std::string> tasks;
  /// What it computes, field by field as text ("type" → "gru", "bidirectional" → "false").
  /// Empty for an entry added from a run without one: it then matches by task name.
  std::map<std::string, std::string> signature;
  std::vector<LibraryMeasurement> measurements;
};

/// The user's local library: KFORGE_LIBRARY_DIR, else $XDG_DATA_HOME/kforge/library, else
/// ~/.local/share/kforge/library.
std::filesystem::path user_library_dir();

/// Every entry under `dirs`, in order (a folder that does not exist is skipped; a folder without
/// meta.json is not an entry). A malformed meta.json is an error naming the file.
util::Result<std::vector<LibraryEntry>> load_library(
    const std::vector<std::filesystem::path>& dirs);

/// What a task computes, in the terms library signatures use.
struct TaskSignature {
  std::string task_name;  // the task file's stem
  /// For a task built around an nn.GRU/nn.LSTM/nn.RNN: type, bidirectional, batch_first,
  /// has_fc, returns (output | h_n | c_n | fc_last | other). Empty for other tasks.
  std::map<std::string, std::string> fields;

  /// "type=lstm bidirectional=false batch_first=true has_fc=true returns=c_n", or the task name
  /// when there are no fields.
  std::string describe() const;
};

/// Derives the signature from the worker's inspect_task result (task::TaskInfo): the first
/// recurrent module's type and arguments, whether a Linear exists, and what the (single) output
/// is — `output_sources` says when it is the RNN's own output, h_n or c_n; a 2-D output of a task
/// with a Linear is `fc_last`.
TaskSignature derive_signature(const task::TaskInfo& info, const std::filesystem::path& task_path);

/// The first entry whose signature fields all equal the task's; an entry without a signature
/// matches when it lists the task's name. nullptr when none does.
const LibraryEntry* find_entry(const std::vector<LibraryEntry>& entries,
                               const TaskSignature& signature);

}  // namespace kforge::library

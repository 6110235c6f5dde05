#pragma once

// What a task computes, as the worker's `inspect_task` reports it (docs/protocol.md, TaskInfo):
// the facts come from importing the task and running one forward, never from reading its text.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/worker_pool.h"
#include "util/error.h"

namespace kforge::task {

/// One submodule of the task's Model; `path` "" is the root.
struct ModuleInfo {
  std::string path;
  /// The class name: "GRU", "Linear", "Conv2d", "Model".
  std::string type;
  /// Constructor arguments as JSON text ("true", "256", "[3, 3]"); filled for RNN/GRU/LSTM,
  /// Linear and ConvNd, empty for other modules.
  std::map<std::string, std::string> args;
};

/// One input, init input or output.
struct TensorSpec {
  /// nullopt for a non-tensor init input (then `value` holds it).
  std::optional<std::vector<std::int64_t>> shape;
  std::string dtype;
  /// The value of a non-tensor init input as JSON text ("16"); nullopt for a tensor.
  std::optional<std::string> value;
};

/// Which RNN submodule result an output equals.
struct OutputSource {
  std::string module;
  /// "output", "h_n" or "c_n".
  std::string value;
};

/// The worker's TaskInfo: the task's module-level constants, its submodules, and the shapes of
/// its inputs and outputs at the requested sizes.
struct TaskInfo {
  std::filesystem::path task_path;
  /// Module-level constants as JSON text (name → "10", "0.5", "true"), as written in the file.
  std::map<std::string, std::string> constants;
  /// The overrides applied (shrink or explicit), and the constants in force.
  std::map<std::string, std::string> shrunk;
  std::map<std::string, std::string> shapes;
  std::vector<ModuleInfo> modules;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> init_inputs;
  std::vector<TensorSpec> outputs;
  /// One per output; nullopt when the output is not an RNN submodule's own result.
  std::vector<std::optional<OutputSource>> output_sources;
  std::string forward_signature;
  /// The task runs a recurrent module (RNN/GRU/LSTM or a cell) over time.
  bool recurrent = false;

  /// The first submodule of class `type`, or nullptr.
  const ModuleInfo* find_module(std::string_view type) const;
};

/// Parses a TaskInfo result object (JSON text). Fields the reply leaves out keep their defaults;
/// a field of the wrong kind is an error naming it ("failed to read the task info: modules must
/// be a list"); invalid JSON gives `task_info:line:col` and a caret.
util::Result<TaskInfo> parse_task_info(std::string_view json_text);

/// Asks `pool` to inspect the task at `path` (`shrink`: at the shrunk shapes, enough when only
/// the structure matters) and parses the reply. Errors are the worker's own ("failed to load task
/// tasks/bad.py: no get_inputs() defined") or a transport error.
util::Result<TaskInfo> inspect_task(eval::WorkerPool& pool, const std::filesystem::path& path,
                                    bool shrink);

}  // namespace kforge::task

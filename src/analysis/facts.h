#pragma once

// The worker's `analyze` reply (docs/analysis.md) as C++ structs. Parsed once at the edge by
// parse_facts(); the rules never see JSON.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace kforge::analysis {

/// One parameter of a jit function.
struct KernelParam {
  std::string name;
  bool constexpr_ = false;
};

/// A `for` or `while` loop inside a jit function. `roles` are the dimensions its variable and
/// bound stand for, as their names suggest (time, batch, hidden, layer).
struct KernelLoop {
  int id = 0;
  std::string kind;  // for | while
  std::string var;
  std::string iter;  // the iterated expression, e.g. "range(0, H, BLOCK_K)"
  std::optional<std::string> stop;
  std::optional<std::string> step;
  bool unit_step = false;  // no step or a literal 1: one element per iteration
  bool is_static = false;  // tl.static_range
  std::vector<std::string> roles;
  int depth = 0;
  std::optional<int> parent;
  int line = 0;
  int loads = 0;
  int stores = 0;
  int dots = 0;
};

/// A tl.load, tl.store or tl.atomic_* and the pointer it goes through.
struct MemoryAccess {
  std::string kind;  // load | store | atomic
  std::string op;
  int line = 0;
  std::string pointer;
  std::vector<std::string> bases;      // the pointer parameters it is based on
  std::vector<std::string> pid_atoms;  // the program-id values its offsets depend on
  std::vector<int> loops;              // ids of the enclosing loops, outermost first
};

/// A name in Triton that the installed version does not have (tl.tanh).
struct MissingApi {
  std::string name;
  int line = 0;
  int column = 0;
};

/// tl.arange with a bound that is not a compile-time constant.
struct RuntimeArange {
  std::string expr;
  std::vector<std::string> runtime_names;
  int line = 0;
  int column = 0;
};

/// A Python subscript of a Triton tensor inside a jit function (h_prev[k_ids]).
struct TensorSubscript {
  std::string expr;
  int line = 0;
  int column = 0;
};

/// A buffer stored in a loop and loaded again in the same loop: state carried from one
/// iteration to the next. `cross_program`: the load reads elements owned (stored) by other
/// programs of the grid — along `foreign_axes` of program_id.
struct Recurrence {
  int loop = 0;
  int loop_line = 0;
  std::string buffer;
  std::vector<int> store_lines;
  std::vector<int> load_lines;
  bool cross_program = false;
  std::vector<std::string> foreign_atoms;
  std::vector<int> foreign_axes;
  /// grid_barrier | atomic_no_spin | debug_barrier | none
  std::string barrier = "none";
};

/// Everything known about one @triton.jit function.
struct JitFunction {
  std::string name;
  int line = 0;
  std::vector<KernelParam> params;
  std::vector<int> program_id_axes;
  std::vector<KernelLoop> loops;
  std::vector<MemoryAccess> memory;
  std::vector<std::string> tl_calls;
  std::vector<std::string> reductions;
  int dots = 0;
  int atomics = 0;
  int barriers = 0;
  std::vector<MissingApi> missing_api;
  std::vector<RuntimeArange> nonconstexpr_arange;
  std::vector<TensorSubscript> tensor_subscripts;
  std::vector<Recurrence> recurrences;
  bool launched = false;
  bool launched_from_forward = false;

  /// The loop with id `id`, or nullptr.
  const KernelLoop* loop(int id) const;
};

/// A Python loop on the way from forward() to a launch.
struct HostLoop {
  std::string function;
  std::string kind;
  std::string var;
  std::string iter;
  int line = 0;
  std::vector<std::string> roles;
};

/// One dimension of a launch grid and the names it depends on.
struct GridDim {
  std::string expr;
  std::vector<std::string> names;
  std::vector<std::string> roles;
};

/// One `kernel[grid](...)` call site.
struct Launch {
  std::string kernel;
  bool kernel_is_jit = false;
  int line = 0;
  int column = 0;
  std::string function;
  std::string grid;
  /// nullopt when the grid expression could not be resolved to a tuple.
  std::optional<std::vector<GridDim>> dims;
  bool in_forward = false;
  std::vector<std::string> call_path;
  std::vector<HostLoop> loops;  // outermost first, from forward() down to the launch
};

/// A torch operator reached from forward().
struct TorchOp {
  std::string name;    // torch.nn.GRU, torch.addmm, operator.matmul, Tensor.mm
  std::string family;  // gru, linear, matmul, relu, ...
  bool heavy = false;  // not a shape/allocation or elementwise call
  int line = 0;
  std::string function;
  bool in_loop = false;
};

/// What the task's reference computes.
struct ReferenceFacts {
  std::string path;
  std::vector<std::string> families;
  /// The families a candidate must compute itself: the recurrent ones for a recurrent reference
  /// (its input projection and output head may stay library GEMMs), else all of `families`.
  std::vector<std::string> replaced_families;
  bool recurrent = false;
  std::optional<int> layers;
  int directions = 1;
};

/// One kernel seen at run time.
struct RuntimeKernel {
  std::string name;
  double calls_per_forward = 0;
  std::optional<double> time_share;
  bool own = false;
};

/// One measured forward.
struct RuntimeFacts {
  std::string status;  // ok | error | skipped | timeout | crashed | rejected
  std::string error;
  std::string device;
  std::string method;  // profiler | interpreter
  std::optional<int> launches_per_forward;
  std::vector<RuntimeKernel> kernels;
  std::optional<double> own_time_share;
};

struct SyntaxErrorFact {
  int line = 0;
  int column = 0;
  std::string message;
};

/// All facts about one candidate.
struct Facts {
  std::string path;
  std::string triton_version;
  std::optional<SyntaxErrorFact> syntax_error;
  std::vector<JitFunction> jit_functions;
  std::vector<Launch> launches;
  std::vector<TorchOp> torch_ops;
  std::vector<MissingApi> import_missing_api;
  std::optional<int> forward_line;
  std::optional<ReferenceFacts> reference;
  std::optional<RuntimeFacts> runtime;

  /// The jit function named `name`, or nullptr.
  const JitFunction* jit_function(std::string_view name) const;
};

/// Parses the `result` object of an `analyze` reply. `origin` names the text in errors
/// ("worker reply", a fixture path): "failed to parse analysis facts from <origin>: <cause>".
util::Result<Facts> parse_facts(std::string_view json_text, std::string_view origin);

}  // namespace kforge::analysis

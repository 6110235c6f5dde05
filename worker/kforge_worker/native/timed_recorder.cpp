// The timed calls' operator recorder (kforge_worker/timed_recorder.py): one global
// RecordFunction callback that keeps, for every operator call (the dispatcher's and Static
// Runtime's) and user scope on any thread, its name, the largest input's element count and the
// enclosing scope. The legacy profiler it
// replaces (trust_ops.NameRecorder) cost 5-8 us of host time per operator on the H200
// (docs/bench/gpu_h200_20261128_s20.md): inside a host-bound timed call, the candidate's time.
// Built by the worker outside the sandbox, loaded by the candidate process through ctypes.
#include <ATen/record_function.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Entry {
  std::size_t name;  // offset of its NUL-terminated name in `names`
  int32_t parent;    // the enclosing recorded scope's index, or -1
  int64_t numel;     // the largest tensor input's element count
};

std::mutex lock;
std::vector<Entry> entries;
// Every name is copied: an operator's points into its schema, but any other record's (a user
// scope, an NNC kernel's "fused_mul_softmax") into a string that dies with its RecordFunction.
std::string names;
at::CallbackHandle handle = 0;
int64_t session = 0;  // scopes a thread left open in an earlier session are not parents
thread_local std::vector<int32_t> open_scopes;
thread_local int64_t open_session = -1;

// One input's elements as the legacy profiler's shapes count them (trust_ops._numel): a tensor's
// (0 for a scalar tensor, whose shape is []), a list's tensors summed (a foreach operator reads
// them all), 0 for anything else.
int64_t elements(const c10::IValue& value) {
  if (value.isTensor()) {
    const auto& tensor = value.toTensor();
    return tensor.defined() && tensor.dim() > 0 ? tensor.numel() : 0;
  }
  int64_t total = 0;
  if (value.isTensorList()) {
    for (const at::Tensor& tensor : value.toTensorList().vec())
      if (tensor.defined() && tensor.dim() > 0) total += tensor.numel();
  } else if (value.isList()) {
    for (const c10::IValue& item : value.toListRef()) total += elements(item);
  }
  return total;
}

std::unique_ptr<at::ObserverContext> enter(const at::RecordFunction& fn) {
  int64_t numel = 0;
  // (built with NDEBUG as torch is: the header's debug-only check of inputs() reads a flag
  // that a release build of torch does not keep)
  for (const auto& value : fn.inputs()) numel = std::max(numel, elements(value));
  std::lock_guard<std::mutex> guard(lock);
  if (open_session != session) {
    open_scopes.clear();
    open_session = session;
  }
  const int32_t parent = open_scopes.empty() ? -1 : open_scopes.back();
  open_scopes.push_back(static_cast<int32_t>(entries.size()));
  entries.push_back({names.size(), parent, numel});
  const char* name = fn.name();
  names.append(name != nullptr ? name : "");
  names.push_back('\0');
  return nullptr;
}

void leave(const at::RecordFunction&, at::ObserverContext*) {
  std::lock_guard<std::mutex> guard(lock);
  if (open_session == session && !open_scopes.empty()) open_scopes.pop_back();
}

}  // namespace

extern "C" {

// Starts a session (an empty record); 1 if one was already running (it goes on, cleared).
int kforge_timed_start() {
  std::lock_guard<std::mutex> guard(lock);
  entries.clear();
  names.clear();
  entries.reserve(1 << 16);
  names.reserve(1 << 20);
  ++session;
  if (handle != 0) return 1;
  handle =
      // Static Runtime runs its operators' kernels under a scope of its own, not the
      // dispatcher's (third blind red team, session 36: softmax's parts went unrecorded)
      at::addGlobalCallback(at::RecordFunctionCallback(enter, leave)
                                .needsInputs(true)
                                .scopes({at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE,
                                         at::RecordScope::STATIC_RUNTIME_OP}));
  return 0;
}

// Ends the session; its record stays until the next start. 1 if none was running.
int kforge_timed_stop() {
  std::lock_guard<std::mutex> guard(lock);
  if (handle == 0) return 1;
  at::removeCallback(handle);
  handle = 0;
  return 0;
}

int kforge_timed_running() {
  std::lock_guard<std::mutex> guard(lock);
  return handle != 0 ? 1 : 0;
}

int64_t kforge_timed_count() {
  std::lock_guard<std::mutex> guard(lock);
  return static_cast<int64_t>(entries.size());
}

// Entry `index` of the stopped session: its name copied into `name` (at most `size` bytes,
// NUL-terminated), its element count and parent; 0, or 1 past the end.
int kforge_timed_entry(int64_t index, char* name, int64_t size, int64_t* numel, int32_t* parent) {
  std::lock_guard<std::mutex> guard(lock);
  if (index < 0 || index >= static_cast<int64_t>(entries.size()) || size <= 0) return 1;
  const Entry& entry = entries[index];
  const char* text = names.c_str() + entry.name;
  std::size_t at = 0;
  for (const char* c = text; c != nullptr && *c != 0 && at + 1 < static_cast<std::size_t>(size);
       ++c)
    name[at++] = *c;
  name[at] = 0;
  *numel = entry.numel;
  *parent = entry.parent;
  return 0;
}

}  // extern "C"

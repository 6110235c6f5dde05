#include "analysis/facts.h"

#include <nlohmann/json.hpp>

#include "util/source_location.h"

namespace kforge::analysis {

namespace {

using nlohmann::json;

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int integer(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<int>() : 0;
}

std::optional<int> optional_int(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<int>();
}

std::optional<double> optional_double(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<std::string> optional_str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

bool boolean(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

const json& array(const json& j, const char* key) {
  static const json empty = json::array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  for (const json& item : array(j, key))
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

std::vector<int> ints(const json& j, const char* key) {
  std::vector<int> out;
  for (const json& item : array(j, key))
    if (item.is_number()) out.push_back(item.get<int>());
  return out;
}

MissingApi parse_missing(const json& j) {
  return {str(j, "name"), integer(j, "line"), integer(j, "column")};
}

KernelLoop parse_loop(const json& j) {
  KernelLoop loop;
  loop.id = integer(j, "id");
  loop.kind = str(j, "kind");
  loop.var = str(j, "var");
  loop.iter = str(j, "iter");
  loop.stop = optional_str(j, "stop");
  loop.step = optional_str(j, "step");
  loop.unit_step = boolean(j, "unit_step");
  loop.is_static = boolean(j, "static");
  loop.roles = strings(j, "roles");
  loop.depth = integer(j, "depth");
  loop.parent = optional_int(j, "parent");
  loop.line = integer(j, "line");
  loop.loads = integer(j, "loads");
  loop.stores = integer(j, "stores");
  loop.dots = integer(j, "dots");
  return loop;
}

MemoryAccess parse_memory(const json& j) {
  return {str(j, "kind"),    str(j, "op"),        integer(j, "line"),
          str(j, "pointer"), strings(j, "bases"), strings(j, "pid_atoms"),
          ints(j, "loops")};
}

Recurrence parse_recurrence(const json& j) {
  Recurrence r;
  r.loop = integer(j, "loop");
  r.loop_line = integer(j, "loop_line");
  r.buffer = str(j, "buffer");
  r.store_lines = ints(j, "store_lines");
  r.load_lines = ints(j, "load_lines");
  r.cross_program = boolean(j, "cross_program");
  r.foreign_atoms = strings(j, "foreign_atoms");
  r.foreign_axes = ints(j, "foreign_axes");
  r.barrier = str(j, "barrier");
  if (r.barrier.empty()) r.barrier = "none";
  return r;
}

JitFunction parse_jit(const json& j) {
  JitFunction f;
  f.name = str(j, "name");
  f.line = integer(j, "line");
  for (const json& p : array(j, "params"))
    f.params.push_back({str(p, "name"), boolean(p, "constexpr")});
  f.program_id_axes = ints(j, "program_id_axes");
  for (const json& l : array(j, "loops")) f.loops.push_back(parse_loop(l));
  for (const json& m : array(j, "memory")) f.memory.push_back(parse_memory(m));
  f.tl_calls = strings(j, "tl_calls");
  f.reductions = strings(j, "reductions");
  f.dots = integer(j, "dots");
  f.atomics = static_cast<int>(array(j, "atomics").size());
  f.barriers = static_cast<int>(array(j, "barriers").size());
  for (const json& m : array(j, "missing_api")) f.missing_api.push_back(parse_missing(m));
  for (const json& a : array(j, "nonconstexpr_arange"))
    f.nonconstexpr_arange.push_back(
        {str(a, "expr"), strings(a, "runtime_names"), integer(a, "line"), integer(a, "column")});
  for (const json& s : array(j, "tensor_subscripts"))
    f.tensor_subscripts.push_back({str(s, "expr"), integer(s, "line"), integer(s, "column")});
  for (const json& r : array(j, "recurrences")) f.recurrences.push_back(parse_recurrence(r));
  f.launched = boolean(j, "launched");
  f.launched_from_forward = boolean(j, "launched_from_forward");
  return f;
}

Launch parse_launch(const json& j) {
  Launch l;
  l.kernel = str(j, "kernel");
  l.kernel_is_jit = boolean(j, "kernel_is_jit");
  l.line = integer(j, "line");
  l.column = integer(j, "column");
  l.function = str(j, "function");
  l.grid = str(j, "grid");
  auto dims = j.find("dims");
  if (dims != j.end() && dims->is_array()) {
    l.dims.emplace();
    for (const json& d : *dims)
      l.dims->push_back({str(d, "expr"), strings(d, "names"), strings(d, "roles")});
  }
  l.in_forward = boolean(j, "in_forward");
  l.call_path = strings(j, "call_path");
  for (const json& h : array(j, "loops"))
    l.loops.push_back({str(h, "function"), str(h, "kind"), str(h, "var"), str(h, "iter"),
                       integer(h, "line"), strings(h, "roles")});
  return l;
}

Facts parse_root(const json& root) {
  Facts facts;
  facts.path = str(root, "path");
  if (auto versions = root.find("versions"); versions != root.end() && versions->is_object())
    facts.triton_version = str(*versions, "triton");
  if (auto error = root.find("syntax_error"); error != root.end() && error->is_object())
    facts.syntax_error =
        SyntaxErrorFact{integer(*error, "line"), integer(*error, "column"), str(*error, "message")};
  for (const json& f : array(root, "jit_functions")) facts.jit_functions.push_back(parse_jit(f));
  for (const json& l : array(root, "launches")) facts.launches.push_back(parse_launch(l));
  for (const json& o : array(root, "torch_ops"))
    facts.torch_ops.push_back({str(o, "name"), str(o, "family"), boolean(o, "heavy"),
                               integer(o, "line"), str(o, "function"), boolean(o, "in_loop")});
  for (const json& m : array(root, "import_missing_api"))
    facts.import_missing_api.push_back(parse_missing(m));
  if (auto forward = root.find("forward"); forward != root.end() && forward->is_object())
    facts.forward_line = optional_int(*forward, "line");
  if (auto ref = root.find("reference"); ref != root.end() && ref->is_object()) {
    ReferenceFacts reference;
    reference.path = str(*ref, "path");
    reference.families = strings(*ref, "families");
    reference.replaced_families = strings(*ref, "replaced_families");
    if (reference.replaced_families.empty()) reference.replaced_families = reference.families;
    reference.recurrent = boolean(*ref, "recurrent");
    reference.layers = optional_int(*ref, "layers");
    reference.directions = std::max(1, integer(*ref, "directions"));
    facts.reference = std::move(reference);
  }
  if (auto rt = root.find("runtime"); rt != root.end() && rt->is_object()) {
    RuntimeFacts runtime;
    runtime.status = str(*rt, "status");
    runtime.error = str(*rt, "error");
    runtime.device = str(*rt, "device");
    runtime.method = str(*rt, "method");
    runtime.launches_per_forward = optional_int(*rt, "launches_per_forward");
    for (const json& k : array(*rt, "kernels"))
      runtime.kernels.push_back({str(k, "name"),
                                 optional_double(k, "calls_per_forward").value_or(0),
                                 optional_double(k, "time_share"), boolean(k, "own")});
    runtime.own_time_share = optional_double(*rt, "own_time_share");
    facts.runtime = std::move(runtime);
  }
  return facts;
}

}  // namespace

const KernelLoop* JitFunction::loop(int id) const {
  for (const KernelLoop& l : loops)
    if (l.id == id) return &l;
  return nullptr;
}

const JitFunction* Facts::jit_function(std::string_view name) const {
  for (const JitFunction& f : jit_functions)
    if (f.name == name) return &f;
  return nullptr;
}

util::Result<Facts> parse_facts(std::string_view json_text, std::string_view origin) {
  json root = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    // Re-parse with exceptions to learn where it broke.
    try {
      json unused = json::parse(json_text);
      (void)unused;
    } catch (const json::parse_error& error) {
      util::SourceLocation where = util::location_of_offset(std::string(origin), json_text,
                                                            error.byte > 0 ? error.byte - 1 : 0);
      return util::fail("failed to parse analysis facts from {}:{}:{}: not valid JSON", origin,
                        where.line, where.column);
    }
    return util::fail("failed to parse analysis facts from {}: not valid JSON", origin);
  }
  if (!root.is_object())
    return util::fail("failed to parse analysis facts from {}: not a JSON object", origin);
  if (!root.contains("jit_functions") || !root.contains("launches"))
    return util::fail("failed to parse analysis facts from {}: no jit_functions or launches",
                      origin);
  try {
    return parse_root(root);
  } catch (const json::exception& error) {
    return util::fail("failed to parse analysis facts from {}: {}", origin, error.what());
  }
}

}  // namespace kforge::analysis

#include "analysis/facts.h"

#include <nlohmann/json.hpp>

#include "util/json_fields.h"
#include "util/source_location.h"

namespace kforge::analysis {

namespace {

using nlohmann::json;

MissingApi parse_missing(const json& j) {
  return {util::string_field(j, "name"), util::number_field<int>(j, "line"),
          util::number_field<int>(j, "column")};
}

KernelLoop parse_loop(const json& j) {
  KernelLoop loop;
  loop.id = util::number_field<int>(j, "id");
  loop.kind = util::string_field(j, "kind");
  loop.var = util::string_field(j, "var");
  loop.iter = util::string_field(j, "iter");
  loop.stop = util::optional_string_field(j, "stop");
  loop.step = util::optional_string_field(j, "step");
  loop.unit_step = util::bool_field(j, "unit_step");
  loop.is_static = util::bool_field(j, "static");
  loop.roles = util::string_items(j, "roles");
  loop.depth = util::number_field<int>(j, "depth");
  loop.parent = util::optional_number_field<int>(j, "parent");
  loop.line = util::number_field<int>(j, "line");
  loop.loads = util::number_field<int>(j, "loads");
  loop.stores = util::number_field<int>(j, "stores");
  loop.dots = util::number_field<int>(j, "dots");
  return loop;
}

MemoryAccess parse_memory(const json& j) {
  return {util::string_field(j, "kind"),      util::string_field(j, "op"),
          util::number_field<int>(j, "line"), util::string_field(j, "pointer"),
          util::string_items(j, "bases"),     util::string_items(j, "pid_atoms"),
          util::number_items<int>(j, "loops")};
}

Recurrence parse_recurrence(const json& j) {
  Recurrence r;
  r.loop = util::number_field<int>(j, "loop");
  r.loop_line = util::number_field<int>(j, "loop_line");
  r.buffer = util::string_field(j, "buffer");
  r.store_lines = util::number_items<int>(j, "store_lines");
  r.load_lines = util::number_items<int>(j, "load_lines");
  r.cross_program = util::bool_field(j, "cross_program");
  r.foreign_atoms = util::string_items(j, "foreign_atoms");
  r.foreign_axes = util::number_items<int>(j, "foreign_axes");
  r.barrier = util::string_field(j, "barrier");
  if (r.barrier.empty()) r.barrier = "none";
  return r;
}

JitFunction parse_jit(const json& j) {
  JitFunction f;
  f.name = util::string_field(j, "name");
  f.line = util::number_field<int>(j, "line");
  for (const json& p : util::array_field(j, "params"))
    f.params.push_back({util::string_field(p, "name"), util::bool_field(p, "constexpr")});
  f.program_id_axes = util::number_items<int>(j, "program_id_axes");
  for (const json& l : util::array_field(j, "loops")) f.loops.push_back(parse_loop(l));
  for (const json& m : util::array_field(j, "memory")) f.memory.push_back(parse_memory(m));
  f.tl_calls = util::string_items(j, "tl_calls");
  f.reductions = util::string_items(j, "reductions");
  f.dots = util::number_field<int>(j, "dots");
  f.atomics = static_cast<int>(util::array_field(j, "atomics").size());
  f.barriers = static_cast<int>(util::array_field(j, "barriers").size());
  for (const json& m : util::array_field(j, "missing_api"))
    f.missing_api.push_back(parse_missing(m));
  for (const json& a : util::array_field(j, "nonconstexpr_arange"))
    f.nonconstexpr_arange.push_back(
        {util::string_field(a, "expr"), util::string_items(a, "runtime_names"),
         util::number_field<int>(a, "line"), util::number_field<int>(a, "column")});
  for (const json& s : util::array_field(j, "tensor_subscripts"))
    f.tensor_subscripts.push_back({util::string_field(s, "expr"),
                                   util::number_field<int>(s, "line"),
                                   util::number_field<int>(s, "column")});
  for (const json& r : util::array_field(j, "recurrences"))
    f.recurrences.push_back(parse_recurrence(r));
  f.launched = util::bool_field(j, "launched");
  f.launched_from_forward = util::bool_field(j, "launched_from_forward");
  return f;
}

Launch parse_launch(const json& j) {
  Launch l;
  l.kernel = util::string_field(j, "kernel");
  l.kernel_is_jit = util::bool_field(j, "kernel_is_jit");
  l.line = util::number_field<int>(j, "line");
  l.column = util::number_field<int>(j, "column");
  l.function = util::string_field(j, "function");
  l.grid = util::string_field(j, "grid");
  auto dims = j.find("dims");
  if (dims != j.end() && dims->is_array()) {
    l.dims.emplace();
    for (const json& d : *dims)
      l.dims->push_back({util::string_field(d, "expr"), util::string_items(d, "names"),
                         util::string_items(d, "roles")});
  }
  l.in_forward = util::bool_field(j, "in_forward");
  l.call_path = util::string_items(j, "call_path");
  for (const json& h : util::array_field(j, "loops"))
    l.loops.push_back({util::string_field(h, "function"), util::string_field(h, "kind"),
                       util::string_field(h, "var"), util::string_field(h, "iter"),
                       util::number_field<int>(h, "line"), util::string_items(h, "roles")});
  return l;
}

Facts parse_root(const json& root) {
  Facts facts;
  facts.path = util::string_field(root, "path");
  if (auto versions = root.find("versions"); versions != root.end() && versions->is_object())
    facts.triton_version = util::string_field(*versions, "triton");
  if (auto error = root.find("syntax_error"); error != root.end() && error->is_object())
    facts.syntax_error = SyntaxErrorFact{util::number_field<int>(*error, "line"),
                                         util::number_field<int>(*error, "column"),
                                         util::string_field(*error, "message")};
  for (const json& f : util::array_field(root, "jit_functions"))
    facts.jit_functions.push_back(parse_jit(f));
  for (const json& l : util::array_field(root, "launches"))
    facts.launches.push_back(parse_launch(l));
  for (const json& o : util::array_field(root, "torch_ops"))
    facts.torch_ops.push_back({util::string_field(o, "name"), util::string_field(o, "family"),
                               util::bool_field(o, "heavy"), util::number_field<int>(o, "line"),
                               util::string_field(o, "function"), util::bool_field(o, "in_loop")});
  for (const json& m : util::array_field(root, "import_missing_api"))
    facts.import_missing_api.push_back(parse_missing(m));
  if (auto forward = root.find("forward"); forward != root.end() && forward->is_object())
    facts.forward_line = util::optional_number_field<int>(*forward, "line");
  if (auto ref = root.find("reference"); ref != root.end() && ref->is_object()) {
    ReferenceFacts reference;
    reference.path = util::string_field(*ref, "path");
    reference.families = util::string_items(*ref, "families");
    reference.replaced_families = util::string_items(*ref, "replaced_families");
    if (reference.replaced_families.empty()) reference.replaced_families = reference.families;
    reference.recurrent = util::bool_field(*ref, "recurrent");
    reference.layers = util::optional_number_field<int>(*ref, "layers");
    reference.directions = std::max(1, util::number_field<int>(*ref, "directions"));
    facts.reference = std::move(reference);
  }
  if (auto rt = root.find("runtime"); rt != root.end() && rt->is_object()) {
    RuntimeFacts runtime;
    runtime.status = util::string_field(*rt, "status");
    runtime.error = util::string_field(*rt, "error");
    runtime.device = util::string_field(*rt, "device");
    runtime.method = util::string_field(*rt, "method");
    runtime.launches_per_forward = util::optional_number_field<int>(*rt, "launches_per_forward");
    for (const json& k : util::array_field(*rt, "kernels"))
      runtime.kernels.push_back(
          {util::string_field(k, "name"),
           util::optional_number_field<double>(k, "calls_per_forward").value_or(0),
           util::optional_number_field<double>(k, "time_share"), util::bool_field(k, "own")});
    runtime.own_time_share = util::optional_number_field<double>(*rt, "own_time_share");
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

#include "store/json_codec.h"

#include <cmath>
#include <limits>

#include "analysis/diagnostic_format.h"
#include "util/json_fields.h"

namespace kforge::store {

using nlohmann::json;

namespace {

json stats_json(const std::optional<eval::LatencyStats>& stats) {
  if (!stats) return nullptr;
  return {{"median_ms", util::number_json(stats->median_ms)},
          {"mean_ms", util::number_json(stats->mean_ms)},
          {"std_ms", util::number_json(stats->std_ms)},
          {"min_ms", util::number_json(stats->min_ms)},
          {"trials", stats->trials}};
}

std::optional<eval::LatencyStats> stats_from(const json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_object()) return std::nullopt;
  eval::LatencyStats stats;
  stats.median_ms = util::read_number_field(*it, "median_ms").value_or(0);
  stats.mean_ms = util::read_number_field(*it, "mean_ms").value_or(0);
  stats.std_ms = util::read_number_field(*it, "std_ms").value_or(0);
  stats.min_ms = util::read_number_field(*it, "min_ms").value_or(0);
  stats.trials = util::value_field<int>(*it, "trials", 0);
  return stats;
}

std::map<std::string, std::string> string_map(const json& object, const char* name) {
  std::map<std::string, std::string> out;
  auto it = object.find(name);
  if (it == object.end() || !it->is_object()) return out;
  for (const auto& [key, value] : it->items())
    out[key] = value.is_string()
                   ? value.get<std::string>()
                   : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return out;
}

}  // namespace

json to_json(const eval::Evaluation& e) {
  json out = {
      {"status", std::string(eval::to_string(e.status))},
      {"error", e.error},
      {"error_location", util::optional_json(e.error_location)},
      {"reasons", e.reasons},
      {"generalizes", e.generalizes},
      {"score", util::number_json(e.score)},
      {"speedup_vs_best_baseline", util::number_json(e.speedup_vs_best_baseline)},
      {"launches_per_forward", util::optional_json(e.launches_per_forward)},
      {"device", e.device},
      {"versions", e.versions},
      {"shapes", e.shapes},
      {"wall_s", util::number_json(e.wall_s)},
      {"timed_s", util::number_json(e.timed_s)},
  };
  if (e.correctness) {
    const eval::Correctness& c = *e.correctness;
    out["correctness"] = {{"precision", c.precision},
                          {"input_sets", c.input_sets},
                          {"pass_calibrated", c.pass_calibrated},
                          {"pass_kernelbench", c.pass_kernelbench},
                          {"max_abs_err", util::number_json(c.max_abs_err)},
                          {"mean_abs_err", util::number_json(c.mean_abs_err)},
                          {"max_abs_err_fp64", util::number_json(c.max_abs_err_fp64)},
                          {"mean_abs_err_fp64", util::number_json(c.mean_abs_err_fp64)},
                          {"reference_err_fp64", util::number_json(c.reference_err_fp64)},
                          {"tolerance", util::number_json(c.tolerance)},
                          {"first_failure", util::optional_json(c.first_failure)}};
  } else {
    out["correctness"] = nullptr;
  }
  if (e.numerics)
    out["numerics"] = {
        {"policy", e.numerics->policy},
        {"reference", e.numerics->reference},
        {"summary", e.numerics->summary.empty() ? json(nullptr) : json(e.numerics->summary)},
        {"lowered", e.numerics->lowered},
        {"evidence", e.numerics->evidence}};
  if (e.candidate || e.eager || e.compiled || e.cuda_graph)
    out["timing"] = {{"candidate", stats_json(e.candidate)},
                     {"eager", stats_json(e.eager)},
                     {"compile", stats_json(e.compiled)},
                     {"cuda_graph", stats_json(e.cuda_graph)}};
  else
    out["timing"] = nullptr;
  json kernels = json::array();
  for (const eval::KernelSeen& k : e.kernels)
    kernels.push_back({{"name", k.name},
                       {"calls_per_forward", util::number_json(k.calls_per_forward)},
                       {"time_share", util::number_json(k.time_share)},
                       {"own", k.own}});
  out["kernels"] = kernels;
  return out;
}

util::Result<eval::Evaluation> evaluation_from_json(const json& j) {
  if (!j.is_object()) return util::fail("failed to read evaluation: not a JSON object");
  eval::Evaluation e;
  std::string status = util::string_field(j, "status");
  auto parsed = eval::status_from_string(status);
  if (!parsed) return util::fail("failed to read evaluation: unknown status \"{}\"", status);
  e.status = *parsed;
  e.error = util::string_field(j, "error");
  if (auto it = j.find("error_location"); it != j.end() && it->is_string())
    e.error_location = it->get<std::string>();
  e.reasons = util::value_field<std::vector<std::string>>(j, "reasons", {});
  e.generalizes = util::string_field(j, "generalizes", "unknown");
  e.score = util::read_number_field(j, "score");
  e.speedup_vs_best_baseline = util::read_number_field(j, "speedup_vs_best_baseline");
  e.launches_per_forward = util::optional_number_field<int>(j, "launches_per_forward");
  e.device = string_map(j, "device");
  e.versions = string_map(j, "versions");
  if (auto it = j.find("shapes"); it != j.end() && it->is_object())
    for (const auto& [key, value] : it->items())
      if (auto v = util::read_number(value)) e.shapes[key] = *v;
  e.wall_s = util::read_number_field(j, "wall_s").value_or(0);
  e.timed_s = util::read_number_field(j, "timed_s").value_or(0);
  if (auto it = j.find("correctness"); it != j.end() && it->is_object()) {
    eval::Correctness c;
    c.precision = util::string_field(*it, "precision");
    c.input_sets = util::value_field<int>(*it, "input_sets", 0);
    c.pass_calibrated = util::value_field<bool>(*it, "pass_calibrated", false);
    c.pass_kernelbench = util::value_field<bool>(*it, "pass_kernelbench", false);
    c.max_abs_err = util::read_number_field(*it, "max_abs_err").value_or(0);
    c.mean_abs_err = util::read_number_field(*it, "mean_abs_err").value_or(0);
    c.max_abs_err_fp64 = util::read_number_field(*it, "max_abs_err_fp64").value_or(0);
    c.mean_abs_err_fp64 = util::read_number_field(*it, "mean_abs_err_fp64").value_or(0);
    c.reference_err_fp64 = util::read_number_field(*it, "reference_err_fp64").value_or(0);
    c.tolerance = util::read_number_field(*it, "tolerance").value_or(0);
    if (auto f = it->find("first_failure"); f != it->end() && f->is_string())
      c.first_failure = f->get<std::string>();
    e.correctness = c;
  }
  if (auto it = j.find("numerics"); it != j.end() && it->is_object()) {
    eval::NumericsReport n;
    n.policy = util::string_field(*it, "policy");
    n.reference = util::string_field(*it, "reference");
    if (auto s = it->find("summary"); s != it->end() && s->is_string())
      n.summary = s->get<std::string>();
    n.lowered = util::value_field<bool>(*it, "lowered", false);
    n.evidence = util::value_field<std::vector<std::string>>(*it, "evidence", {});
    e.numerics = n;
  }
  if (auto it = j.find("timing"); it != j.end() && it->is_object()) {
    e.candidate = stats_from(*it, "candidate");
    e.eager = stats_from(*it, "eager");
    e.compiled = stats_from(*it, "compile");
    e.cuda_graph = stats_from(*it, "cuda_graph");
  }
  if (auto it = j.find("kernels"); it != j.end() && it->is_array())
    for (const json& k : *it)
      e.kernels.push_back({util::string_field(k, "name"),
                           util::read_number_field(k, "calls_per_forward").value_or(0),
                           util::read_number_field(k, "time_share").value_or(0),
                           util::value_field<bool>(k, "own", false)});
  e.raw_json = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return e;
}

json to_json(const analysis::Report& report) {
  json diagnostics = json::array();
  for (const analysis::Diagnostic& d : report.diagnostics)
    diagnostics.push_back({{"rule", d.rule},
                           {"severity", std::string(analysis::to_string(d.severity))},
                           {"file", d.location.file},
                           {"line", d.location.line},
                           {"column", d.location.column},
                           {"message", d.message},
                           {"fix_hint", d.fix_hint}});
  return {{"kernel_type", report.kernel_type},
          {"persistent", report.persistent},
          {"launches_per_forward", util::optional_json(report.launches_per_forward)},
          {"diagnostics", diagnostics}};
}

util::Result<analysis::Report> report_from_json(const json& j) {
  if (!j.is_object()) return util::fail("failed to read analysis: not a JSON object");
  analysis::Report report;
  report.kernel_type = util::string_field(j, "kernel_type", "unknown");
  report.persistent = util::value_field<bool>(j, "persistent", false);
  report.launches_per_forward = util::optional_number_field<int>(j, "launches_per_forward");
  if (auto it = j.find("diagnostics"); it != j.end() && it->is_array())
    for (const json& d : *it) {
      analysis::Diagnostic diagnostic;
      diagnostic.rule = util::string_field(d, "rule");
      std::string severity = util::string_field(d, "severity");
      diagnostic.severity = severity == "error"     ? analysis::Severity::kError
                            : severity == "warning" ? analysis::Severity::kWarning
                                                    : analysis::Severity::kNote;
      diagnostic.location.file = util::string_field(d, "file");
      diagnostic.location.line = util::value_field<std::size_t>(d, "line", 0);
      diagnostic.location.column = util::value_field<std::size_t>(d, "column", 0);
      diagnostic.message = util::string_field(d, "message");
      diagnostic.fix_hint = util::string_field(d, "fix_hint");
      report.diagnostics.push_back(std::move(diagnostic));
    }
  return report;
}

json to_json(const llm::ChatReply& reply) {
  return {{"content", reply.content},
          {"reasoning", reply.reasoning},
          {"finish_reason", reply.finish_reason},
          {"truncated", reply.truncated},
          {"usage",
           {{"prompt_tokens", reply.usage.prompt_tokens},
            {"completion_tokens", reply.usage.completion_tokens},
            {"reasoning_tokens", reply.usage.reasoning_tokens},
            {"cached_tokens", reply.usage.cached_tokens}}},
          {"latency_s", util::number_json(reply.latency_s)},
          {"cost_usd", util::number_json(reply.cost_usd)}};
}

util::Result<llm::ChatReply> reply_from_json(const json& j) {
  if (!j.is_object() || !j.contains("content"))
    return util::fail("failed to read model reply: no content");
  llm::ChatReply reply;
  reply.content = util::string_field(j, "content");
  reply.reasoning = util::string_field(j, "reasoning");
  reply.finish_reason = util::string_field(j, "finish_reason");
  reply.truncated = util::value_field<bool>(j, "truncated", false);
  if (auto it = j.find("usage"); it != j.end() && it->is_object()) {
    reply.usage.prompt_tokens = util::value_field<std::int64_t>(*it, "prompt_tokens", 0);
    reply.usage.completion_tokens = util::value_field<std::int64_t>(*it, "completion_tokens", 0);
    reply.usage.reasoning_tokens = util::value_field<std::int64_t>(*it, "reasoning_tokens", 0);
    reply.usage.cached_tokens = util::value_field<std::int64_t>(*it, "cached_tokens", 0);
  }
  reply.latency_s = util::read_number_field(j, "latency_s").value_or(0);
  reply.cost_usd = util::read_number_field(j, "cost_usd").value_or(0);
  return reply;
}

namespace {

json config_json(const RunConfig& c) {
  return {{"task", c.task},
          {"provider", c.provider},
          {"model", c.model},
          {"base_url", c.base_url},
          {"device", c.device},
          {"shrink", c.shrink},
          {"precision", c.precision},
          {"numerics", c.numerics},
          {"target_gpu", c.target_gpu},
          {"input_sets", c.input_sets},
          {"trials", c.trials},
          {"warmup", c.warmup},
          {"flush_l2", c.flush_l2},
          {"timeout_s", c.timeout_s},
          {"allow_pytorch_only", c.allow_pytorch_only},
          {"seeds", c.seeds},
          {"repairs", c.repairs},
          {"budget_tokens", c.budget_tokens},
          {"max_candidates", c.max_candidates},
          {"time_limit_s", c.time_limit_s},
          {"analysis_threshold", c.analysis_threshold},
          {"analysis", c.analysis},
          {"guard", c.guard},
          {"tuning", c.tuning},
          {"prompts_dir", c.prompts_dir}};
}

RunConfig config_from(const json& j) {
  RunConfig c;
  c.task = util::string_field(j, "task");
  c.provider = util::string_field(j, "provider");
  c.model = util::string_field(j, "model");
  c.base_url = util::string_field(j, "base_url");
  c.device = util::string_field(j, "device", c.device);
  c.shrink = util::value_field<bool>(j, "shrink", c.shrink);
  c.precision = util::string_field(j, "precision", c.precision);
  c.numerics = util::string_field(j, "numerics", c.numerics);
  c.target_gpu = util::string_field(j, "target_gpu", c.target_gpu);
  c.input_sets = util::value_field<int>(j, "input_sets", c.input_sets);
  c.trials = util::value_field<int>(j, "trials", c.trials);
  c.warmup = util::value_field<int>(j, "warmup", c.warmup);
  c.flush_l2 = util::value_field<bool>(j, "flush_l2", c.flush_l2);
  c.timeout_s = util::value_field<double>(j, "timeout_s", c.timeout_s);
  c.allow_pytorch_only = util::value_field<bool>(j, "allow_pytorch_only", c.allow_pytorch_only);
  c.seeds = util::value_field<int>(j, "seeds", c.seeds);
  c.repairs = util::value_field<int>(j, "repairs", c.repairs);
  c.budget_tokens = util::value_field<std::int64_t>(j, "budget_tokens", c.budget_tokens);
  c.max_candidates = util::value_field<int>(j, "max_candidates", c.max_candidates);
  c.time_limit_s = util::value_field<double>(j, "time_limit_s", c.time_limit_s);
  c.analysis_threshold = util::value_field<double>(j, "analysis_threshold", c.analysis_threshold);
  c.analysis = util::string_field(j, "analysis", c.analysis);
  c.guard = util::value_field<bool>(j, "guard", c.guard);
  c.tuning = util::value_field<bool>(j, "tuning", c.tuning);
  c.prompts_dir = util::string_field(j, "prompts_dir");
  return c;
}

json candidate_json(const CandidateRecord& c) {
  return {{"id", c.id},
          {"stage", c.stage},
          {"parent", util::optional_json(c.parent)},
          {"key", c.key},
          {"file", c.file},
          {"status", c.status},
          {"score", util::number_json(c.score)},
          {"latency_ms", util::number_json(c.latency_ms)},
          {"eager_ms", util::number_json(c.eager_ms)},
          {"max_abs_err", util::number_json(c.max_abs_err)},
          {"launches_per_forward", util::optional_json(c.launches_per_forward)},
          {"numerics", c.numerics},
          {"error_head", c.error_head},
          {"kernel_type", c.kernel_type},
          {"persistent", c.persistent},
          {"note", c.note},
          {"prompt_tokens", c.prompt_tokens},
          {"completion_tokens", c.completion_tokens}};
}

CandidateRecord candidate_from(const json& j) {
  CandidateRecord c;
  c.id = util::value_field<int>(j, "id", 0);
  c.stage = util::string_field(j, "stage");
  c.parent = util::optional_number_field<int>(j, "parent");
  c.key = util::string_field(j, "key");
  c.file = util::string_field(j, "file");
  c.status = util::string_field(j, "status");
  c.score = util::read_number_field(j, "score");
  c.latency_ms = util::read_number_field(j, "latency_ms");
  c.eager_ms = util::read_number_field(j, "eager_ms");
  c.max_abs_err = util::read_number_field(j, "max_abs_err");
  c.launches_per_forward = util::optional_number_field<int>(j, "launches_per_forward");
  c.numerics = util::string_field(j, "numerics");
  c.error_head = util::string_field(j, "error_head");
  c.kernel_type = util::string_field(j, "kernel_type");
  c.persistent = util::value_field<bool>(j, "persistent", false);
  c.note = util::string_field(j, "note");
  c.prompt_tokens = util::value_field<std::int64_t>(j, "prompt_tokens", 0);
  c.completion_tokens = util::value_field<std::int64_t>(j, "completion_tokens", 0);
  return c;
}

}  // namespace

json to_json(const RunRecord& run) {
  json candidates = json::array();
  for (const CandidateRecord& c : run.candidates) candidates.push_back(candidate_json(c));
  json tokens = json::array();
  for (const TokenRow& t : run.tokens)
    tokens.push_back({{"stage", t.stage},
                      {"calls", t.calls},
                      {"prompt_tokens", t.prompt_tokens},
                      {"completion_tokens", t.completion_tokens},
                      {"reasoning_tokens", t.reasoning_tokens},
                      {"cached_tokens", t.cached_tokens},
                      {"cost_usd", util::number_json(t.cost_usd)}});
  json baselines = nullptr;
  if (run.baselines) {
    auto fastest = run.baselines->best();
    baselines = {{"eager_ms", util::number_json(run.baselines->eager_ms)},
                 {"compile_ms", util::number_json(run.baselines->compile_ms)},
                 {"cuda_graph_ms", util::number_json(run.baselines->cuda_graph_ms)},
                 {"best", fastest ? json(fastest->first) : json(nullptr)},
                 {"errors", run.baselines->errors}};
  }
  json correct = json::array();
  for (const CandidateRecord& c : run.candidates)
    if (c.status == "ok") correct.push_back(c.id);
  json rank = nullptr;
  if (run.rank) {
    json entries = json::array();
    for (const RankedCandidate& e : run.rank->entries)
      entries.push_back({{"id", e.id},
                         {"status", e.status},
                         {"score", util::number_json(e.score)},
                         {"latency_ms", util::number_json(e.latency_ms)},
                         {"max_abs_err", util::number_json(e.max_abs_err)},
                         {"error_head", e.error_head},
                         {"eager_ms", util::number_json(e.eager_ms)}});
    rank = {{"device", run.rank->device},
            {"device_name", run.rank->device_name},
            {"ranked_at", run.rank->ranked_at},
            {"best_id", util::optional_json(run.rank->best_id)},
            {"entries", entries}};
  }
  json best = nullptr;
  if (run.best_id)
    if (const CandidateRecord* c = find_candidate(run, *run.best_id)) best = candidate_json(*c);
  return {{"id", run.id},
          {"kforge_version", run.kforge_version},
          {"config", config_json(run.config)},
          {"task_name", run.task_name},
          {"started_at", run.started_at},
          {"updated_at", run.updated_at},
          {"elapsed_s", util::number_json(run.elapsed_s)},
          {"state", run.state},
          {"stop_reason", run.stop_reason},
          {"device", run.device},
          {"versions", run.versions},
          {"phases", run.phases},
          {"log", run.log},
          {"candidates", candidates},
          {"tokens", tokens},
          {"best_id", util::optional_json(run.best_id)},
          {"best", best},
          {"ranking", run.ranking},
          {"correct_ids", correct},
          {"rank", rank},
          {"baselines", baselines}};
}

util::Result<RunRecord> run_from_json(const json& j) {
  if (!j.is_object()) return util::fail("failed to read run record: not a JSON object");
  RunRecord run;
  run.id = util::string_field(j, "id");
  run.kforge_version = util::string_field(j, "kforge_version");
  if (auto it = j.find("config"); it != j.end() && it->is_object()) run.config = config_from(*it);
  run.task_name = util::string_field(j, "task_name");
  run.started_at = util::string_field(j, "started_at");
  run.updated_at = util::string_field(j, "updated_at");
  run.elapsed_s = util::read_number_field(j, "elapsed_s").value_or(0);
  run.state = util::string_field(j, "state", "running");
  run.stop_reason = util::string_field(j, "stop_reason");
  run.device = string_map(j, "device");
  run.versions = string_map(j, "versions");
  run.phases = util::value_field<std::vector<std::string>>(j, "phases", {});
  run.log = util::value_field<std::vector<std::string>>(j, "log", {});
  if (auto it = j.find("candidates"); it != j.end() && it->is_array())
    for (const json& c : *it) run.candidates.push_back(candidate_from(c));
  if (auto it = j.find("tokens"); it != j.end() && it->is_array())
    for (const json& t : *it)
      run.tokens.push_back({util::string_field(t, "stage"), util::value_field<int>(t, "calls", 0),
                            util::value_field<std::int64_t>(t, "prompt_tokens", 0),
                            util::value_field<std::int64_t>(t, "completion_tokens", 0),
                            util::value_field<std::int64_t>(t, "reasoning_tokens", 0),
                            util::value_field<std::int64_t>(t, "cached_tokens", 0),
                            util::read_number_field(t, "cost_usd").value_or(0)});
  run.best_id = util::optional_number_field<int>(j, "best_id");
  run.ranking = util::string_field(j, "ranking");
  if (auto it = j.find("rank"); it != j.end() && it->is_object()) {
    RankResult rank;
    rank.device = util::string_field(*it, "device");
    rank.device_name = util::string_field(*it, "device_name");
    rank.ranked_at = util::string_field(*it, "ranked_at");
    rank.best_id = util::optional_number_field<int>(*it, "best_id");
    if (auto entries = it->find("entries"); entries != it->end() && entries->is_array())
      for (const json& e : *entries)
        rank.entries.push_back(
            {util::value_field<int>(e, "id", 0), util::string_field(e, "status"),
             util::read_number_field(e, "score"), util::read_number_field(e, "latency_ms"),
             util::read_number_field(e, "max_abs_err"), util::string_field(e, "error_head"),
             util::read_number_field(e, "eager_ms")});
    run.rank = std::move(rank);
  }
  if (auto it = j.find("baselines"); it != j.end() && it->is_object()) {
    RunBaselines baselines;
    baselines.eager_ms = util::read_number_field(*it, "eager_ms");
    baselines.compile_ms = util::read_number_field(*it, "compile_ms");
    baselines.cuda_graph_ms = util::read_number_field(*it, "cuda_graph_ms");
    baselines.errors = string_map(*it, "errors");
    run.baselines = std::move(baselines);
  }
  return run;
}

}  // namespace kforge::store

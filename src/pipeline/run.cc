#include "pipeline/run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <semaphore>
#include <vector>

#include "llm/token_ledger.h"
#include "pipeline/budget.h"
#include "pipeline/candidate.h"
#include "pipeline/reply_parser.h"
#include "pipeline/tuning_guard.h"
#include "prompts/library_example.h"
#include "prompts/prompt_vars.h"
#include "task/task_info.h"

namespace kforge::pipeline {

namespace {

/// The run's secret input seed (eval::EvalRequest::input_seed), from the OS: 62 bits.
std::uint64_t draw_input_seed() {
  std::random_device device;
  const std::uint64_t high = device();
  const std::uint64_t low = device();
  return ((high << 32) | low) & ((std::uint64_t{1} << 62) - 1);
}

/// Stages in the order the token table lists them.
const std::vector<std::string>& stage_order() {
  static const std::vector<std::string> order = {
      "seed", "repair", "analysis", "optimise", "tune_grid", "tune_tiling", "tune_memory"};
  return order;
}

/// The run.json token table: one row per stage that made calls, in stage_order (stages run
/// concurrently, so the ledger's first-seen order may vary), unknown stages last.
std::vector<store::TokenRow> token_rows(const llm::TokenLedger& ledger) {
  auto stages = ledger.by_stage();
  auto rank = [](const std::string& stage) {
    const auto& order = stage_order();
    return std::find(order.begin(), order.end(), stage) - order.begin();
  };
  std::stable_sort(stages.begin(), stages.end(),
                   [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  std::vector<store::TokenRow> rows;
  for (const auto& [stage, totals] : stages) {
    if (totals.calls == 0) continue;
    store::TokenRow row;
    row.stage = stage;
    row.calls = static_cast<int>(totals.calls);
    row.prompt_tokens = totals.prompt_tokens;
    row.completion_tokens = totals.completion_tokens;
    row.reasoning_tokens = totals.reasoning_tokens;
    row.cached_tokens = totals.cached_tokens;
    row.cost_usd = totals.cost_usd;
    rows.push_back(std::move(row));
  }
  return rows;
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// The line of an error that says most: the exception at the end of a traceback, the verdict at
/// the start of a wrong-output report.
std::string error_summary(eval::Status status, std::string_view error) {
  bool traceback = status == eval::Status::kSyntaxError || status == eval::Status::kCompileError ||
                   status == eval::Status::kRuntimeError || status == eval::Status::kCrashed;
  if (!traceback) return first_line(error);
  std::size_t end = error.find_last_not_of(" \n\t");
  if (end == std::string_view::npos) return "";
  std::size_t start = error.rfind('\n', end);
  start = start == std::string_view::npos ? 0 : start + 1;
  return first_line(error.substr(start, end + 1 - start));
}

/// "score 1.3696 (15.140 ms)" or "max_abs_err 1.2e-06 (no timing)".
std::string describe_result(const Candidate& c) {
  std::string out;
  if (c.evaluation.score) {
    out = fmt::format("score {:.4f}", *c.evaluation.score);
    if (c.evaluation.candidate)
      out += fmt::format(" ({:.3f} ms)", c.evaluation.candidate->median_ms);
  } else {
    out = "no timing";
  }
  if (c.evaluation.correctness)
    out += fmt::format(", max_abs_err {:.3g}", c.evaluation.correctness->max_abs_err);
  return out;
}

std::map<std::string, std::string> diagnosis_map(const std::optional<AnalysisDiagnosis>& d) {
  if (!d) return {};
  return {{"worth_optimizing", d->worth_optimizing ? "yes" : "no"},
          {"reason", d->reason},
          {"bottleneck", d->bottleneck},
          {"optimisation_method", d->optimisation_method},
          {"modification_plan", d->modification_plan},
          {"expected_speedup", d->expected_speedup},
          {"implementation_complexity", std::string(to_string(d->implementation_complexity))},
          {"kernel_type", d->kernel_type}};
}

}  // namespace

std::string first_line(std::string_view text) {
  std::size_t start = text.find_first_not_of(" \n\t");
  if (start == std::string_view::npos) return "";
  text.remove_prefix(start);
  std::string line(text.substr(0, text.find('\n')));
  if (line.size() > 160) line = line.substr(0, 157) + "...";
  return line;
}

bool timed(const Candidate& c) {
  return c.evaluation.score && std::isfinite(*c.evaluation.score);
}

Run::Run(const PipelineInputs& inputs, PipelineServices& services)
    : inputs_(inputs),
      s_(services),
      config_(inputs.record.config),
      clock_(services.clock ? services.clock : steady_seconds),
      budget_({config_.budget_tokens, config_.max_candidates, config_.time_limit_s}, clock_,
              inputs.record.elapsed_s),
      eval_slots_(
          static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(services.pool.size(), 1, 64))) {
  record_ = inputs.record;
  next_id_ = s_.store.journal().max_candidate_id() + 1;
  eval_template_ = eval::evaluate_request(store::eval_settings(config_), config_.task, {});
  eval_template_.input_seed = draw_input_seed();
}

void Run::note(const std::string& line) {
  s_.view.log(line);
  std::lock_guard lock(mutex_);
  record_.log.push_back(line);
}

void Run::phase(const std::string& name) {
  s_.view.set_phase(name);
  s_.view.log(fmt::format("== {} ==", name));
  std::lock_guard lock(mutex_);
  record_.phases.push_back(name);
  save_locked();
}

void Run::stop(const std::string& reason, bool failed) {
  {
    std::lock_guard lock(mutex_);
    if (!stop_reason_.empty()) return;
    stop_reason_ = reason;
    stopping_ = true;
    if (failed) failed_ = true;
  }
  note(fmt::format("stopping: {}", reason));
}

void Run::save_locked() {
  record_.updated_at = store::iso_time(std::chrono::system_clock::now());
  record_.elapsed_s = budget_.elapsed();
  record_.tokens = token_rows(ledger_);
  // Without a timing nothing is ranked: best_ is then only the base the tuning starts from.
  record_.best_id = best_ && timed(*best_) ? std::optional<int>(best_->id) : std::nullopt;
  record_.ranking = !best_ ? "" : timed(*best_) ? "ranked" : "unranked";
  if (auto ok = s_.store.write_run(record_); !ok)
    s_.view.log(fmt::format("warning: {}", ok.error().message));
}

int Run::allocate_id(const std::string& key, const std::string& stage) {
  if (auto id = s_.store.journal().candidate_id(key)) return *id;
  int id;
  {
    std::lock_guard lock(mutex_);
    id = next_id_++;
  }
  if (auto ok = s_.store.journal().record_candidate(key, id, stage); !ok)
    s_.view.log(fmt::format("warning: {}", ok.error().message));
  return id;
}

prompts::Vars Run::base_vars() const {
  prompts::Vars vars = prompts::task_vars({record_.task_name, inputs_.task_source, recurrent_,
                                           eval_template_.device == eval::Device::kCpu,
                                           eval_template_.numerics, eval_template_.precision});
  prompts::merge(vars, prompts::gpu_vars(worker_, config_.target_gpu));
  // not "library_example": that name is the shared part (library_example.txt) showing these two
  vars["library_example_source"] = library_example_ ? library_example_->source : "";
  vars["library_example_name"] =
      library_example_ ? library_example_->name + ": " + library_example_->why : "";
  vars["seeds_total"] = std::to_string(config_.seeds);
  vars["max_attempts"] = std::to_string(config_.repairs);
  // Stage-specific variables default to empty so every template renders in every stage.
  for (const char* name :
       {"seed_index", "attempt", "origin_stage", "validation_error", "previous_reply",
        "adapt_persistent", "guard_reason", "best_id", "candidate_id", "candidate_stage"})
    vars[name] = "";
  for (const auto& [name, value] : diagnosis_vars({})) vars[name] = "";
  vars["worth_optimizing"] = "";
  return vars;
}

prompts::Vars Run::vars_for(const Candidate& candidate) const {
  prompts::Vars vars = base_vars();
  prompts::merge(vars,
                 prompts::candidate_vars(candidate.source, candidate.evaluation, candidate.report));
  vars["candidate_id"] = std::to_string(candidate.id);
  vars["candidate_stage"] = candidate.stage;
  if (candidate.diagnosis) prompts::merge(vars, diagnosis_vars(*candidate.diagnosis));
  return vars;
}

void Run::account(const std::string& stage, const llm::ChatReply& reply) {
  ledger_.record(stage, reply);
  {
    std::lock_guard lock(mutex_);
    save_locked();
  }
  budget_.add_tokens(reply.usage.prompt_tokens + reply.usage.completion_tokens);
  s_.view.set_tokens(budget_.tokens());
}

void Run::measure_baselines() {
  {
    std::lock_guard lock(mutex_);
    if (record_.baselines) return;  // resumed: measured by the first attempt
  }
  eval::EvalSettings settings = store::eval_settings(config_);
  settings.device = eval::Device::kCuda;
  eval::BaselineRequest request = eval::baseline_request(settings, config_.task);
  s_.view.log("baselines: timing the reference (eager, torch.compile, CUDA-graph replay)");
  auto result = s_.pool.baseline(request);
  if (!result) {
    note(fmt::format("baselines: {}; the run goes on without them", result.error().message));
    return;
  }
  store::RunBaselines baselines;
  if (result->eager) baselines.eager_ms = result->eager->median_ms;
  if (result->compiled) baselines.compile_ms = result->compiled->median_ms;
  if (result->cuda_graph) baselines.cuda_graph_ms = result->cuda_graph->median_ms;
  baselines.errors = result->errors;
  std::string text;
  for (const auto& [name, ms] :
       {std::pair{"eager", baselines.eager_ms}, std::pair{"compile", baselines.compile_ms},
        std::pair{"cuda_graph", baselines.cuda_graph_ms}})
    if (ms) text += fmt::format("{}{} {:.3f} ms", text.empty() ? "" : ", ", name, *ms);
  note(fmt::format("baselines: {}", text.empty() ? "none timed" : text));
  for (const auto& [name, error] : baselines.errors)
    note(fmt::format("baseline {} failed: {}", name, first_line(error)));
  std::lock_guard lock(mutex_);
  record_.baselines = std::move(baselines);
  save_locked();
}

std::optional<llm::ChatReply> Run::ask(const std::string& key, const std::string& stage,
                                       const std::string& template_name,
                                       const std::string& transcript, const prompts::Vars& vars) {
  if (auto replay = s_.store.journal().chat(key)) {
    s_.view.log(fmt::format("{}: model reply found in the journal", key));
    account(stage, *replay);
    return replay;
  }
  if (stopping()) return std::nullopt;
  if (auto reason = budget_.exhausted()) {
    stop(*reason);
    return std::nullopt;
  }
  auto messages = s_.prompts.messages(template_name, vars);
  if (!messages) {
    stop(messages.error().message, true);
    return std::nullopt;
  }
  llm::ChatRequest request;
  request.messages = std::move(*messages);
  request.stage = stage;
  request.transcript_path = s_.store.transcript_path(transcript);
  request.task_path = config_.task;
  request.on_progress = [this](const llm::StreamProgress& progress) {
    s_.view.streaming(progress.completion_tokens, progress.tokens_per_s);
  };
  s_.view.log(fmt::format("{}: asking {} ({})", key, s_.provider.model(), stage));
  s_.view.model_started();
  auto reply = s_.provider.chat(request);
  s_.view.model_finished();
  if (!reply) {
    ledger_.record_failure(stage);
    note(fmt::format("{}: model call failed: {}", key, reply.error().message));
    return std::nullopt;
  }
  if (auto ok = s_.store.journal().record_chat(key, stage, *reply); !ok)
    s_.view.log(fmt::format("warning: {}", ok.error().message));
  account(stage, *reply);
  s_.view.log(fmt::format("{}: reply with {} + {} tokens in {:.1f} s", key,
                          reply->usage.prompt_tokens, reply->usage.completion_tokens,
                          reply->latency_s));
  return std::move(*reply);
}

CandidatePtr Run::produce(const std::string& key, const std::string& stage,
                          std::optional<int> parent, int lineage, const prompts::Vars& vars,
                          const std::optional<AnalysisDiagnosis>& diagnosis) {
  bool replay = s_.store.journal().chat(key).has_value();
  if (!replay) {
    if (stopping()) return nullptr;
    if (auto reason = budget_.candidates_exhausted()) {
      stop(*reason);
      return nullptr;
    }
  }
  int id = allocate_id(key, stage);
  auto reply = ask(key, stage, stage, fmt::format("{}_{}", id, stage), vars);
  if (!reply) return nullptr;

  auto candidate = std::make_shared<Candidate>();
  candidate->id = id;
  candidate->stage = stage;
  candidate->parent = parent;
  candidate->key = key;
  candidate->lineage = lineage;
  candidate->diagnosis = diagnosis;
  candidate->usage = reply->usage;
  candidate->path = s_.store.candidate_path(id, stage);
  budget_.add_candidate();
  auto code = extract_model_new(reply->content);
  if (code) {
    candidate->source = std::move(*code);
  } else {
    candidate->extracted = false;
    candidate->source = reply->content;
    candidate->evaluation.status = eval::Status::kSyntaxError;
    candidate->evaluation.error = code.error().message;
    if (reply->truncated)
      candidate->evaluation.error +=
          "\nThe reply was cut off by the token limit: write a shorter, complete file.";
  }
  if (auto ok = s_.store.write_candidate_source(id, stage, candidate->source); !ok) {
    stop(ok.error().message, true);
    return nullptr;
  }
  {
    std::lock_guard lock(mutex_);
    candidates_.push_back(candidate);
  }
  assess(*candidate);
  consider(candidate);
  return candidate;
}

void Run::assess(Candidate& c) {
  if (!c.extracted) return;
  if (s_.analyze) {
    std::string key = "facts:" + c.key;
    if (auto report = s_.store.journal().analysis(key)) {
      c.report = std::move(report);
    } else if (auto report = s_.analyze(c.path)) {
      c.report = *report;
      if (auto ok = s_.store.journal().record_analysis(key, *report); !ok)
        s_.view.log(fmt::format("warning: {}", ok.error().message));
    } else {
      s_.view.log(
          fmt::format("#{}: kernel analysis unavailable: {}", c.id, report.error().message));
    }
  }
  std::string key = "eval:" + c.key;
  if (auto evaluation = s_.store.journal().evaluation(key)) {
    c.evaluation = std::move(*evaluation);
    return;
  }
  eval::EvalRequest request = eval_template_;
  request.candidate = c.path;
  eval_slots_.acquire();
  s_.view.eval_started();
  s_.view.log(fmt::format("#{} {}: evaluating", c.id, c.stage));
  auto evaluation = s_.pool.evaluate(request);
  s_.view.eval_finished();
  eval_slots_.release();
  if (!evaluation) {
    c.evaluation.status = eval::Status::kCrashed;
    c.evaluation.error = evaluation.error().message;
    stop(fmt::format("evaluation of #{} failed: {}", c.id, evaluation.error().message), true);
    return;
  }
  c.evaluation = std::move(*evaluation);
  if (auto ok = s_.store.journal().record_evaluation(key, c.evaluation); !ok)
    s_.view.log(fmt::format("warning: {}", ok.error().message));
}

store::CandidateRecord Run::to_record(const Candidate& c, const std::string& note) const {
  store::CandidateRecord r;
  r.id = c.id;
  r.stage = c.stage;
  r.parent = c.parent;
  r.key = c.key;
  r.file = std::filesystem::relative(c.path, s_.store.dir()).string();
  r.status = std::string(eval::to_string(c.evaluation.status));
  r.score = c.evaluation.score;
  if (c.evaluation.candidate) r.latency_ms = c.evaluation.candidate->median_ms;
  if (c.evaluation.eager) r.eager_ms = c.evaluation.eager->median_ms;
  if (c.evaluation.correctness) r.max_abs_err = c.evaluation.correctness->max_abs_err;
  r.launches_per_forward = c.evaluation.launches_per_forward;
  if (c.evaluation.numerics) r.numerics = c.evaluation.numerics->summary;
  r.error_head = error_summary(c.evaluation.status, c.evaluation.error);
  if (c.report) {
    r.kernel_type = c.report->kernel_type;
    r.persistent = c.report->persistent;
  }
  r.note = note;
  r.prompt_tokens = c.usage.prompt_tokens;
  r.completion_tokens = c.usage.completion_tokens;
  return r;
}

void Run::consider(const CandidatePtr& c) {
  std::string origin = c->parent ? fmt::format(" (from #{})", *c->parent) : "";
  std::string line;
  std::string best_text;
  {
    std::lock_guard lock(mutex_);
    std::string verdict;
    if (c->verified() && !timed(*c)) {
      // No timing (CPU mode): correct, kept, and not ranked against the others.
      verdict = "correct, unranked (no timing)";
      if (!best_ || is_better(*c, *best_)) best_ = c;
      if (!timed(*best_)) {
        auto correct = std::count_if(candidates_.begin(), candidates_.end(),
                                     [](const CandidatePtr& o) { return o->verified(); });
        best_text = fmt::format("unranked: {} correct", correct);
      }
    } else if (c->verified()) {
      if (!best_ || is_better(*c, *best_)) {
        verdict =
            best_ && timed(*best_) ? fmt::format("new best (was #{})", best_->id) : "new best";
        best_ = c;
        best_text = fmt::format("#{} {}", c->id, describe_result(*c));
      } else {
        verdict = fmt::format("not better than #{} ({}): best stays #{}", best_->id,
                              describe_result(*best_), best_->id);
      }
    }
    store::CandidateRecord record = to_record(*c, verdict);
    auto existing = std::find_if(record_.candidates.begin(), record_.candidates.end(),
                                 [&](const store::CandidateRecord& r) { return r.id == c->id; });
    if (existing != record_.candidates.end())
      *existing = record;
    else
      record_.candidates.push_back(record);
    std::sort(record_.candidates.begin(), record_.candidates.end(),
              [](const auto& a, const auto& b) { return a.id < b.id; });
    if (auto ok = s_.store.write_candidate_record(record, c->evaluation, c->report,
                                                  diagnosis_map(c->diagnosis));
        !ok)
      s_.view.log(fmt::format("warning: {}", ok.error().message));
    save_locked();
    if (c->verified())
      line = fmt::format("#{} {}{}: ok, {} — {}", c->id, c->stage, origin, describe_result(*c),
                         verdict);
    else
      line = fmt::format("#{} {}{}: {}: {}", c->id, c->stage, origin, record.status,
                         record.error_head.empty() ? "(no error text)" : record.error_head);
    if (c->report && c->report->persistent) line += " [persistent kernel]";
  }
  s_.view.log(line);
  if (!best_text.empty()) s_.view.set_best(best_text);
}

PipelineResult Run::finish() {
  PipelineResult result;
  CandidatePtr winner = best();
  {
    std::lock_guard lock(mutex_);
    record_.phases.push_back("final");
    record_.state = failed_ ? "failed" : !stop_reason_.empty() ? "stopped" : "finished";
    record_.stop_reason = stop_reason_;
  }
  if (winner && !timed(*winner)) {
    std::vector<int> correct;
    {
      std::lock_guard lock(mutex_);
      for (const CandidatePtr& c : candidates_)
        if (c->verified()) correct.push_back(c->id);
    }
    std::sort(correct.begin(), correct.end());
    std::vector<std::string> ids;
    for (int id : correct) ids.push_back(fmt::format("#{}", id));
    note(fmt::format(
        "unranked: {} correct candidate{} kept ({}); without timings none is called "
        "best; rank them on a GPU: kforge rank {} --device cuda",
        ids.size(), ids.size() == 1 ? "" : "s", fmt::join(ids, ", "), s_.store.dir().string()));
  } else if (winner) {
    if (auto ok = s_.store.write_best(winner->source); !ok)
      s_.view.log(fmt::format("warning: {}", ok.error().message));
    note(fmt::format("best: #{} {} — {}; copied to best.py", winner->id, winner->stage,
                     describe_result(*winner)));
    result.best_source = winner->source;
  } else {
    note("best: no verified candidate");
  }
  std::lock_guard lock(mutex_);
  save_locked();
  result.record = record_;
  return result;
}

}  // namespace kforge::pipeline

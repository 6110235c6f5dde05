#include "suite/task_evaluation.h"

#include <fmt/format.h>

#include <chrono>

#include "eval/protocol_codec.h"
#include "store/run_store.h"

namespace kforge::suite {

namespace {

/// The error in one line: its first line, and when that only introduces what follows ("failed
/// to run ModelNew.forward:"), its last line too (the exception itself).
std::string first_line(std::string_view text) {
  std::size_t start = text.find_first_not_of("\n ");
  if (start == std::string_view::npos) return "";
  text = text.substr(start);
  std::string line(text.substr(0, text.find('\n')));
  if (line.ends_with(":")) {
    std::string_view rest = text.substr(std::min(text.size(), line.size()));
    std::size_t end = rest.find_last_not_of("\n ");
    if (end != std::string_view::npos) {
      rest = rest.substr(0, end + 1);
      std::size_t last = rest.rfind('\n');
      std::string_view tail = last == std::string_view::npos ? rest : rest.substr(last + 1);
      std::size_t lead = tail.find_first_not_of(' ');
      if (lead != std::string_view::npos) line += " " + std::string(tail.substr(lead));
    }
  }
  if (line.size() > 240) line = line.substr(0, 237) + "...";
  return line;
}

/// True when `a` is a better row than `b` (see evaluate_task).
bool better(const TaskResult& a, const TaskResult& b) {
  if (a.correct() != b.correct()) return a.correct();
  if (a.correct() && a.best_ms && b.best_ms) return *a.best_ms < *b.best_ms;
  if (a.correct() && a.best_ms.has_value() != b.best_ms.has_value()) return a.best_ms.has_value();
  return false;
}

}  // namespace

bool is_worker_start_error(const util::Error& error) {
  return error.message.find("failed to start worker") != std::string::npos;
}

TaskResult row_from_evaluation(const eval::Evaluation& e, eval::Device device) {
  TaskResult r;
  r.status = std::string(eval::to_string(e.status));
  if (e.correctness) {
    r.pass_calibrated = e.correctness->pass_calibrated;
    r.pass_kernelbench = e.correctness->pass_kernelbench;
    r.max_abs_err = e.correctness->max_abs_err;
  }
  r.generalizes = e.generalizes;
  r.reasons = e.reasons;
  r.error_head = first_line(e.error);
  if (device == eval::Device::kCuda && e.status == eval::Status::kOk) {
    if (e.candidate) r.best_ms = e.candidate->median_ms;
    if (e.eager) r.eager_ms = e.eager->median_ms;
    if (e.compiled) r.compile_ms = e.compiled->median_ms;
    if (e.cuda_graph) r.cuda_graph_ms = e.cuda_graph->median_ms;
  }
  return r;
}

util::Result<TaskResult> evaluate_task(eval::WorkerPool& pool, const SuiteTask& task,
                                       const std::vector<CandidateFile>& candidates,
                                       const eval::EvalRequest& request,
                                       const std::filesystem::path& evals_dir) {
  auto started = std::chrono::steady_clock::now();
  TaskResult best;
  best.id = task.id;
  best.task = task.path.string();
  best.samples = static_cast<int>(candidates.size());
  if (candidates.empty()) {
    best.status = "missing";
    best.error_head = "no candidate file for this task";
    return best;
  }
  int correct = 0;
  bool have = false;
  for (const CandidateFile& candidate : candidates) {
    eval::EvalRequest r = request;
    r.task = task.path;
    r.candidate = candidate.path;
    auto evaluation = pool.evaluate(r);
    TaskResult row;
    if (!evaluation) {
      if (is_worker_start_error(evaluation.error())) return std::unexpected(evaluation.error());
      row.status = "error";
      row.error_head = first_line(evaluation.error().message);
    } else {
      row = row_from_evaluation(*evaluation, request.device);
      std::string name =
          candidates.size() == 1
              ? fmt::format("{}.json", store::safe_name(task.id))
              : fmt::format("{}.s{}.json", store::safe_name(task.id), candidate.sample);
      eval::OutputContext context;
      context.kforge_version = KFORGE_VERSION;
      context.task = r.task;
      context.candidate = r.candidate;
      context.device = r.device;
      context.correct = evaluation->status == eval::Status::kOk;
      std::error_code ignored;
      std::filesystem::create_directories(evals_dir, ignored);
      if (auto ok = store::write_file_atomically(
              evals_dir / name, eval::encode_evaluation_output(*evaluation, context) + "\n");
          !ok)
        row.note = ok.error().message;
    }
    row.candidate = candidate.path.string();
    if (row.correct()) ++correct;
    if (!have || better(row, best)) {
      row.id = best.id;
      row.task = best.task;
      row.samples = best.samples;
      best = std::move(row);
      have = true;
    }
  }
  best.correct_samples = correct;
  best.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return best;
}

}  // namespace kforge::suite

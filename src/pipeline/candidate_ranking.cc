#include "pipeline/candidate_ranking.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <semaphore>

namespace kforge::pipeline {

namespace {

bool timed(const store::RankedCandidate& e) {
  return e.status == "ok" && e.score && std::isfinite(*e.score);
}

/// The first line that says what went wrong (the end of a traceback, else the first line).
std::string error_head(const std::string& error) {
  std::size_t end = error.find_last_not_of(" \n\t");
  if (end == std::string::npos) return "";
  std::size_t start = error.rfind('\n', end);
  std::string line = error.substr(start == std::string::npos ? 0 : start + 1,
                                  end + 1 - (start == std::string::npos ? 0 : start + 1));
  return line.size() > 160 ? line.substr(0, 157) + "..." : line;
}

}  // namespace

util::Result<store::RankResult> rank_candidates(const store::RunRecord& run,
                                                const std::filesystem::path& run_dir,
                                                eval::WorkerPool& pool,
                                                const eval::EvalRequest& base,
                                                const std::function<void(std::string_view)>& log) {
  std::vector<const store::CandidateRecord*> correct;
  for (const store::CandidateRecord& c : run.candidates)
    if (c.status == "ok") correct.push_back(&c);
  if (correct.empty())
    return util::fail("failed to rank run {}: it has no correct candidate", run_dir.string());
  for (const store::CandidateRecord* c : correct) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(run_dir / c->file, error))
      return util::fail("failed to rank run {}: candidate #{} ({}) is missing", run_dir.string(),
                        c->id, c->file);
  }

  // As many evaluations at once as the pool has workers.
  std::counting_semaphore<64> slots(
      static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(pool.size(), 1, 64)));
  std::vector<std::future<util::Result<eval::Evaluation>>> evaluations;
  for (const store::CandidateRecord* c : correct) {
    eval::EvalRequest request = base;
    request.candidate = std::filesystem::absolute(run_dir / c->file);
    evaluations.push_back(std::async(std::launch::async, [&pool, &slots, request] {
      slots.acquire();
      auto result = pool.evaluate(request);
      slots.release();
      return result;
    }));
  }
  store::RankResult rank;
  rank.device = std::string(eval::device_name(base.device));
  std::optional<util::Error> failure;
  for (std::size_t i = 0; i < correct.size(); ++i) {
    auto evaluation = evaluations[i].get();
    if (!evaluation) {
      if (!failure) failure = evaluation.error();
      continue;
    }
    store::RankedCandidate entry;
    entry.id = correct[i]->id;
    entry.status = std::string(eval::to_string(evaluation->status));
    entry.score = evaluation->score;
    if (evaluation->candidate) entry.latency_ms = evaluation->candidate->median_ms;
    if (evaluation->eager) entry.eager_ms = evaluation->eager->median_ms;
    if (evaluation->correctness) entry.max_abs_err = evaluation->correctness->max_abs_err;
    if (entry.status != "ok") entry.error_head = error_head(evaluation->error);
    if (auto name = evaluation->device.find("name");
        rank.device_name.empty() && name != evaluation->device.end())
      rank.device_name = name->second;
    log(fmt::format("#{} {}: {}{}", entry.id, correct[i]->stage, entry.status,
                    timed(entry)           ? fmt::format(", score {:.4f} ({:.3f} ms)", *entry.score,
                                                         entry.latency_ms.value_or(0))
                    : entry.status == "ok" ? std::string(", no timing")
                                           : ": " + entry.error_head));
    rank.entries.push_back(std::move(entry));
  }
  if (failure) return std::unexpected(failure->context("failed to rank run {}", run_dir.string()));
  std::stable_sort(rank.entries.begin(), rank.entries.end(),
                   [](const store::RankedCandidate& a, const store::RankedCandidate& b) {
                     if (timed(a) != timed(b)) return timed(a);
                     if (!timed(a)) return a.id < b.id;
                     if (*a.score != *b.score) return *a.score > *b.score;
                     double ea = a.max_abs_err.value_or(INFINITY);
                     double eb = b.max_abs_err.value_or(INFINITY);
                     if (ea != eb) return ea < eb;
                     return a.id < b.id;
                   });
  if (!rank.entries.empty() && timed(rank.entries.front())) rank.best_id = rank.entries.front().id;
  return rank;
}

store::RunRecord apply_ranking(store::RunRecord run, const store::RankResult& rank) {
  for (const store::RankedCandidate& e : rank.entries) {
    auto it = std::find_if(run.candidates.begin(), run.candidates.end(),
                           [&](const store::CandidateRecord& c) { return c.id == e.id; });
    if (it == run.candidates.end()) continue;
    it->score = e.score;
    it->latency_ms = e.latency_ms;
    it->eager_ms = e.eager_ms;
    std::string note = e.status == "ok"
                           ? fmt::format("re-timed by kforge rank on {}",
                                         rank.device_name.empty() ? rank.device : rank.device_name)
                           : fmt::format("kforge rank on {}: {}", rank.device, e.status);
    it->note = it->note.empty() ? note : it->note + "; " + note;
  }
  run.rank = rank;
  if (rank.best_id) {
    run.best_id = rank.best_id;
    run.ranking = "ranked";
  }
  return run;
}

}  // namespace kforge::pipeline

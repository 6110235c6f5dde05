#include "llm/attempt_runner.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace kforge::llm {

namespace {

using RealClock = std::chrono::steady_clock;

double seconds_between(RealClock::time_point from, RealClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

/// One attempt in flight (or finished) and the thread running it.
struct Slot {
  int number = 0;
  std::stop_source stop;
  std::thread thread;
  RealClock::time_point started;
  RealClock::time_point soft_deadline;
  RealClock::time_point ended;
  std::optional<AttemptResult> result;
  bool done = false;
  bool timed_out = false;
};

std::string plural(int n) {
  return n == 1 ? "" : "s";
}

}  // namespace

AttemptRun run_attempts(const AttemptFn& attempt, const AttemptLimits& limits, Clock& clock,
                        const std::function<double(int)>& backoff_s, std::string_view label) {
  const RealClock::time_point call_start = RealClock::now();
  const auto clock_start = clock.now();
  const int max_attempts = std::max(1, limits.retry.max_attempts);
  const double timeout_s = limits.timeout_s > 0 ? limits.timeout_s : 1e9;
  const double deadline_s = limits.retry.total_deadline_s > 0
                                ? std::max(limits.retry.total_deadline_s, limits.timeout_s)
                                : 0;
  auto clock_elapsed = [&] {
    return std::chrono::duration<double>(clock.now() - clock_start).count();
  };

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Slot*> finished;
  std::vector<std::unique_ptr<Slot>> slots;

  // Starts the next attempt on its own thread; call without `mutex` held.
  auto start = [&] {
    auto slot = std::make_unique<Slot>();
    Slot* raw = slot.get();
    double hard_s =
        deadline_s > 0 ? std::max(deadline_s - clock_elapsed(), 0.001) : timeout_s * max_attempts;
    {
      std::lock_guard lock(mutex);
      raw->number = static_cast<int>(slots.size()) + 1;
      raw->started = RealClock::now();
      raw->soft_deadline =
          raw->started + std::chrono::duration_cast<RealClock::duration>(
                             std::chrono::duration<double>(std::min(timeout_s, hard_s)));
      slots.push_back(std::move(slot));
    }
    raw->thread = std::thread([&attempt, &mutex, &changed, &finished, raw, hard_s] {
      AttemptResult result = [&]() -> AttemptResult {
        try {
          return attempt(raw->number, hard_s, raw->stop.get_token());
        } catch (const std::exception& error) {
          return std::unexpected(AttemptFailure{false, error.what(), {}, false, {}});
        }
      }();
      std::lock_guard lock(mutex);
      raw->result = std::move(result);
      raw->ended = RealClock::now();
      raw->done = true;
      finished.push_back(raw);
      changed.notify_all();
    });
  };

  int counted = 1;      // attempts counted against max_attempts
  int adjustments = 0;  // attempts after a rejected parameter, not counted
  Slot* winner = nullptr;
  std::string final_error;
  std::string last_failure;
  start();
  std::unique_lock lock(mutex);
  auto any_open = [&] {
    return std::any_of(slots.begin(), slots.end(), [](const auto& s) { return !s->done; });
  };
  while (true) {
    if (finished.empty()) {
      Slot* newest = slots.back().get();
      if (!newest->done && !newest->timed_out) {
        if (changed.wait_until(lock, newest->soft_deadline, [&] { return !finished.empty(); }))
          continue;
        newest->timed_out = true;
        double waited = seconds_between(newest->started, RealClock::now());
        bool past_deadline = deadline_s > 0 && clock_elapsed() >= deadline_s;
        if (counted >= max_attempts || past_deadline) {
          final_error = fmt::format(
              "gave up after {} attempt{}: timed out after {:.1f} s (request time-out {:g} s)",
              counted, plural(counted), waited, timeout_s);
          break;
        }
        spdlog::warn(
            "{}: no reply after {:.0f} s (attempt {} of {}); sending attempt {} while still "
            "taking attempt {}'s answer if it comes",
            label, waited, counted, max_attempts, counted + 1, newest->number);
        ++counted;
        lock.unlock();
        start();
        lock.lock();
        continue;
      }
      if (!any_open()) {
        final_error =
            fmt::format("gave up after {} attempt{}: {}", counted, plural(counted), last_failure);
        break;
      }
      // Only attempts past their time-out are left: wait for a late answer (bounded by their
      // hard time-out).
      changed.wait(lock, [&] { return !finished.empty(); });
      continue;
    }

    Slot* done = finished.front();
    finished.pop_front();
    if (done->result->has_value()) {
      winner = done;
      break;
    }
    const AttemptFailure& failure = done->result->error();
    last_failure = failure.message;
    const bool newest = done == slots.back().get();
    if (failure.adjusted && adjustments < 3) {
      ++adjustments;
      lock.unlock();
      start();
      lock.lock();
      continue;
    }
    if (!failure.retryable) {
      final_error = failure.message;
      break;
    }
    if (!newest) continue;  // an attempt already replaced by a newer one
    const bool others_open = any_open();
    if (counted >= max_attempts) {
      if (others_open) continue;  // an earlier attempt may still answer late
      final_error =
          fmt::format("gave up after {} attempt{}: {}", counted, plural(counted), failure.message);
      break;
    }
    double wait = failure.retry_after_s ? *failure.retry_after_s : backoff_s(counted);
    if (deadline_s > 0 && clock_elapsed() + wait >= deadline_s) {
      if (others_open) continue;
      final_error = fmt::format(
          "gave up after {} attempt{}: waiting {:.1f} s more would pass the total deadline of "
          "{:.0f} s: {}",
          counted, plural(counted), wait, deadline_s, failure.message);
      break;
    }
    spdlog::warn("{} request failed ({}); retrying in {:.1f} s (attempt {} of {})", label,
                 failure.message, wait, counted + 1, max_attempts);
    if (others_open) {
      // An earlier attempt is still running: wake up for its answer during the back-off.
      changed.wait_for(lock, std::chrono::duration<double>(wait),
                       [&] { return !finished.empty(); });
    } else {
      lock.unlock();
      clock.sleep_for(Clock::Duration(wait));
      lock.lock();
    }
    ++counted;
    lock.unlock();
    start();
    lock.lock();
  }
  for (auto& slot : slots)
    if (!slot->done) slot->stop.request_stop();
  lock.unlock();
  for (auto& slot : slots) slot->thread.join();

  AttemptRun run;
  for (auto& slot : slots) {
    AttemptRecord record;
    record.number = slot->number;
    record.started_s = seconds_between(call_start, slot->started);
    record.ended_s = seconds_between(call_start, slot->ended);
    record.timed_out = slot->timed_out;
    if (slot.get() == winner) {
      record.outcome = "reply";
    } else if (slot->result && !slot->result->has_value()) {
      record.outcome = slot->stop.stop_requested() ? "abandoned" : "failed";
      record.error = slot->result->error().message;
      record.partial = slot->result->error().partial;
    } else {
      record.outcome = "abandoned";  // answered after another attempt's answer was taken
      record.error = "answered after the call had its reply";
      if (slot->result) record.partial = {(*slot->result)->content, (*slot->result)->reasoning, 0};
    }
    run.attempts.push_back(std::move(record));
  }
  if (winner) {
    ChatReply reply = std::move(**winner->result);
    reply.attempts = static_cast<int>(slots.size());
    run.late = winner->timed_out;
    if (run.late)
      spdlog::warn(
          "{}: attempt {} answered late, after {:.0f} s (request time-out {:g} s): using "
          "that answer",
          label, winner->number, seconds_between(winner->started, winner->ended), timeout_s);
    run.reply = std::move(reply);
  } else {
    run.reply = std::unexpected(final_error);
  }
  return run;
}

}  // namespace kforge::llm

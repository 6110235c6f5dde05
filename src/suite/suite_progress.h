#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace kforge::suite {

/// The live view of a long suite: a log line per finished task, and on a terminal a status line
/// redrawn in place below them: tasks done / running / failed / left, the ETA (mean wall time
/// of the tasks finished by this process x tasks left / slots), tokens and money spent.
/// Thread-safe.
class SuiteProgress {
 public:
  using Clock = std::function<double()>;
  using Sink = std::function<void(std::string_view)>;

  /// `total` tasks of this shard, `already_done` of them found in the journal (`already_failed`
  /// not correct), `slots` workers. `sink` also receives every log line (console.log).
  SuiteProgress(std::FILE* out, bool live, int total, int already_done, int already_failed,
                int slots, Clock clock, Sink sink = {});

  void log(std::string_view line);
  void task_started(std::string_view id);
  /// `correct` false counts the task as failed. `tokens` and `cost_usd` are what it spent.
  void task_finished(std::string_view id, std::string_view status, bool correct, double wall_s,
                     std::int64_t tokens, double cost_usd);
  /// Spend of the tasks in flight, reported as it happens (model calls).
  void add_spend(std::int64_t tokens, double cost_usd);
  void finish();

  std::string status_line() const;
  /// Seconds left at the current pace; negative when unknown (nothing finished yet).
  double eta_s() const;

 private:
  std::string status_line_locked() const;
  double eta_locked() const;
  void redraw_locked();

  std::FILE* out_;
  bool live_;
  int total_;
  int done_;
  int failed_;
  int running_ = 0;
  int slots_;
  int finished_here_ = 0;
  double wall_here_ = 0;
  std::int64_t tokens_ = 0;
  double cost_usd_ = 0;
  Clock clock_;
  Sink sink_;
  double start_;
  mutable std::mutex mutex_;
};

/// "1h02m", "4m05s", "12s".
std::string format_duration(double seconds);

}  // namespace kforge::suite

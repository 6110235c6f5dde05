#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace kforge::pipeline {

/// The terminal view of a run. Log lines go to `out` (kforge run: stderr, so that stdout carries
/// only the answer) and to `sink`, which writes console.log;
/// on a terminal (`live`) a status line — phase, model calls and evaluations in flight, best so
/// far, tokens spent, streaming progress — is redrawn in place on stderr below them. Without a
/// terminal only the log lines are written. Thread-safe.
class ConsoleView {
 public:
  using Sink = std::function<void(std::string_view)>;
  using Clock = std::function<double()>;

  ConsoleView(std::FILE* out, bool live, Sink sink, Clock clock);

  /// One log line, prefixed with the elapsed time: "[  12.3s] #3 repair: ok".
  void log(std::string_view line);
  void set_sink(Sink sink);
  void set_phase(std::string_view phase);
  void model_started();
  void model_finished();
  void eval_started();
  void eval_finished();
  void set_best(std::string best);
  void set_tokens(std::int64_t tokens);
  /// Streaming progress of the model call in flight (tokens so far, tokens/s).
  void streaming(std::int64_t tokens, double tokens_per_s);
  /// Clears the status line (at the end of the run).
  void finish();
  std::string status_line() const;

 private:
  std::string status_line_locked() const;
  void redraw_locked();

  std::FILE* out_;
  bool live_;
  Sink sink_;
  Clock clock_;
  double start_;
  mutable std::mutex mutex_;
  std::string phase_ = "starting";
  int models_ = 0;
  int evals_ = 0;
  std::string best_ = "none yet";
  std::int64_t tokens_ = 0;
  std::int64_t streaming_tokens_ = 0;
  double streaming_rate_ = 0;
};

/// True when `file` is a terminal.
bool is_terminal(std::FILE* file);

}  // namespace kforge::pipeline

#include "pipeline/console_view.h"

#include <fmt/format.h>
#include <unistd.h>

#include "util/printable.h"

namespace kforge::pipeline {

bool is_terminal(std::FILE* file) {
  return file && ::isatty(fileno(file)) == 1;
}

ConsoleView::ConsoleView(std::FILE* out, bool live, Sink sink, Clock clock)
    : out_(out), live_(live), sink_(std::move(sink)), clock_(std::move(clock)), start_(clock_()) {}

void ConsoleView::set_sink(Sink sink) {
  std::lock_guard lock(mutex_);
  sink_ = std::move(sink);
}

void ConsoleView::log(std::string_view line) {
  std::lock_guard lock(mutex_);
  // (a line may quote a candidate's error: no control character of its reaches the terminal)
  std::string text = fmt::format("[{:7.1f}s] {}", clock_() - start_, util::printable(line));
  if (live_) std::fputs("\r\033[K", stderr);
  if (out_) {
    std::fputs(text.c_str(), out_);
    std::fputc('\n', out_);
    std::fflush(out_);
  }
  if (sink_) sink_(text);
  redraw_locked();
}

std::string ConsoleView::status_line() const {
  std::lock_guard lock(mutex_);
  return status_line_locked();
}

std::string ConsoleView::status_line_locked() const {
  std::string line = fmt::format("{} | model calls {} | evaluations {} | best {} | tokens {}",
                                 phase_, models_, evals_, best_, tokens_);
  if (models_ > 0 && streaming_tokens_ > 0)
    line += fmt::format(" | streaming {} tok at {:.0f} tok/s", streaming_tokens_, streaming_rate_);
  return line;
}

void ConsoleView::redraw_locked() {
  if (!live_) return;
  std::string line = status_line_locked();
  if (line.size() > 150) line.resize(150);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

void ConsoleView::set_phase(std::string_view phase) {
  std::lock_guard lock(mutex_);
  phase_ = std::string(phase);
  redraw_locked();
}

void ConsoleView::model_started() {
  std::lock_guard lock(mutex_);
  ++models_;
  redraw_locked();
}

void ConsoleView::model_finished() {
  std::lock_guard lock(mutex_);
  --models_;
  streaming_tokens_ = 0;
  redraw_locked();
}

void ConsoleView::eval_started() {
  std::lock_guard lock(mutex_);
  ++evals_;
  redraw_locked();
}

void ConsoleView::eval_finished() {
  std::lock_guard lock(mutex_);
  --evals_;
  redraw_locked();
}

void ConsoleView::set_best(std::string best) {
  std::lock_guard lock(mutex_);
  best_ = std::move(best);
  redraw_locked();
}

void ConsoleView::set_tokens(std::int64_t tokens) {
  std::lock_guard lock(mutex_);
  tokens_ = tokens;
  redraw_locked();
}

void ConsoleView::streaming(std::int64_t tokens, double tokens_per_s) {
  std::lock_guard lock(mutex_);
  streaming_tokens_ = tokens;
  streaming_rate_ = tokens_per_s;
  redraw_locked();
}

void ConsoleView::finish() {
  std::lock_guard lock(mutex_);
  if (live_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

}  // namespace kforge::pipeline

#include "suite/suite_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kforge::suite {

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  long s = std::lround(seconds);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

SuiteProgress::SuiteProgress(std::FILE* out, bool live, int total, int already_done,
                             int already_failed, int slots, Clock clock, Sink sink)
    : out_(out),
      live_(live),
      total_(total),
      done_(already_done),
      failed_(already_failed),
      slots_(std::max(1, slots)),
      clock_(std::move(clock)),
      sink_(std::move(sink)),
      start_(clock_()) {}

void SuiteProgress::log(std::string_view line) {
  std::lock_guard lock(mutex_);
  std::string text = fmt::format("[{:>7.1f}s] {}", clock_() - start_, line);
  if (out_) {
    if (live_) std::fputs("\r\033[K", out_);
    std::fputs(text.c_str(), out_);
    std::fputc('\n', out_);
  }
  if (sink_) sink_(text);
  redraw_locked();
}

void SuiteProgress::task_started(std::string_view) {
  std::lock_guard lock(mutex_);
  ++running_;
  redraw_locked();
}

void SuiteProgress::task_finished(std::string_view id, std::string_view status, bool correct,
                                  double wall_s, std::int64_t tokens, double cost_usd) {
  int done = 0;
  {
    std::lock_guard lock(mutex_);
    running_ = std::max(0, running_ - 1);
    done = ++done_;
    if (!correct) ++failed_;
    ++finished_here_;
    wall_here_ += wall_s;
    (void)tokens;
    (void)cost_usd;  // counted as it happens through add_spend
  }
  log(fmt::format("{}: {} ({:.1f} s) [{}/{}]", id, status, wall_s, done, total_));
}

void SuiteProgress::add_spend(std::int64_t tokens, double cost_usd) {
  std::lock_guard lock(mutex_);
  tokens_ += tokens;
  cost_usd_ += cost_usd;
  redraw_locked();
}

void SuiteProgress::finish() {
  std::lock_guard lock(mutex_);
  if (out_ && live_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
  }
}

double SuiteProgress::eta_locked() const {
  if (finished_here_ == 0) return -1;
  int left = total_ - done_;
  double per_task = wall_here_ / finished_here_;
  return per_task * left / slots_;
}

double SuiteProgress::eta_s() const {
  std::lock_guard lock(mutex_);
  return eta_locked();
}

std::string SuiteProgress::status_line_locked() const {
  double eta = eta_locked();
  std::string line = fmt::format(
      "suite: {}/{} done, {} running, {} failed, {} left | elapsed {} | ETA {}", done_, total_,
      running_, failed_, total_ - done_ - running_, format_duration(clock_() - start_),
      eta < 0 ? std::string("?") : format_duration(eta));
  if (tokens_ > 0 || cost_usd_ > 0)
    line += fmt::format(" | spent {} tokens, ${:.2f}", tokens_, cost_usd_);
  return line;
}

std::string SuiteProgress::status_line() const {
  std::lock_guard lock(mutex_);
  return status_line_locked();
}

void SuiteProgress::redraw_locked() {
  if (!out_) return;
  if (live_) {
    std::string line = status_line_locked();
    std::fputs("\r\033[K", out_);
    std::fputs(line.c_str(), out_);
  }
  std::fflush(out_);
}

}  // namespace kforge::suite

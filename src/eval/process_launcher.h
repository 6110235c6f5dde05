#pragma once

// Starting and talking to child processes line by line. Abstract so that the worker pool can be
// tested with a scripted fake (worker_pool_test.cc); the real implementation forks and execs.

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.h"

namespace kforge::eval {

using Clock = std::chrono::steady_clock;

/// How a child process ended: its exit code, or the signal that killed it.
struct ExitStatus {
  bool signaled = false;
  /// Exit code when `signaled` is false, signal number when true.
  int code = 0;

  /// "exit code 1" or "killed by signal 11 (SIGSEGV)".
  std::string describe() const;
};

/// The outcome of waiting for one line on a child's stdout.
struct LineRead {
  enum class Kind {
    kLine,     // `line` holds one line, without its newline
    kTimeout,  // the deadline passed with no complete line
    kClosed,   // the child closed its stdout (usually: it exited)
  };
  Kind kind = Kind::kClosed;
  std::string line;
};

/// A running child: stdin and stdout carry the protocol, stderr is drained on the side (its last
/// lines are kept for error messages). Not thread-safe: one owner at a time.
class Process {
 public:
  /// Kills the child's process group and reaps it if it is still running.
  virtual ~Process() = default;
  virtual int pid() const = 0;
  /// Writes `line` and a newline to the child's stdin. Errors when the child closed its stdin.
  virtual util::Result<void> write_line(std::string_view line) = 0;
  /// Waits until a complete line arrives on stdout, the child closes stdout, or `deadline`.
  virtual LineRead read_line(Clock::time_point deadline) = 0;
  /// Closes the child's stdin (a polite "no more requests").
  virtual void close_stdin() = 0;
  /// Waits for the child to exit until `deadline`; nullopt if it is still running then.
  virtual std::optional<ExitStatus> wait(Clock::time_point deadline) = 0;
  /// Sends SIGKILL to the child's whole process group (the child and everything it started).
  virtual void kill_group() = 0;
  /// The last `max_lines` lines the child wrote to stderr, oldest first.
  virtual std::string stderr_tail(std::size_t max_lines) = 0;
};

/// What to start: argv (argv[0] is searched on PATH when it has no slash), the complete
/// environment, and where the child's stderr goes besides the in-memory tail.
struct LaunchSpec {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  /// Append the child's stderr to this file; empty = do not log to a file.
  std::filesystem::path stderr_log;
  /// Copy the child's stderr to kforge's stderr, each line prefixed with `stderr_prefix`.
  bool forward_stderr = false;
  std::string stderr_prefix;
};

/// Starts processes. The real one forks and execs; tests substitute a fake.
class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;
  /// Errors when the program cannot be found or executed ("failed to start python3: no such
  /// program on PATH"); a program that starts and then fails is a running Process that exits.
  virtual util::Result<std::unique_ptr<Process>> launch(const LaunchSpec& spec) = 0;
};

/// fork/exec with pipes; the child leads its own process group so that a kill reaches everything
/// it started. On first use, ignores SIGPIPE in kforge (a dead child must give an error, not kill
/// kforge) and, where SIGINT, SIGTERM and SIGHUP still have their default action, installs a
/// handler that kills the groups of all live children before kforge dies of the signal (a
/// Ctrl-C must not leave workers holding GPUs).
std::unique_ptr<ProcessLauncher> make_process_launcher();

/// The current environment of kforge as name/value pairs.
std::vector<std::pair<std::string, std::string>> current_environment();

}  // namespace kforge::eval

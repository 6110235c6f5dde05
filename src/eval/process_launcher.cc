#include "eval/process_launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <deque>
#include <mutex>

extern char** environ;

namespace kforge::eval {

namespace {

constexpr std::size_t kTailLines = 200;
constexpr std::size_t kMaxTailLineBytes = 2000;
constexpr std::size_t kMaxStdoutLineBytes = 64u << 20;

/// Process groups of live children, so that a fatal signal to kforge can take them along
/// (workers lead their own groups, so a Ctrl-C at the terminal does not reach them).
constexpr std::size_t kMaxGroups = 256;
std::array<std::atomic<pid_t>, kMaxGroups> g_groups{};

void register_group(pid_t pid) {
  for (std::atomic<pid_t>& slot : g_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid)) return;
  }
}

void unregister_group(pid_t pid) {
  for (std::atomic<pid_t>& slot : g_groups) {
    pid_t expected = pid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

/// Async-signal-safe: kill every registered group, then die of the same signal.
void kill_groups_and_reraise(int signal) {
  for (std::atomic<pid_t>& slot : g_groups)
    if (pid_t pid = slot.load(); pid > 0) ::kill(-pid, SIGKILL);
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  ::sigaction(signal, &action, nullptr);
  ::raise(signal);
}

/// For SIGINT, SIGTERM and SIGHUP, where kforge has left the default (fatal) action in place.
void install_fatal_signal_handlers() {
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = kill_groups_and_reraise;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, nullptr);
  }
}

std::string errno_text(int error) {
  return std::string(::strerror(error));
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void set_nonblocking(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int poll_timeout_ms(Clock::time_point deadline) {
  auto now = Clock::now();
  if (deadline <= now) return 0;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
  return static_cast<int>(std::min<long long>(ms, 60'000));
}

/// The real child process: pipes on 0/1/2, its own process group.
class RealProcess final : public Process {
 public:
  RealProcess(pid_t pid, int stdin_fd, int stdout_fd, int stderr_fd, std::FILE* log, bool forward,
              std::string prefix)
      : pid_(pid),
        stdin_fd_(stdin_fd),
        stdout_fd_(stdout_fd),
        stderr_fd_(stderr_fd),
        log_(log),
        forward_(forward),
        prefix_(std::move(prefix)) {
    set_nonblocking(stdout_fd_);
    set_nonblocking(stderr_fd_);
    register_group(pid_);
  }

  ~RealProcess() override {
    close_fd(stdin_fd_);
    if (!status_) {
      ::kill(-pid_, SIGKILL);
      int raw = 0;
      while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
      }
      unregister_group(pid_);
    }
    drain_stderr();
    flush_stderr_partial();
    close_fd(stdout_fd_);
    close_fd(stderr_fd_);
    if (log_) std::fclose(log_);
  }

  int pid() const override { return pid_; }

  util::Result<void> write_line(std::string_view line) override {
    if (stdin_fd_ < 0) return util::fail("failed to write to process {}: stdin is closed", pid_);
    std::string data(line);
    data += '\n';
    std::size_t written = 0;
    while (written < data.size()) {
      ssize_t n = ::write(stdin_fd_, data.data() + written, data.size() - written);
      if (n < 0) {
        if (errno == EINTR) continue;
        return util::fail("failed to write to process {}: {}", pid_, errno_text(errno));
      }
      written += static_cast<std::size_t>(n);
    }
    return {};
  }

  LineRead read_line(Clock::time_point deadline) override {
    while (true) {
      if (auto newline = stdout_buffer_.find('\n'); newline != std::string::npos) {
        LineRead result{LineRead::Kind::kLine, stdout_buffer_.substr(0, newline)};
        stdout_buffer_.erase(0, newline + 1);
        return result;
      }
      if (stdout_buffer_.size() > kMaxStdoutLineBytes ||
          (stdout_closed_ && !stdout_buffer_.empty())) {
        LineRead result{LineRead::Kind::kLine, std::move(stdout_buffer_)};
        stdout_buffer_.clear();
        return result;
      }
      if (stdout_closed_) return {LineRead::Kind::kClosed, {}};
      pollfd fds[2] = {{stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}};
      nfds_t count = stderr_fd_ >= 0 ? 2 : 1;
      int timeout = poll_timeout_ms(deadline);
      int ready = ::poll(fds, count, timeout);
      if (ready < 0 && errno != EINTR) return {LineRead::Kind::kClosed, {}};
      if (count == 2 && fds[1].revents) drain_stderr();
      if (ready > 0 && fds[0].revents) read_stdout();
      if (ready == 0 && Clock::now() >= deadline) return {LineRead::Kind::kTimeout, {}};
    }
  }

  void close_stdin() override { close_fd(stdin_fd_); }

  std::optional<ExitStatus> wait(Clock::time_point deadline) override {
    while (!status_) {
      siginfo_t info{};
      int rc = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
      if (rc < 0 && errno == EINTR) continue;
      if (rc == 0 && info.si_pid == pid_) {
        // Exited but not reaped yet: the process group id cannot be reused, so whatever the
        // child left behind in its group can be killed safely before reaping.
        ::kill(-pid_, SIGKILL);
        int raw = 0;
        while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
        }
        unregister_group(pid_);
        status_ = WIFSIGNALED(raw) ? ExitStatus{true, WTERMSIG(raw)}
                                   : ExitStatus{false, WEXITSTATUS(raw)};
        break;
      }
      if (rc < 0) {  // not our child any more (should not happen): report it as gone
        unregister_group(pid_);
        status_ = ExitStatus{false, -1};
        break;
      }
      if (Clock::now() >= deadline) return std::nullopt;
      // Drain stderr while waiting: a child blocked on a full stderr pipe never exits.
      pollfd fd{stderr_fd_, POLLIN, 0};
      int timeout = std::min(poll_timeout_ms(deadline), 10);
      if (stderr_fd_ >= 0) {
        if (::poll(&fd, 1, timeout) > 0) drain_stderr();
      } else {
        ::usleep(static_cast<useconds_t>(timeout) * 1000);
      }
    }
    drain_stderr();
    return status_;
  }

  void kill_group() override {
    if (!status_) ::kill(-pid_, SIGKILL);
  }

  std::string stderr_tail(std::size_t max_lines) override {
    drain_stderr();
    std::vector<std::string> lines(tail_.begin(), tail_.end());
    if (!stderr_partial_.empty()) lines.push_back(stderr_partial_);
    std::size_t start = lines.size() > max_lines ? lines.size() - max_lines : 0;
    std::string out;
    for (std::size_t i = start; i < lines.size(); ++i) {
      if (!out.empty()) out += '\n';
      out += lines[i];
    }
    return out;
  }

 private:
  void read_stdout() {
    char buffer[65536];
    while (true) {
      ssize_t n = ::read(stdout_fd_, buffer, sizeof buffer);
      if (n > 0) {
        stdout_buffer_.append(buffer, static_cast<std::size_t>(n));
        if (stdout_buffer_.find('\n') != std::string::npos) return;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) stdout_closed_ = true;
      return;
    }
  }

  void drain_stderr() {
    if (stderr_fd_ < 0) return;
    char buffer[65536];
    while (true) {
      ssize_t n = ::read(stderr_fd_, buffer, sizeof buffer);
      if (n > 0) {
        take_stderr(std::string_view(buffer, static_cast<std::size_t>(n)));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
        flush_stderr_partial();
        close_fd(stderr_fd_);
      }
      return;
    }
  }

  void take_stderr(std::string_view data) {
    for (char c : data) {
      if (c == '\n') {
        emit_stderr_line(std::move(stderr_partial_));
        stderr_partial_.clear();
      } else {
        stderr_partial_ += c;
      }
    }
  }

  void flush_stderr_partial() {
    if (stderr_partial_.empty()) return;
    emit_stderr_line(std::move(stderr_partial_));
    stderr_partial_.clear();
  }

  void emit_stderr_line(std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (log_) {
      std::fwrite(line.data(), 1, line.size(), log_);
      std::fputc('\n', log_);
      std::fflush(log_);
    }
    if (forward_) fmt::print(stderr, "{}{}\n", prefix_, line);
    if (line.size() > kMaxTailLineBytes) line.resize(kMaxTailLineBytes);
    tail_.push_back(std::move(line));
    if (tail_.size() > kTailLines) tail_.pop_front();
  }

  pid_t pid_;
  int stdin_fd_;
  int stdout_fd_;
  int stderr_fd_;
  std::FILE* log_;
  bool forward_;
  std::string prefix_;
  std::string stdout_buffer_;
  bool stdout_closed_ = false;
  std::string stderr_partial_;
  std::deque<std::string> tail_;
  std::optional<ExitStatus> status_;
};

/// argv[0] as an absolute or relative path to an executable, searched on PATH when it has no
/// slash; nullopt when there is none.
std::optional<std::string> resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = ::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    std::size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (dir.empty()) dir.push_back('.');  // not `= "."`: g++ 12 -O2 warns -Wrestrict there
    std::string candidate = dir + "/" + program;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    dirs.remove_prefix(colon + 1);
  }
}

class RealLauncher final : public ProcessLauncher {
 public:
  RealLauncher() {
    static std::once_flag once;
    std::call_once(once, [] {
      ::signal(SIGPIPE, SIG_IGN);
      install_fatal_signal_handlers();
    });
  }

  util::Result<std::unique_ptr<Process>> launch(const LaunchSpec& spec) override {
    if (spec.argv.empty()) return util::fail("failed to start a process: empty command");
    const std::string& program = spec.argv[0];
    std::optional<std::string> path = resolve_program(program);
    if (!path) return util::fail("failed to start {}: no such program on PATH", program);

    std::FILE* log = nullptr;
    if (!spec.stderr_log.empty()) {
      log = std::fopen(spec.stderr_log.c_str(), "ae");
      if (!log)
        return util::fail("failed to open worker log {}: {}", spec.stderr_log.string(),
                          errno_text(errno));
    }

    // Everything the child needs is built before fork: after it, only async-signal-safe calls.
    std::vector<char*> argv;
    for (const std::string& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    std::vector<std::string> env_strings;
    for (const auto& [name, value] : spec.env) env_strings.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (std::string& entry : env_strings) envp.push_back(entry.data());
    envp.push_back(nullptr);

    int in[2], out[2], err[2], exec_error[2];
    if (::pipe2(in, O_CLOEXEC) < 0) return pipe_failure(program, log);
    if (::pipe2(out, O_CLOEXEC) < 0) return pipe_failure(program, log, {in[0], in[1]});
    if (::pipe2(err, O_CLOEXEC) < 0)
      return pipe_failure(program, log, {in[0], in[1], out[0], out[1]});
    if (::pipe2(exec_error, O_CLOEXEC) < 0)
      return pipe_failure(program, log, {in[0], in[1], out[0], out[1], err[0], err[1]});

    pid_t pid = ::fork();
    if (pid < 0) {
      int error = errno;
      for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1], exec_error[0], exec_error[1]})
        ::close(fd);
      if (log) std::fclose(log);
      return util::fail("failed to start {}: fork: {}", program, errno_text(error));
    }
    if (pid == 0) {
      ::setpgid(0, 0);
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      struct sigaction action {};
      action.sa_handler = SIG_DFL;
      ::sigaction(SIGPIPE, &action, nullptr);
      sigset_t none;
      ::sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      ::execve(path->c_str(), argv.data(), envp.data());
      int error = errno;
      ssize_t ignored = ::write(exec_error[1], &error, sizeof error);
      (void)ignored;
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // also from the parent, so a kill right after launch reaches the group
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    ::close(exec_error[1]);
    int child_error = 0;
    ssize_t n;
    while ((n = ::read(exec_error[0], &child_error, sizeof child_error)) < 0 && errno == EINTR) {
    }
    ::close(exec_error[0]);
    if (n > 0) {
      int raw = 0;
      while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
      }
      ::close(in[1]);
      ::close(out[0]);
      ::close(err[0]);
      if (log) std::fclose(log);
      return util::fail("failed to start {}: {}", program, errno_text(child_error));
    }
    return std::make_unique<RealProcess>(pid, in[1], out[0], err[0], log, spec.forward_stderr,
                                         spec.stderr_prefix);
  }

 private:
  static std::unexpected<util::Error> pipe_failure(const std::string& program, std::FILE* log,
                                                   std::initializer_list<int> open_fds = {}) {
    int error = errno;
    for (int fd : open_fds) ::close(fd);
    if (log) std::fclose(log);
    return util::fail("failed to start {}: pipe: {}", program, errno_text(error));
  }
};

}  // namespace

std::string ExitStatus::describe() const {
  if (!signaled) return fmt::format("exit code {}", code);
  const char* name = ::sigabbrev_np(code);
  return name ? fmt::format("killed by signal {} (SIG{})", code, name)
              : fmt::format("killed by signal {}", code);
}

std::unique_ptr<ProcessLauncher> make_process_launcher() {
  return std::make_unique<RealLauncher>();
}

std::vector<std::pair<std::string, std::string>> current_environment() {
  std::vector<std::pair<std::string, std::string>> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    env.emplace_back(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return env;
}

}  // namespace kforge::eval
